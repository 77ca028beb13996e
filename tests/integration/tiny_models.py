"""A word-level tokenizer and a tiny GPT-2, built locally (no Hub) for the Trainer and GRPO tests.

The tokenizer splits on whitespace, so the texts the tests train on are written with a space
between tokens; decoding joins the words with spaces (Python call syntax does not mind them).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

#: The special tokens, first in the vocabulary: ids 0, 1, 2.
SPECIALS = ("<pad>", "</s>", "<unk>")


def word_tokenizer(words: Iterable[str], *, padding_side: str = "right") -> Any:
    """A ``PreTrainedTokenizerFast`` over ``SPECIALS`` then ``words`` (sorted), one id per word."""
    import tokenizers
    import transformers

    vocab = {tok: i for i, tok in enumerate([*SPECIALS, *sorted(words)])}
    tk = tokenizers.Tokenizer(tokenizers.models.WordLevel(vocab=vocab, unk_token="<unk>"))
    tk.pre_tokenizer = tokenizers.pre_tokenizers.WhitespaceSplit()
    return transformers.PreTrainedTokenizerFast(
        tokenizer_object=tk, pad_token="<pad>", eos_token="</s>", unk_token="<unk>", padding_side=padding_side,
    )


def tiny_gpt2(tk: Any, *, n_embd: int, seed: int = 0) -> Any:
    """A one-layer GPT-2 over ``tk``'s vocabulary, initialised from ``seed``."""
    import torch
    import transformers

    config = transformers.GPT2Config(
        vocab_size=len(tk), n_layer=1, n_embd=n_embd, n_head=2, n_positions=64,
        pad_token_id=tk.pad_token_id, eos_token_id=tk.eos_token_id, bos_token_id=tk.eos_token_id,
    )
    torch.manual_seed(seed)
    return transformers.GPT2LMHeadModel(config)

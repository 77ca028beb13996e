"""The README's snippets that are not doctests run here as written (issue 26 item 17): only the
model a snippet would download is replaced by a tiny model built locally (no Hub)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")

pytestmark = pytest.mark.usefixtures("offline_hub")  # no Hub, no network: tests/integration/conftest.py


def snippet(marker: str) -> str:
    """The README's one ```python block (not a doctest) that contains ``marker``."""
    blocks = [b for b in re.findall(r"```python\n(.*?)```", README, re.S) if marker in b and ">>>" not in b]
    assert len(blocks) == 1, f"expected one README snippet with {marker!r}, found {len(blocks)}"
    return blocks[0]


def _tiny_chat_model(path: Path) -> None:
    """A one-layer GPT-2 and a word-level tokenizer with a chat template, saved to ``path``."""
    import torch
    import transformers

    from .tiny_models import word_tokenizer

    tk = word_tokenizer({"[", "]", "(", ")", "get_weather", "city", "=", "'Paris'"}, padding_side="left")
    tk.chat_template = "{% for m in messages %}{{ m['content'] }} {% endfor %}"
    config = transformers.GPT2Config(vocab_size=len(tk), n_layer=1, n_embd=16, n_head=2, n_positions=1024,
                                     pad_token_id=tk.pad_token_id, eos_token_id=tk.eos_token_id,
                                     bos_token_id=tk.eos_token_id)
    torch.manual_seed(0)
    transformers.GPT2LMHeadModel(config).save_pretrained(path)
    tk.save_pretrained(path)


@pytest.mark.slow
def test_the_grpo_snippet_runs_on_cpu(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, one_thread: None) -> None:
    pytest.importorskip("trl")
    code = snippet("GRPOTrainer(")
    model = '"Qwen/Qwen2.5-0.5B-Instruct"'
    assert model in code
    _tiny_chat_model(tmp_path / "model")
    monkeypatch.chdir(tmp_path)  # the snippet's output_dir is relative
    scope: dict[str, Any] = {}
    exec(compile(code.replace(model, repr(str(tmp_path / "model"))), "README.md (GRPO snippet)", "exec"), scope)
    history = scope["trainer"].state.log_history
    assert any("rewards/toolcall_arg_f1/mean" in h for h in history)

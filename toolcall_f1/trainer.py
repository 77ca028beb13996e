"""A ready ``compute_metrics`` for transformers' ``Trainer`` and ``Seq2SeqTrainer``.

:func:`make_compute_metrics` turns the token ids a ``Trainer`` hands to ``compute_metrics``
into text, removes the prompt a decoder-only model repeats, and scores the text with the
toolcall_f1 metric (by default the evaluate module, so the numbers are exactly the metric's).
It supports ``TrainingArguments(batch_eval_metrics=True)``: each batch is decoded as it comes
(only its text is kept, not the arrays) and the whole corpus is scored by one ``compute()``
on the last batch — so the numbers are the same as without batching, micro-averaged.

This module is an edge of the package: it never imports transformers or torch (a torch
tensor is recognised by its ``detach`` method), so ``import toolcall_f1`` stays light.

Removing the prompt (``strip_prompt``)
--------------------------------------
A decoder-only model's ``generate()`` output starts with the prompt it was given; an
encoder-decoder's does not:

- ``"inputs"``: drop the prompt token ids exactly. Needs
  ``TrainingArguments(include_for_metrics=["inputs"])`` (``Seq2SeqTrainingArguments`` with
  ``predict_with_generate=True``): each generated row must begin with its (left-padded)
  input row, which is cut off; a row that does not raises ``ValueError``. The recommended
  mode for decoder-only models.
- ``"lengths"``: ``prompt_lengths[i]`` (in eval-dataset order) is the number of prompt
  tokens of example ``i``, without padding. Leading pad tokens (left padding) are skipped,
  then that many tokens are dropped. Caveat: a prompt that itself starts with the pad
  token (a BOS equal to the pad token) loses one token too many; prefer ``"inputs"``.
- ``"marker"``: the decoded text is cut after the **last** occurrence of
  ``response_marker`` (e.g. ``"### Response:"``); a text without it is kept whole. The
  marker must survive decoding (special tokens are skipped unless ``decode_kwargs``
  says otherwise). Applied to label-decoded references too.
- ``"labels"``: for teacher-forced evaluation on logits (plain ``Trainer``): keep the
  argmax token at position ``t`` only where ``label_ids[t + label_shift] != -100``, i.e.
  the answer span of a prompt-masked label. Causal LMs predict the next token: pass
  ``label_shift=1``.
- ``"none"`` (or ``False``): decode whole rows (encoder-decoder models).
- ``"auto"`` (default, or ``True``): ``"lengths"`` if ``prompt_lengths`` is given,
  ``"marker"`` if ``response_marker`` is, else each row that begins with its input row
  (when ``EvalPrediction.inputs`` is present) has it cut off, and other rows are kept
  whole. Without ``EvalPrediction.inputs`` every row is kept whole, with a
  :class:`~toolcall_f1.ToolCallWarning` (a decoder-only model's prompt would be scored
  too): pass ``include_for_metrics=["inputs"]``, or ``strip_prompt="none"`` for an
  encoder-decoder model.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from . import Settings, ToolCallMetric, ToolCallWarning, load
from .settings import CORPUS_OPTIONS, OUTPUT_OPTIONS
from .templates import TemplateReader

__all__ = ["COMPUTE_OPTIONS", "STRIP_MODES", "ToolCallComputeMetrics", "loggable", "make_compute_metrics", "token_rows"]

#: Said when ``strip_prompt="auto"`` finds no prompt ids: a decoder-only model's rows then
#: hold the prompt too, and calls written in it (few-shot examples) would count as predictions.
_NO_INPUTS = (
    "strip_prompt='auto': EvalPrediction.inputs is not set, so each row is scored whole; for a "
    "decoder-only model the prompt is scored too (calls in it count as predictions). Pass "
    "TrainingArguments(include_for_metrics=['inputs']), prompt_lengths= or response_marker=, "
    "or strip_prompt='none' for an encoder-decoder model (whose rows hold no prompt)"
)

#: The values ``strip_prompt`` accepts (``True`` means ``"auto"``, ``False`` means ``"none"``).
STRIP_MODES = ("auto", "none", "inputs", "lengths", "marker", "labels")

#: The value Trainer pads (and masks labels) with.
IGNORE_INDEX = -100



#: Every option ``make_compute_metrics`` (and the evaluate module's ``compute``) accepts: the
#: :class:`~toolcall_f1.Settings` fields, then the output options.
COMPUTE_OPTIONS = Settings.names() + OUTPUT_OPTIONS + CORPUS_OPTIONS
#: The options :meth:`ToolCallMetric.compute <toolcall_f1.ToolCallMetric.compute>` takes (a
#: metric passed as ``metric=`` fixes the others).
CORE_COMPUTE_OPTIONS = Settings.names(per_call=True) + OUTPUT_OPTIONS + CORPUS_OPTIONS

#: Per-tool scores flattened into the logged dict as ``per_tool/<name>/<stat>``.
PER_TOOL_STATS = ("precision", "recall", "f1")


class ToolCallComputeMetrics:
    """The callable :func:`make_compute_metrics` returns; see there for every parameter.

    Besides being called by the Trainer, it keeps what the logged numbers leave out:

    - ``last_result``: the metric's full result of the last corpus (with ``signature``,
      and ``per_tool`` / ``details`` when asked for);
    - ``signature``: the settings string of the last result (reproducibility);
    - ``reset()``: drop a half-accumulated ``batch_eval_metrics`` corpus. An exception
      raised inside the call resets it already; call this after an evaluation loop was
      interrupted elsewhere (e.g. by ``KeyboardInterrupt`` between batches).

    Decoded text is accumulated here rather than with the evaluate module's ``add_batch``:
    the metric sees exactly the same rows in one ``compute()``, and a corpus abandoned
    half-way can always be dropped (evaluate has no public way to discard added batches).
    """

    def __init__(
        self,
        tokenizer: Any,
        *,
        references: Sequence[Any] | None = None,
        prompt_lengths: Sequence[int] | None = None,
        strip_prompt: str | bool = "auto",
        response_marker: str | None = None,
        label_shift: int = 0,
        metric: Any = None,
        decode_kwargs: Mapping[str, Any] | None = None,
        **compute_kwargs: Any,
    ) -> None:
        if not hasattr(tokenizer, "batch_decode"):
            raise TypeError(
                f"tokenizer: expected a tokenizer with batch_decode(), got {type(tokenizer).__name__}"
            )
        self.tokenizer = tokenizer
        self.references = list(references) if references is not None else None
        self.prompt_lengths = _check_lengths(prompt_lengths)
        self.strip_prompt = _resolve_mode(strip_prompt, self.prompt_lengths, response_marker)
        if response_marker is not None and (not isinstance(response_marker, str) or not response_marker):
            raise ValueError(f"response_marker: expected a non-empty string, got {response_marker!r}")
        self.response_marker = response_marker
        if not isinstance(label_shift, int) or isinstance(label_shift, bool) or label_shift < 0:
            raise ValueError(f"label_shift: expected an int >= 0, got {label_shift!r}")
        if label_shift and self.strip_prompt != "labels":
            raise ValueError("label_shift is only used with strip_prompt='labels'")
        self.label_shift = label_shift
        self.decode_kwargs = {"skip_special_tokens": True, **dict(decode_kwargs or {})}
        self.compute_kwargs = compute_kwargs
        # The model's own response template reads its markers, so predictions keep special tokens.
        self._pred_decode_kwargs = self.decode_kwargs
        if _use_response_template(tokenizer, metric, self.compute_kwargs) and "skip_special_tokens" not in (
            decode_kwargs or {}
        ):
            self._pred_decode_kwargs = {**self.decode_kwargs, "skip_special_tokens": False}
        self.metric, self._core = _resolve_metric(metric, self.compute_kwargs)
        reference_format = self.compute_kwargs.get("reference_format") or getattr(self.metric, "reference_format", None)
        order = self.compute_kwargs.get("order") or getattr(self.metric, "order", None)
        # a BFCL answer stays text; under order="turns" a label is the conversation's JSON text
        self._labels_are_replies = reference_format != "bfcl" and order != "turns"
        self.last_result: dict[str, Any] | None = None
        self.signature: str | None = None
        self._offset = 0
        self._preds: list[str] = []
        self._refs: list[Any] = []

    # -- the Trainer protocol -------------------------------------------------------------

    def __call__(self, eval_pred: Any, compute_result: bool = True) -> dict[str, float]:
        """Score an ``EvalPrediction``; with ``batch_eval_metrics``, accumulate until
        ``compute_result`` is true.

        Parameters
        ----------
        eval_pred
            transformers' ``EvalPrediction`` (``predictions``, ``label_ids``, optional
            ``inputs``) or a ``(predictions, label_ids)`` pair.
        compute_result
            ``False``: add this batch and return ``{}``. ``True`` (the default, and what the
            Trainer passes on the last batch): add it, score the whole corpus, start afresh.

        Returns
        -------
        dict[str, float]
            The metric's numbers: ``f1``, ``precision``, ``recall``, ``exact_match``, ``tp``,
            ``fp``, ``fn``, ``num_examples``, ``num_parse_errors``, ``hallucinated_tools``,
            ``hallucinated_args``, and ``per_tool/<name>/<stat>`` with ``per_tool=True``.

        Raises
        ------
        ValueError
            See :meth:`decode`; also when, at the end, ``references`` or ``prompt_lengths``
            do not hold exactly one entry per evaluated example. Any exception drops the
            partly accumulated corpus.
        """
        try:
            predictions, references = self.decode(eval_pred, offset=self._offset)
            self._offset += len(predictions)
            self._add(predictions, references)
            if not compute_result:
                return {}
            for what, items in (("references", self.references), ("prompt_lengths", self.prompt_lengths)):
                if items is not None and self._offset != len(items):
                    raise ValueError(
                        f"{what}: {len(items)} given, but the evaluation produced {self._offset} "
                        "predictions (one entry per eval example, in eval-dataset order)"
                    )
            result = self._compute()
        except BaseException:
            self.reset()  # never let a broken corpus leak into the next evaluation
            raise
        self.reset()
        self.last_result = result
        self.signature = result.get("signature")
        return loggable(result)

    def reset(self) -> None:
        """Forget a partly accumulated corpus (the next call starts at example 0)."""
        self._offset = 0
        self._preds = []
        self._refs = []

    # -- decoding -------------------------------------------------------------------------

    def decode(self, eval_pred: Any, *, offset: int = 0) -> tuple[list[str], list[Any]]:
        """The prediction texts and the references for one ``EvalPrediction`` (or batch).

        Parameters
        ----------
        eval_pred
            As for calling the object.
        offset
            Index in the eval dataset of this batch's first example (for ``references``
            and ``prompt_lengths``).

        Returns
        -------
        tuple[list[str], list]
            The decoded predictions (prompt removed) and, per example, the given reference
            or the decoded label text.

        Raises
        ------
        ValueError
            On shapes that are not token ids or logits, rows that do not match the given
            ``references`` / ``prompt_lengths`` / ``inputs``, or a prompt that cannot be
            removed as asked.
        """
        predictions, label_ids, inputs = _unpack(eval_pred)
        pred_rows = token_rows(predictions, "predictions")
        label_rows = self._label_rows(label_ids, len(pred_rows))
        pred_rows = self._strip(pred_rows, inputs, label_rows, offset)
        texts = self._decode_rows(pred_rows, self._pred_decode_kwargs)
        if self.strip_prompt == "marker":
            texts = [self._after_marker(t) for t in texts]
        return texts, self._references(label_rows, offset, len(pred_rows))

    def _label_rows(self, label_ids: Any, n: int) -> list[np.ndarray] | None:
        """The label rows, when they are used: for references (none given) or by
        ``strip_prompt="labels"``; with ``references=`` the labels may be anything."""
        if label_ids is None or (self.references is not None and self.strip_prompt != "labels"):
            return None
        label_rows = token_rows(label_ids, "label_ids")
        if len(label_rows) != n:
            raise ValueError(f"label_ids: {len(label_rows)} rows for {n} prediction rows")
        return label_rows

    def _strip(
        self, pred_rows: list[np.ndarray], inputs: Any, label_rows: list[np.ndarray] | None, offset: int
    ) -> list[np.ndarray]:
        """The prediction rows without their prompt, as ``strip_prompt`` says (the text
        modes, ``"marker"`` and ``"none"``, leave the rows as they are)."""
        mode, n = self.strip_prompt, len(pred_rows)
        if mode in ("inputs", "auto"):
            input_rows = _input_rows(inputs, n)
            if input_rows is None and mode == "inputs":
                raise ValueError(
                    "strip_prompt='inputs' needs the prompt ids: pass "
                    "TrainingArguments(include_for_metrics=['inputs']) so that "
                    "EvalPrediction.inputs is set"
                )
            if input_rows is None:
                warnings.warn(_NO_INPUTS, ToolCallWarning, stacklevel=4)
                return pred_rows
            return [
                _strip_inputs(row, prompt, offset + i, strict=mode == "inputs")
                for i, (row, prompt) in enumerate(zip(pred_rows, input_rows))
            ]
        if mode == "lengths":
            lengths = self.prompt_lengths or []
            _check_range(lengths, offset, n, "prompt_lengths")
            pad = getattr(self.tokenizer, "pad_token_id", None)
            return [_strip_length(row, lengths[offset + i], pad, offset + i) for i, row in enumerate(pred_rows)]
        if mode == "labels":
            if label_rows is None:
                raise ValueError("strip_prompt='labels' needs label_ids")
            return [_keep_labelled(row, labels, self.label_shift) for row, labels in zip(pred_rows, label_rows)]
        return pred_rows

    def _references(self, label_rows: list[np.ndarray] | None, offset: int, n: int) -> list[Any]:
        """This batch's references: the given ones, or the label rows decoded."""
        if self.references is not None:
            _check_range(self.references, offset, n, "references")
            return self.references[offset : offset + n]
        if label_rows is None:
            raise ValueError(
                "label_ids is None: pass references=... (the gold calls of each eval example) "
                "or give the eval dataset labels"
            )
        refs = self._decode_rows(label_rows, self.decode_kwargs)
        if self.strip_prompt == "marker":
            refs = [self._after_marker(t) for t in refs]
        return refs

    def _decode_rows(self, rows: Sequence[np.ndarray], kwargs: Mapping[str, Any]) -> list[str]:
        ids = [row[row != IGNORE_INDEX].tolist() for row in rows]
        return list(self.tokenizer.batch_decode(ids, **kwargs))

    def _after_marker(self, text: str) -> str:
        _, sep, tail = text.rpartition(self.response_marker or "")
        return tail if sep else text

    # -- scoring --------------------------------------------------------------------------

    def _add(self, predictions: list[str], references: list[Any]) -> None:
        self._preds.extend(predictions)
        if self.references is None and self._labels_are_replies:
            # A decoded label is the assistant's reply: given as that message, its text is read
            # as a prediction's is, so a label without a call (a text answer) expects no call,
            # whereas a bare reference text must hold one (SPEC §2). BFCL answers stay text.
            references = [{"role": "assistant", "content": text} for text in references]
        self._refs.extend(references)

    def _compute(self) -> dict[str, Any]:
        if self._core:
            result = self.metric.compute(self._preds, self._refs, **self.compute_kwargs)
        else:
            result = self.metric.compute(
                predictions=self._preds, references=self._refs, **self.compute_kwargs
            )
        return dict(result)


def make_compute_metrics(tokenizer: Any, **options: Any) -> ToolCallComputeMetrics:
    """A ``compute_metrics`` for ``Trainer``/``Seq2SeqTrainer`` scoring the generated tool calls.

    The :class:`ToolCallComputeMetrics` made from ``tokenizer`` and ``options`` (the
    parameters below: its own, then the metric's compute options, checked in one place). It
    takes ``(eval_pred, compute_result=True)``. It turns each
    prediction row into text — a tuple output is reduced to its first element; numpy
    arrays, torch tensors, lists of rows and lists of per-batch arrays
    (``eval_do_concat_batches=False``) are accepted; logits (3-D) become their argmax; the
    ignore index ``-100`` is removed (the same text as replacing it by the pad id and skipping
    special tokens); the prompt is removed as ``strip_prompt`` says — then decodes the
    references the same way from ``label_ids`` (unless ``references`` is given; a label is the
    target reply, so one without a call in it, a text answer, expects no call) and scores
    the corpus with the metric. Trainer logs the result with an ``eval_`` prefix.

    Parameters
    ----------
    tokenizer
        Anything with ``batch_decode`` (a tokenizer or processor); ``pad_token_id`` is used
        by ``"lengths"``. When it carries a ``response_template`` (transformers >= 5.13) and
        no ``prediction_format`` is chosen (here, or on a ``ToolCallMetric`` passed as
        ``metric``), predictions are read with that template — the model's own parser — and
        decoded keeping special tokens (its markers); pass ``prediction_format="auto"`` to
        read them as before.
    references
        The gold calls of each eval example, in eval-dataset order, in any shape the metric
        reads (text, call dicts, ``{"calls", "tools"}``...). Default: decode ``label_ids``.
        The Trainer still needs labels in the eval dataset to call ``compute_metrics`` at all.
    prompt_lengths
        Per eval example, its prompt's length in tokens (``strip_prompt="lengths"``).
    strip_prompt
        One of :data:`STRIP_MODES`, ``True`` or ``False``: how the prompt is removed
        ("Removing the prompt" in this module's docstring).
    response_marker
        The text after which the response starts (``strip_prompt="marker"``).
    label_shift
        ``strip_prompt="labels"`` only: 1 for causal LMs, 0 for encoder-decoders.
    metric
        ``None`` (default): the evaluate module, ``toolcall_f1.load(keep_in_memory=True)``.
        Or a loaded evaluate module of this metric, or a :class:`toolcall_f1.ToolCallMetric`
        (then its constructor fixes level, matching, canonicalizers, formats and
        on_parse_error, and only ``tools``, ``weights``, ``rules``, ``prediction_format``,
        ``reference_format``, ``per_tool``, ``return_details`` may be passed here).
    decode_kwargs
        Passed to ``batch_decode``; ``skip_special_tokens=True`` unless overridden (for
        predictions read with a response template: ``False`` unless overridden).
    level, matching, order, canonicalizer, name_canonicalizer, prediction_format, reference_format, on_parse_error, tools, weights, rules, per_tool, return_details, progress, confidence_level, n_resamples, seed, pass_k
        The metric's compute options (:data:`COMPUTE_OPTIONS`: the fields of
        :class:`~toolcall_f1.Settings`, then its output options, then the interval's). Checked
        now, as one ``Settings``, so a typo fails before training starts. An interval (``ci``)
        or ``pass_k`` is kept in ``last_result``, not logged (only numbers are).

    Returns
    -------
    ToolCallComputeMetrics
        ``compute_metrics(eval_pred, compute_result=True) -> dict[str, float]``: the numeric
        results (``f1``, ``precision``, ``recall``, ``exact_match``, ``tp``, ``fp``, ``fn``,
        ``num_examples``, ``num_parse_errors``, ``hallucinated_tools``,
        ``hallucinated_args``; ``per_tool/<name>/precision|recall|f1`` with
        ``per_tool=True``). ``signature`` and ``details`` are not logged; they stay in its
        ``last_result`` (and ``signature``) attribute.

    Raises
    ------
    TypeError
        For an unknown compute option, or a tokenizer without ``batch_decode``.
    ValueError
        For an invalid option value (``level="token"``, an unknown ``strip_prompt``, a
        ``prompt_lengths`` or ``response_marker`` the mode does not use, ...). When called:
        for rows that do not match ``references`` or ``prompt_lengths`` in number, or a
        prompt that cannot be removed as asked.

    Examples
    --------
    With the Trainer (not run here)::

        args = Seq2SeqTrainingArguments(output_dir, predict_with_generate=True,
                                        include_for_metrics=["inputs"],  # decoder-only
                                        batch_eval_metrics=True)         # optional
        trainer = Seq2SeqTrainer(model, args, eval_dataset=eval_ds, processing_class=tok,
                                 compute_metrics=make_compute_metrics(tok, tools=tools))
        trainer.evaluate()["eval_f1"]

    The callable on its own, with a one-character-per-id stand-in tokenizer:

    >>> class CharTokenizer:
    ...     pad_token_id = 0
    ...     def batch_decode(self, rows, skip_special_tokens=True):
    ...         return ["".join(chr(i) for i in row if i != 0) for row in rows]
    >>> def ids(texts, width=12):
    ...     return np.array([[ord(c) for c in t] + [-100] * (width - len(t)) for t in texts])
    >>> compute_metrics = make_compute_metrics(CharTokenizer())
    >>> scores = compute_metrics((ids(["[f(a=1)]", "[g()]"]), ids(["[f(a=1)]", "[h()]"])))
    >>> scores["f1"], scores["exact_match"], scores["tp"], scores["fp"], scores["fn"]
    (0.5, 0.5, 1.0, 1.0, 1.0)
    >>> make_compute_metrics(CharTokenizer(), levle="arg")
    Traceback (most recent call last):
    ...
    TypeError: make_compute_metrics: unknown compute option 'levle'; expected one of 'level', ...
    """
    return ToolCallComputeMetrics(tokenizer, **options)


def loggable(result: Mapping[str, Any]) -> dict[str, float]:
    """The numbers of a metric result, as Trainer logs them: ``signature`` and ``details``
    dropped, ``per_tool`` flattened to ``per_tool/<name>/<stat>``, ``call_decision`` to
    ``call_decision/<count or rate>`` (a rate that is None is left out).

    Examples
    --------
    >>> loggable({"f1": 0.5, "signature": "level:call", "details": [],
    ...           "per_tool": {"f": {"tp": 1.0, "fp": 1.0, "fn": 0.0, "precision": 0.5,
    ...                              "recall": 1.0, "f1": 0.6666666666666666}}})
    {'f1': 0.5, 'per_tool/f/precision': 0.5, 'per_tool/f/recall': 1.0, 'per_tool/f/f1': 0.6666666666666666}
    """
    out: dict[str, float] = {}
    for key, value in result.items():
        if key == "per_tool" and isinstance(value, Mapping):
            for name, stats in value.items():
                for stat in PER_TOOL_STATS:
                    out[f"per_tool/{name}/{stat}"] = stats[stat]
        elif key == "call_decision" and isinstance(value, Mapping):
            out.update({f"call_decision/{k}": v for k, v in value.items() if isinstance(v, (int, float))})
        elif isinstance(value, (int, float)) and not isinstance(value, bool):
            out[key] = value
    return out


# -- arrays -----------------------------------------------------------------------------


def token_rows(value: Any, what: str = "predictions") -> list[np.ndarray]:
    """Token-id rows (1-D int arrays) from what the Trainer passes as predictions or labels.

    A tuple is reduced to its first element (models that also return hidden states or
    ``past_key_values``); logits (3-D) become their argmax; a list of 2-D or 3-D arrays
    is a list of batches (``eval_do_concat_batches=False``); a list of 1-D rows is rows.
    torch tensors are accepted without importing torch.

    Raises
    ------
    ValueError
        For anything that is not a batch of token ids or logits.

    Examples
    --------
    >>> [r.tolist() for r in token_rows((np.array([[5, 6, -100]]), "hidden states"))]
    [[5, 6, -100]]
    >>> [r.tolist() for r in token_rows(np.array([[[0.1, 0.9], [0.8, 0.2]]]))]
    [[1, 0]]
    >>> [r.tolist() for r in token_rows([[1, 2, 3], [4]])]
    [[1, 2, 3], [4]]
    >>> token_rows(np.array([1, 2]))
    Traceback (most recent call last):
    ...
    ValueError: predictions: expected token ids (batch, length) or logits (batch, length, vocab); got shape (2,)
    """
    value = _first(value)
    if value is None:
        raise ValueError(f"{what}: got None")
    if isinstance(value, list):
        if value and _ndim(_first(value[0])) >= 2:  # one array per batch
            return [row for batch in value for row in token_rows(batch, what)]
        return [_int_row(_to_numpy(_first(r)), what, i) for i, r in enumerate(value)]
    arr = _to_numpy(value)
    if arr.ndim == 3:
        arr = arr.argmax(axis=-1)
    if arr.ndim != 2:
        raise ValueError(
            f"{what}: expected token ids (batch, length) or logits (batch, length, vocab); "
            f"got shape {tuple(arr.shape)}"
        )
    return [_int_row(row, what, i) for i, row in enumerate(arr)]


def _first(value: Any) -> Any:
    while isinstance(value, tuple):
        if not value:
            return None
        value = value[0]
    return value


def _ndim(value: Any) -> int:
    ndim = getattr(value, "ndim", None)
    if isinstance(ndim, int):
        return ndim
    if isinstance(value, (list, tuple)):
        return 1 + (_ndim(value[0]) if value else 0)
    return 0


def _to_numpy(value: Any) -> np.ndarray:
    if hasattr(value, "detach") and hasattr(value, "cpu"):  # a torch tensor
        value = value.detach()
        if value.is_floating_point():
            value = value.float()  # bfloat16 has no numpy dtype
        return value.cpu().numpy()
    return np.asarray(value)


def _int_row(row: Any, what: str, index: int) -> np.ndarray:
    arr = np.asarray(row)
    if arr.ndim != 1:
        raise ValueError(f"{what}[{index}]: expected a row of token ids, got shape {tuple(arr.shape)}")
    if arr.dtype.kind == "f" and np.all(np.isfinite(arr)) and np.all(arr == np.round(arr)):
        arr = arr.astype(np.int64)
    if arr.dtype.kind not in "iu" and arr.size:
        raise ValueError(f"{what}[{index}]: expected integer token ids, got dtype {arr.dtype}")
    return arr.astype(np.int64, copy=False)


def _unpack(eval_pred: Any) -> tuple[Any, Any, Any]:
    if hasattr(eval_pred, "predictions"):
        return eval_pred.predictions, getattr(eval_pred, "label_ids", None), getattr(eval_pred, "inputs", None)
    if isinstance(eval_pred, (tuple, list)) and len(eval_pred) in (2, 3):
        inputs = eval_pred[2] if len(eval_pred) == 3 else None
        return eval_pred[0], eval_pred[1], inputs
    raise TypeError(
        "eval_pred: expected an EvalPrediction or a (predictions, label_ids) pair, "
        f"got {type(eval_pred).__name__}"
    )


def _input_rows(inputs: Any, n: int) -> list[np.ndarray] | None:
    if inputs is None:
        return None
    if isinstance(inputs, Mapping):  # batch_eval_metrics passes the whole batch dict
        if "input_ids" not in inputs:
            raise ValueError(f"inputs: no 'input_ids' among {sorted(inputs)}")
        inputs = inputs["input_ids"]
    rows = token_rows(inputs, "inputs")
    if len(rows) != n:
        raise ValueError(
            f"inputs: {len(rows)} rows for {n} prediction rows (with batch_eval_metrics on "
            "several processes the Trainer passes this process's inputs but everyone's "
            "predictions; use strip_prompt='lengths' or 'marker' there)"
        )
    return rows


# -- removing the prompt ----------------------------------------------------------------


def _strip_inputs(row: np.ndarray, prompt: np.ndarray, index: int, *, strict: bool) -> np.ndarray:
    prompt = prompt[prompt != IGNORE_INDEX]
    k = len(prompt)
    if len(row) >= k and np.array_equal(row[:k], prompt):
        return row[k:]
    if strict:
        raise ValueError(
            f"predictions[{index}]: does not begin with its prompt (inputs[{index}]); "
            "strip_prompt='inputs' is for decoder-only models whose generate() output "
            "repeats the prompt — use 'none' for encoder-decoder models"
        )
    return row


def _strip_length(row: np.ndarray, length: int, pad: int | None, index: int) -> np.ndarray:
    start = 0
    if pad is not None:
        while start < len(row) and row[start] == pad:
            start += 1
    if start + length > len(row):
        raise ValueError(
            f"predictions[{index}]: {len(row) - start} tokens after left padding, shorter "
            f"than prompt_lengths[{index}] = {length}; is the prompt in the output at all?"
        )
    return row[start + length :]


def _keep_labelled(row: np.ndarray, labels: np.ndarray, shift: int) -> np.ndarray:
    target = labels[shift:]
    m = min(len(row), len(target))
    return row[:m][target[:m] != IGNORE_INDEX]


# -- validation -------------------------------------------------------------------------


def _check_lengths(lengths: Sequence[int] | None) -> list[int] | None:
    if lengths is None:
        return None
    out = []
    for i, n in enumerate(lengths):
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 0:
            raise ValueError(f"prompt_lengths[{i}]: expected an int >= 0, got {n!r}")
        out.append(int(n))
    return out


def _resolve_mode(strip_prompt: str | bool, lengths: list[int] | None, marker: str | None) -> str:
    if strip_prompt is True:
        strip_prompt = "auto"
    elif strip_prompt is False or strip_prompt is None:
        strip_prompt = "none"
    if strip_prompt not in STRIP_MODES:
        raise ValueError(
            f"strip_prompt: unknown value {strip_prompt!r}; expected one of "
            + ", ".join(repr(m) for m in STRIP_MODES)
        )
    if strip_prompt == "auto":
        if lengths is not None and marker is not None:
            raise ValueError("give prompt_lengths or response_marker, not both")
        if lengths is not None:
            return "lengths"
        if marker is not None:
            return "marker"
        return "auto"
    if strip_prompt == "lengths" and lengths is None:
        raise ValueError("strip_prompt='lengths' needs prompt_lengths")
    if strip_prompt == "marker" and marker is None:
        raise ValueError("strip_prompt='marker' needs response_marker")
    if lengths is not None and strip_prompt != "lengths":
        raise ValueError(f"prompt_lengths is only used with strip_prompt='lengths', not {strip_prompt!r}")
    if marker is not None and strip_prompt != "marker":
        raise ValueError(f"response_marker is only used with strip_prompt='marker', not {strip_prompt!r}")
    return strip_prompt


def _check_range(items: Sequence[Any], offset: int, n: int, what: str) -> None:
    if offset + n > len(items):
        raise ValueError(
            f"{what}: {len(items)} given, but the evaluation reached example {offset + n - 1} "
            "(one entry per eval example, in eval-dataset order)"
        )


def _use_response_template(tokenizer: Any, metric: Any, kwargs: dict[str, Any]) -> bool:
    """Whether predictions are read with a response template; makes the tokenizer's own
    ``response_template`` the ``prediction_format`` (in ``kwargs``) when none is chosen."""
    if kwargs.get("prediction_format") is not None:
        return not isinstance(kwargs["prediction_format"], str)
    if isinstance(metric, ToolCallMetric) and metric.prediction_format != "auto":
        return isinstance(metric.prediction_format, TemplateReader)  # chosen on the metric
    if getattr(tokenizer, "response_template", None) is None:
        return False
    kwargs["prediction_format"] = TemplateReader(tokenizer)  # checked (and compiled) once, now
    return True


def _resolve_metric(metric: Any, kwargs: dict[str, Any]) -> tuple[Any, bool]:
    for key in kwargs:
        if key not in COMPUTE_OPTIONS:
            raise TypeError(
                f"make_compute_metrics: unknown compute option {key!r}; expected one of "
                + ", ".join(repr(k) for k in COMPUTE_OPTIONS)
            )
    if isinstance(metric, ToolCallMetric):
        for key in kwargs:
            if key not in CORE_COMPUTE_OPTIONS:
                raise ValueError(
                    f"{key}: set it on the ToolCallMetric(...) passed as metric=, "
                    "its compute() does not take it"
                )
        return metric, True
    # Fail now, not after an epoch: the settings, and the tool set they compile to.
    ToolCallMetric.from_settings(Settings(**{k: v for k, v in kwargs.items() if k in Settings.names() and v is not None}))
    if metric is None:
        return load(keep_in_memory=True), False
    if not (hasattr(metric, "add_batch") and hasattr(metric, "compute")):
        raise TypeError(
            "metric: expected None, an evaluate module of toolcall_f1 or a ToolCallMetric, "
            f"got {type(metric).__name__}"
        )
    return metric, False

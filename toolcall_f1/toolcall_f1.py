"""The evaluate.Metric adapter: ``_info`` and ``_compute``; it reshapes inputs, nothing more.

Loaded by ``evaluate.load("toolcall_f1")`` (from the repository root) or ``toolcall_f1.load()``.
It imports the installed package, as evaluate's sacrebleu and rouge metrics import theirs: one
copy of every class (``except toolcall_f1.ToolCallParseError`` catches what this metric raises),
and evaluate's loader names the package when it is not installed.

Each input is stored as one exact JSON text (``datasets.Value("string")``), made when it is
added and read back as the very input the core would be given (:mod:`toolcall_f1.stored`).
"""

from __future__ import annotations

import contextlib
import os
import types
import warnings
from collections.abc import Sequence
from typing import Any

import datasets
import evaluate

import toolcall_f1
import toolcall_f1.settings
from toolcall_f1 import stored
from toolcall_f1.metric import StructPadding

# evaluate.EvaluationModule's runtime state: the Arrow writer, the data read back, the cache file
# and its locks. EvaluationModule.__init__ sets each to None ("so we can (cloud)pickle the object");
# add_batch and compute fill them with open files and locks, which do not pickle.
_RUNTIME_STATE = ("selected_feature_format", "buf_writer", "writer", "data", "cache_file_name",
                  "filelock", "rendez_vous_lock", "file_paths", "filelocks")

_CITATION = """\
@inproceedings{patil2025bfcl,
  title     = {The Berkeley Function Calling Leaderboard ({BFCL}): From Tool Use to Agentic Evaluation of Large Language Models},
  author    = {Patil, Shishir G. and Mao, Huanzhi and Yan, Fanjia and Ji, Charlie Cheng-Jie and Suresh, Vishnu and Stoica, Ion and Gonzalez, Joseph E.},
  booktitle = {Proceedings of the 42nd International Conference on Machine Learning (ICML)},
  year      = {2025}
}
"""

_DESCRIPTION = """\
toolcall_f1 scores the tool calls an LLM emitted against gold calls. It parses the calls
(OpenAI, Anthropic, Hermes/Qwen, Mistral, Llama, JSON, BFCL-style Python syntax, Markdown
fences), matches them to the gold calls as a multiset (order-free, repeats counted), judges
each pair the way the Berkeley Function Calling Leaderboard's AST checker does — without
executing anything — and reports a cost-weighted, micro-averaged F1 over the whole corpus.
Weights come from the tool schemas ("importance"), so a wrong argument to a destructive tool
costs more than one to a search.
"""

_KWARGS_DESCRIPTION = """
Args:
    predictions: per example, the model's tool calls: raw output text (any supported format),
        a list of calls (``{"name", "arguments"}``, OpenAI tool calls, Anthropic blocks,
        BFCL ``{name: {args}}``), or an OpenAI assistant message.
    references: per example, the gold calls in the same shapes, a BFCL possible answer
        (with ``reference_format="bfcl"``), or ``{"calls": ..., "tools": [...]}`` with
        per-example tool schemas; JSON text holding any of these (a ``datasets`` column of
        JSON strings) is read as the value it holds. numpy arrays and values (``datasets``
        numpy-format columns) are read as the equal plain values, for predictions too.
    level: "call" (a call is a TP only on an exact match) or "arg" (partial credit per
        argument). Defaults to the config name ("call" unless loaded as "arg").
    matching: "greedy" (default) or "optimal" (fewest FP+FN, scipy's assignment).
    order: "any" (default: calls as a multiset), "strict" (pairs keep both orders) or "turns"
        (a reference ``{"turns": [turn, ...], "tools": [...]}``, a prediction a list with one
        entry per turn, or JSON text of it; calls pair only within a turn; adds turn_exact_match).
    canonicalizer: string comparison: "default" (casefold, fold whitespace), "bfcl", "exact"
        or a callable.
    name_canonicalizer: "exact" (default), "underscore" (``a.b`` reads as ``a_b``), callable.
    tools: tool schemas (OpenAI or BFCL form, or JSON text of them): types, required,
        defaults, "importance".
    weights: {tool: w} or {tool: {"weight": w, "arguments": {arg: w}}}.
    rules: argument rules {tool: {arg: rule}} ("*": every argument of the tool without its own):
        "exact" (default), "ignore", "unordered", "subset", "superset", {"abs_tol": x},
        {"rel_tol": y} or a callable (p, g) -> bool.
    prediction_format: "auto" (default) or a format name; "bfcl" reads text as strictly as
        BFCL's prompt decoder; or the model's response template (a dict, or a tokenizer with
        ``.response_template``), read by transformers' own parser (transformers >= 5.13).
    reference_format: "auto" (default) or "bfcl" for BFCL possible answers.
    on_parse_error: "count" (default: zero calls, counted) or "raise".
    per_tool: also return per-tool tp/fp/fn/precision/recall/f1.
    return_details: also return per-example counts, pairs and argument verdicts.
    progress: a progress bar on stderr (default: only for 50,000 examples or more).
    Any other keyword is a TypeError naming the nearest valid one (``per_tools`` → ``per_tool``).
Returns:
    f1, precision, recall: micro-averaged over the corpus (weighted counts summed, then divided).
    exact_match: fraction of examples whose calls all match exactly (BFCL's accuracy).
    tp, fp, fn: weighted counts. num_examples, num_parse_errors, hallucinated_tools,
    hallucinated_args: counts. signature: every setting that changes the number.
Raises:
    ValueError: nothing was added (a corpus of zero examples has no score), an unreadable
        reference (naming it: ``references[3]: ...``), or a bad setting;
        ``toolcall_f1.ToolCallParseError`` for a prediction with ``on_parse_error="raise"``.
    TypeError: a keyword that is no option.
Examples:
    >>> import toolcall_f1
    >>> metric = toolcall_f1.load()
    >>> results = metric.compute(
    ...     predictions=['[search(q="cats"), delete_all()]'],
    ...     references=[[{"name": "search", "arguments": {"q": "cats"}},
    ...                  {"name": "answer", "arguments": {"a": "meow"}}]])
    >>> results["f1"], results["tp"], results["fp"], results["fn"]
    (0.5, 1.0, 1.0, 1.0)
    >>> metric.compute(predictions=["[f()]"], references=[[("f", {})]], per_tools=True)
    Traceback (most recent call last):
    ...
    TypeError: compute() got an unexpected keyword argument 'per_tools'; did you mean 'per_tool'?
"""

@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class ToolcallF1(evaluate.Metric):
    """Cost-weighted, micro-averaged F1 over tool calls (BFCL-style AST matching)."""

    def _info(self) -> evaluate.MetricInfo:
        if self.config_name not in ("default", "call", "arg"):
            raise ValueError(f"config_name: unknown value {self.config_name!r}; expected 'call' or 'arg'")
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=datasets.Features({"predictions": datasets.Value("string"), "references": datasets.Value("string")}),
            homepage="https://gorilla.cs.berkeley.edu/leaderboard.html",
            codebase_urls=["https://github.com/ShishirPatil/gorilla/tree/main/berkeley-function-call-leaderboard"],
            reference_urls=["https://gorilla.cs.berkeley.edu/blogs/8_berkeley_function_calling_leaderboard.html"],
        )

    def add_batch(self, *, predictions: Any = None, references: Any = None, **kwargs: Any) -> None:
        """Add a batch (any input shape; each is stored as exact JSON text)."""
        StructPadding.warn_column(references)  # a datasets column's Arrow type, before it is text
        predictions = None if predictions is None else [stored.dumps(p) for p in predictions]
        references = None if references is None else [stored.dumps(r) for r in references]
        super().add_batch(predictions=predictions, references=references, **kwargs)

    def add(self, *, prediction: Any = None, reference: Any = None, **kwargs: Any) -> None:
        """Add one example (a prediction and its reference)."""
        prediction = stored.dumps(prediction)  # None is zero calls, as in add_batch
        reference = stored.dumps(reference)  # None too: the core names the example it is missing from
        super().add(prediction=prediction, reference=reference, **kwargs)

    def compute(self, *, predictions: Any = None, references: Any = None, **kwargs: Any) -> dict[str, Any] | None:
        """Score everything added; a rank that added nothing still joins a distributed run
        (an empty batch is written for it), and only a corpus empty on every rank is an error."""
        if predictions is None and references is None and self.writer is None:
            self.add_batch(predictions=[], references=[])
        try:
            return super().compute(predictions=predictions, references=references, **kwargs)
        except BaseException:
            self._discard_read_inputs()
            raise

    def _discard_read_inputs(self) -> None:
        """After a compute that raised once evaluate had read the inputs back, do what evaluate
        does after a compute that returned: drop the data, delete the cache files, release their
        locks. evaluate leaves them held on an error, so the next add_batch waited 1 s for its own
        lock (``_create_cache_file``'s timeout) and the old file stayed on disk. A compute that
        raised before that (the writer still open, or the data not read back: a distributed
        rendez-vous that timed out) keeps its inputs, as evaluate does — the cache file a
        compute that returned named earlier may be the one now holding them."""
        if self.writer is not None or self.data is None:  # type: ignore[has-type]
            return
        self.data = None
        self.buf_writer = None
        # evaluate sets these outside __init__ (mypy cannot type them)
        read_files = list(zip(self.filelocks or [], self.file_paths or []))  # type: ignore[has-type]
        for filelock, file_path in reversed(read_files):  # process 0 last, as evaluate releases them
            with contextlib.suppress(FileNotFoundError):
                os.remove(file_path)
            filelock.release()
        self.file_paths = None
        self.filelocks = None

    def __getstate__(self) -> dict[str, Any]:
        """Pickle the module as evaluate builds it, without its runtime state (open Arrow files,
        file locks): a metric must pickle at any point (datasets.map with num_proc,
        multiprocessing). Examples added and not yet computed live in the original's locked Arrow
        cache file, which a copy cannot share: the copy starts with none (warned), the original
        keeps them."""
        if self.writer is not None and len(self) > 0:
            warnings.warn(f"pickling a toolcall_f1 module holding {len(self)} added examples: the copy "
                          "starts with none (they stay in this module's cache file); pickle before "
                          "add/add_batch, or compute first", UserWarning, stacklevel=2)
        state = self.__dict__.copy()
        state.update(dict.fromkeys(_RUNTIME_STATE))
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        """The state :meth:`__getstate__` kept. evaluate binds ``compute``, ``add_batch`` and
        ``add`` to the instance (for their docstrings): a copy made by :func:`copy.copy` got
        the original's, and scored (and emptied) the original's examples; they are bound to
        the copy (pickle rebinds them itself)."""
        self.__dict__.update(state)
        for name, value in state.items():
            if isinstance(value, types.MethodType) and value.__self__ is not self:
                self.__dict__[name] = types.MethodType(value.__func__, self)

    def _compute(self, predictions: Sequence[str], references: Sequence[str], **options: Any) -> dict[str, Any]:
        """Score the stored inputs: ``options`` are the fields of ``toolcall_f1.Settings``
        (``level`` defaults to the config name) and its output options; a misspelled keyword
        is a TypeError naming the nearest valid one."""
        valid = toolcall_f1.Settings.names() + toolcall_f1.settings.OUTPUT_OPTIONS + toolcall_f1.settings.CORPUS_OPTIONS
        for key in options:
            if key not in valid:
                raise toolcall_f1.settings.keyword_error("compute()", key, valid)
        if options.get("level") is None:
            options["level"] = "call" if self.config_name == "default" else self.config_name
        settings = toolcall_f1.Settings(**{k: options.pop(k) for k in toolcall_f1.Settings.names() if k in options})
        progress = options.pop("progress", None)
        return toolcall_f1.ToolCallMetric.from_settings(settings).compute(
            stored.StoredInputs(predictions), stored.StoredInputs(references),
            progress=len(predictions) >= 50_000 if progress is None else progress, **options,
        )

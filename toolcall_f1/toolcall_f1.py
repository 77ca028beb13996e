"""The evaluate.Metric adapter: _info and _compute, reshaping inputs only.

Loaded by ``evaluate.load("toolcall_f1")`` (from the folder that holds this package) or by
``toolcall_f1.load()``. evaluate's loader copies the sibling modules this file imports
directly, so every core module is imported here by name.
"""

from __future__ import annotations

import base64
import json
import marshal
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import datasets
import evaluate

from .calls import AnyOf
from .calls import ToolCallParseError
from .calls import coerce_structured
from .values import canonicalizer_name
from .schema import merge_tools
from .parsing import FORMATS
from .families import FAMILIES
from .matching import LEVELS
from .scoring import ToolCallMetric

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
        per-example tool schemas.
    level: "call" (a call is a TP only on an exact match) or "arg" (partial credit per
        argument). Defaults to the config name ("call" unless loaded as "arg").
    matching: "greedy" (default) or "optimal" (fewest FP+FN, scipy's assignment).
    canonicalizer: string comparison: "default" (casefold, fold whitespace), "bfcl", "exact"
        or a callable.
    name_canonicalizer: "exact" (default), "underscore" (``a.b`` reads as ``a_b``), callable.
    tools: tool schemas (OpenAI or BFCL form): types, required, defaults, "importance".
    weights: {tool: w} or {tool: {"weight": w, "arguments": {arg: w}}}.
    prediction_format: "auto" (default) or a format name; "bfcl" reads text as strictly as
        BFCL's prompt decoder.
    reference_format: "auto" (default) or "bfcl" for BFCL possible answers.
    on_parse_error: "count" (default: zero calls, counted) or "raise".
    per_tool: also return per-tool tp/fp/fn/precision/recall/f1.
    return_details: also return per-example counts, pairs and argument verdicts.
    progress: a progress bar on stderr (default: only for 50,000 examples or more).
Returns:
    f1, precision, recall: micro-averaged over the corpus (weighted counts summed, then divided).
    exact_match: fraction of examples whose calls all match exactly (BFCL's accuracy).
    tp, fp, fn: weighted counts. num_examples, num_parse_errors, hallucinated_tools,
    hallucinated_args: counts. signature: every setting that changes the number.
Examples:
    >>> import toolcall_f1
    >>> metric = toolcall_f1.load()
    >>> results = metric.compute(
    ...     predictions=['[search(q="cats"), delete_all()]'],
    ...     references=[[{"name": "search", "arguments": {"q": "cats"}},
    ...                  {"name": "answer", "arguments": {"a": "meow"}}]])
    >>> results["f1"], results["tp"], results["fp"], results["fn"]
    (0.5, 1.0, 1.0, 1.0)
"""

_MARK = "__toolcall_f1__"


_MAX_NESTING = 200  # deeper than the core's own limit (64), which then reports it properly


def _is_anyof(value: Any) -> bool:
    # the evaluate loader runs its own copy of the package: an AnyOf built from the installed
    # package is a different class here, so it is also recognised by its shape
    return isinstance(value, AnyOf) or (
        type(value).__name__ == "AnyOf" and hasattr(value, "values") and hasattr(value, "optional")
    )


def _json_value(value: Any, depth: int = 0) -> Any:
    """An argument value as plain JSON (tuples become lists, AnyOf is marked); anything that
    is not JSON data raises TypeError/ValueError, as the core would refuse it."""
    if depth > _MAX_NESTING:
        raise ValueError(f"nested deeper than {_MAX_NESTING} levels")
    t = type(value)
    if t is str or t is int or t is float or t is bool or value is None:
        return value
    if t is dict:  # plain JSON objects and arrays first: exactly what the general path does
        out = {}
        for k, v in value.items():
            if type(k) is not str and not isinstance(k, str):
                raise TypeError(f"object keys must be strings, got {type(k).__name__} {k!r}")
            out[k] = _json_value(v, depth + 1)
        return out
    if t is list:
        return [_json_value(v, depth + 1) for v in value]
    if isinstance(value, (bool, int, float, str)):
        return value
    if _is_anyof(value):
        return {_MARK: "anyof", "values": [_json_value(v, depth + 1) for v in value.values], "optional": value.optional}
    if isinstance(value, Mapping):
        out = {}
        for k, v in value.items():
            if not isinstance(k, str):
                raise TypeError(f"object keys must be strings, got {type(k).__name__} {k!r}")
            out[k] = _json_value(v, depth + 1)
        return out
    if isinstance(value, (list, tuple)):
        return [_json_value(v, depth + 1) for v in value]
    if hasattr(value, "tolist") and hasattr(value, "dtype"):  # numpy scalars and arrays
        return _json_value(value.tolist(), depth + 1)
    raise TypeError(f"a {type(value).__name__} is not a JSON value")


def _call_dict(name: str, args: Any, depth: int) -> dict[str, Any]:
    return {"name": name, "arguments": args if isinstance(args, str) else _json_value(args, depth + 1)}


def _storable(value: Any, depth: int = 0) -> Any:
    """A prediction or reference as plain JSON: calls, ``(name, args)`` tuples and call
    objects become ``{"name", "arguments"}`` where a call is expected; argument values are
    JSON data (a tuple there is a list, never a call)."""
    if depth > _MAX_NESTING:
        raise ValueError(f"nested deeper than {_MAX_NESTING} levels")
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, tuple) and len(value) == 2 and isinstance(value[0], str) and (
        isinstance(value[1], (Mapping, str)) or value[1] is None
    ):
        return _call_dict(value[0], value[1], depth)
    if isinstance(value, (list, tuple)):
        return [_storable(v, depth + 1) for v in value]
    if isinstance(value, Mapping):
        if "calls" in value and isinstance(value["calls"], (list, str, tuple)):
            out = {k: _json_value(v, depth + 1) for k, v in value.items() if k != "calls"}
            out["calls"] = _storable(value["calls"], depth + 1)
            return out
        return _json_value(value, depth)
    name = getattr(value, "name", None)
    if isinstance(name, str):
        for attr in ("arguments", "args", "input"):
            if hasattr(value, attr):
                return _call_dict(name, getattr(value, attr), depth)
    return _json_value(value, depth)


def _encode(value: Any) -> dict[str, str]:
    """Each input travels as one exact string inside a marked object.

    Two reasons: ``datasets.Json`` re-reads a JSON-looking top-level string as JSON (text
    would turn into structure), and its decoder (pandas' ujson) rounds floats
    (``0.6`` comes back as ``0.6000000000000001``), which would change verdicts.

    Plain Python data (str, numbers, None, and dicts, lists and tuples of them — what
    ``marshal`` writes) travels as its ``marshal`` bytes in base64: exact, and several times
    faster to write and read than JSON; the scorer then reads it as the core API would
    (a set, bytes or a dict with other keys than strings is the parse error it gives them).
    Anything else — call objects, :class:`AnyOf`, numpy values — travels as one exact JSON
    string; an input that is not JSON data either travels as its error, and is scored as the
    parse error the core API would give it. Only this module writes and reads these values,
    in evaluate's own cache for this computation.
    """
    try:
        packed = marshal.dumps(value)
    except ValueError:  # not plain data (or nested too deep for marshal): the JSON route
        pass
    else:
        return {_MARK: "marshal", "data": base64.b64encode(packed).decode("ascii")}
    try:
        return {_MARK: "json", "json": json.dumps(_storable(value), ensure_ascii=True, allow_nan=True)}
    except (TypeError, ValueError, RecursionError) as err:
        message = str(err)
        try:
            coerce_structured(value)
        except ToolCallParseError as core_err:
            message = core_err.reason
        except (TypeError, ValueError, RecursionError):
            pass
        return {_MARK: "error", "message": message}


def _decode(value: Any) -> Any:
    if isinstance(value, dict):
        mark = value.get(_MARK)
        if mark == "marshal" and isinstance(value.get("data"), str):
            try:
                return marshal.loads(base64.b64decode(value["data"], validate=True))
            except (ValueError, EOFError, TypeError) as err:  # binascii.Error is a ValueError
                raise ValueError(f"a stored toolcall_f1 input could not be read back: {err}") from None
        if mark == "json" and isinstance(value.get("json"), str):
            text = value["json"]
            data = json.loads(text)
            return _revive(data) if _MARK in text else data
        if mark == "error":
            return ToolCallParseError(str(value.get("message")), format="structured")
    return value  # written by something else: taken as it is


def _revive(value: Any, depth: int = 0) -> Any:
    if depth > 200:
        return value
    if isinstance(value, dict):
        if value.get(_MARK) == "anyof":
            return AnyOf(*[_revive(v, depth + 1) for v in value["values"]], optional=value["optional"])
        return {k: _revive(v, depth + 1) for k, v in value.items()}
    if isinstance(value, list):
        return [_revive(v, depth + 1) for v in value]
    return value


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class ToolcallF1(evaluate.Metric):
    """Cost-weighted, micro-averaged F1 over tool calls (BFCL-style AST matching)."""

    def _info(self) -> evaluate.MetricInfo:
        if self.config_name not in ("default", *LEVELS):
            raise ValueError(
                f"config_name: unknown value {self.config_name!r}; expected 'call' or 'arg'"
            )
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=datasets.Features(
                {"predictions": datasets.Json(), "references": datasets.Json()}
            ),
            homepage="https://gorilla.cs.berkeley.edu/leaderboard.html",
            codebase_urls=["https://github.com/ShishirPatil/gorilla/tree/main/berkeley-function-call-leaderboard"],
            reference_urls=["https://gorilla.cs.berkeley.edu/blogs/8_berkeley_function_calling_leaderboard.html"],
        )

    def add_batch(self, *, predictions: Any = None, references: Any = None, **kwargs: Any) -> None:
        """Add a batch; raw text, calls, messages and BFCL answers are all accepted."""
        if predictions is not None:
            predictions = [_encode(p) for p in predictions]
        if references is not None:
            references = [_encode(r) for r in references]
        super().add_batch(predictions=predictions, references=references, **kwargs)

    def add(self, *, prediction: Any = None, reference: Any = None, **kwargs: Any) -> None:
        """Add one example (a prediction and its reference)."""
        if prediction is not None:
            prediction = _encode(prediction)
        if reference is not None:
            reference = _encode(reference)
        super().add(prediction=prediction, reference=reference, **kwargs)

    def compute(self, *, predictions: Any = None, references: Any = None, **kwargs: Any) -> dict[str, Any] | None:
        """Score everything added (plus ``predictions``/``references`` if given).

        A rank that added nothing still joins a distributed run: an empty batch is written
        first, so an empty shard neither blocks rank 0 nor fails.
        """
        if predictions is None and references is None and self.writer is None:
            self.add_batch(predictions=[], references=[])
        return super().compute(predictions=predictions, references=references, **kwargs)

    def _compute(
        self,
        predictions: Sequence[Any],
        references: Sequence[Any],
        level: str | None = None,
        matching: str = "greedy",
        canonicalizer: Any = None,
        name_canonicalizer: Any = None,
        tools: Sequence[Mapping[str, Any]] | None = None,
        weights: Mapping[str, Any] | None = None,
        prediction_format: str = "auto",
        reference_format: str = "auto",
        on_parse_error: str = "count",
        per_tool: bool = False,
        return_details: bool = False,
        progress: bool | None = None,
    ) -> dict[str, Any]:
        if level is None:
            level = "call" if self.config_name == "default" else self.config_name
        scorer = ToolCallMetric(
            level,
            canonicalizer=canonicalizer,
            tools=merge_tools(tools),
            weights=weights,
            matching=matching,
            name_canonicalizer=name_canonicalizer,
            prediction_format=prediction_format,
            reference_format=reference_format,
            on_parse_error=on_parse_error,
        )
        preds = _Decoded(predictions)
        refs = _Decoded(references)
        if progress is None:
            progress = len(preds) >= 50_000
        return scorer.compute(
            preds, refs, per_tool=per_tool, return_details=return_details, progress=progress
        )


class _Decoded(Sequence[Any]):
    """The stored inputs, decoded one at a time as the scorer reaches them (never all at once)."""

    def __init__(self, stored: Sequence[Any]) -> None:
        self._stored = stored

    def __len__(self) -> int:
        return len(self._stored)

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return [_decode(v) for v in self._stored[index]]
        return _decode(self._stored[index])

    def __iter__(self) -> Iterator[Any]:
        return (_decode(v) for v in self._stored)


__all__ = ["ToolcallF1", "FORMATS", "canonicalizer_name"]

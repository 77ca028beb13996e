"""lighteval: a metric for a custom task — counts per sample, micro-averaged over the corpus.

:func:`tool_call_metric` is a ``SampleLevelMetricGrouping`` (lighteval's own class): its
sample-level computation (:class:`ToolCallCounts`) scores each sample's generation(s) with
:class:`~toolcall_f1.ToolCallMetric`'s one stream and returns, under each of the four names
(:data:`METRIC_NAMES`), the sample's counts; its corpus-level computations
(:class:`MicroAverage`) sum the counts of all samples exactly and divide once — the number
``compute()`` gives. Each corpus computation returns one float (not a dict), so lighteval
bootstraps its stderr, and each resample is re-aggregated the same way.

Put it in a custom task's ``metrics``::

    from lighteval.tasks.lighteval_task import LightevalTaskConfig
    from toolcall_f1.integrations.lighteval import tool_call_metric

    task = LightevalTaskConfig(name="tool_calls", prompt_function=prompt, hf_repo="...",
                               hf_subset="default", metrics=[tool_call_metric()], ...)

The gold calls of a ``Doc`` are ``doc.specific["reference"]`` (any reference shape) when the
prompt function sets it, else its gold choice's text (``doc.get_golds()[0]``: JSON text of the
calls); its tool schemas, ``doc.specific["tools"]`` when set.

This module imports ``lighteval``: ``pip install toolcall_f1[lighteval]``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from lighteval.metrics.metrics_corpus import CorpusLevelComputation
from lighteval.metrics.metrics_sample import SampleLevelComputation
from lighteval.metrics.utils.metric_utils import SampleLevelMetricGrouping
from lighteval.models.model_output import ModelResponse
from lighteval.tasks.requests import Doc, SamplingMethod

from .. import Counts, EmptyCorpusError, Settings, ToolCallMetric, prf

__all__ = ["METRIC_NAMES", "MicroAverage", "ToolCallCounts", "tool_call_metric"]

#: The metric names, each with what its corpus computation reports.
METRIC_NAMES = {"tool_call_f1": "f1", "tool_call_precision": "precision", "tool_call_recall": "recall",
                "tool_call_exact_match": "exact_match"}

#: One sample's item: one ``(tp, fp, fn, exact)`` per generation scored (``exact`` 1.0 or 0.0).
Item = tuple[tuple[float, float, float, float], ...]


class ToolCallCounts(SampleLevelComputation):
    """The sample-level computation: each generation of a sample scored against its gold calls.

    Parameters
    ----------
    **settings
        Any field of :class:`~toolcall_f1.Settings`; the metric is
        ``ToolCallMetric.from_settings(Settings(**settings))``.

    Raises
    ------
    TypeError, ValueError
        For a setting that is not a field, or a value it does not take.

    Examples
    --------
    >>> doc = Doc(query="Weather in Paris?", choices=['[{"name": "get_weather", "arguments": {"city": "Paris"}}]'],
    ...           gold_index=0)
    >>> ToolCallCounts().compute(doc, ModelResponse(text=["[get_weather(city='Paris')]"]))["tool_call_f1"]
    ((1.0, 0.0, 0.0, 1.0),)
    >>> ToolCallCounts(matchng="optimal")
    Traceback (most recent call last):
    ...
    TypeError: Settings.replace() got an unexpected keyword argument 'matchng'; did you mean 'matching'?
    """

    def __init__(self, **settings: Any) -> None:
        self.metric = ToolCallMetric.from_settings(Settings().replace(**settings))

    def __str__(self) -> str:
        return f"ToolCallCounts({self.metric.signature()})"

    def compute(self, doc: Doc, model_response: ModelResponse, **kwargs: Any) -> dict[str, Item]:
        """``{name: item}`` for every name of :data:`METRIC_NAMES`: the sample's counts, one
        ``(tp, fp, fn, exact)`` per generation (``model_response.final_text``), each
        generation an example as ``compute()`` counts it.

        Raises
        ------
        ValueError
            For a sample whose gold calls cannot be read, or that has no generation, naming it.
        """
        texts = list(model_response.final_text)
        name = f"doc {doc.id!r}" if doc.id else f"doc with query {doc.query[:40]!r}"
        if not texts:
            raise ValueError(f"{name}: the model response has no text")
        specific = doc.specific or {}
        reference = specific["reference"] if "reference" in specific else doc.get_golds()[0]
        # the doc's tools apply on top of the settings' (and under a reference's own), as verl's do
        tools = {} if specific.get("tools") is None else {"tools": specific["tools"]}
        try:
            scores = list(self.metric.scores(texts, [reference] * len(texts), details=False, **tools))
        except (ValueError, TypeError) as err:
            raise ValueError(f"{name}: {err}") from err
        item = tuple((s.tp, s.fp, s.fn, 1.0 if s.exact else 0.0) for s in scores)
        return dict.fromkeys(METRIC_NAMES, item)


class MicroAverage(CorpusLevelComputation):
    """A corpus-level computation: the samples' counts summed exactly, then divided once.

    Parameters
    ----------
    what
        ``"f1"``, ``"precision"``, ``"recall"`` or ``"exact_match"`` (the share of exact
        generations).

    Raises
    ------
    ValueError
        For any other ``what``.

    Examples
    --------
    >>> items = [((1.0, 0.0, 0.0, 1.0),), ((0.0, 0.0, 1.0, 0.0),)]
    >>> round(MicroAverage("f1").compute_corpus(items), 4)   # the mean of per-sample F1 would be 0.5
    0.6667
    >>> MicroAverage("exact_match").compute_corpus(items)
    0.5
    >>> MicroAverage("accuracy")
    Traceback (most recent call last):
    ...
    ValueError: what: unknown value 'accuracy'; expected one of 'f1', 'precision', 'recall', 'exact_match'
    """

    def __init__(self, what: str) -> None:
        choices = tuple(METRIC_NAMES.values())
        if what not in choices:
            raise ValueError(f"what: unknown value {what!r}; expected one of " + ", ".join(map(repr, choices)))
        self.what = what

    def compute_corpus(self, items: Iterable[Sequence[Sequence[float]]]) -> float:
        """The corpus number of ``items`` (each a sample's item from :class:`ToolCallCounts`).

        Raises
        ------
        EmptyCorpusError
            For no generations at all.
        TypeError
            For an item that is not a :class:`ToolCallCounts` item.
        """
        rows: list[Sequence[float]] = []
        for item in items:
            if not (isinstance(item, Sequence) and all(isinstance(r, Sequence) and len(r) == 4 for r in item)):
                raise TypeError(f"expected an item of (tp, fp, fn, exact) rows from ToolCallCounts, got {item!r}")
            rows.extend(item)
        if not rows:
            raise EmptyCorpusError()
        if self.what == "exact_match":
            return sum(r[3] for r in rows) / len(rows)
        counts = Counts.total(Counts(r[0], r[1], r[2]) for r in rows)
        p, r, f = prf(counts.tp, counts.fp, counts.fn)
        return {"precision": p, "recall": r, "f1": f}[self.what]


def tool_call_metric(**settings: Any) -> SampleLevelMetricGrouping:
    """The metric of a lighteval custom task: :class:`ToolCallCounts` per sample,
    :class:`MicroAverage` per name over the corpus (generative sampling).

    Parameters
    ----------
    **settings
        Any field of :class:`~toolcall_f1.Settings` (``level``, ``matching``, ``tools``...).

    Returns
    -------
    SampleLevelMetricGrouping
        Reporting :data:`METRIC_NAMES`.

    Raises
    ------
    TypeError, ValueError
        As :class:`ToolCallCounts` does.

    Examples
    --------
    >>> m = tool_call_metric(level="arg")
    >>> m.metric_name
    ['tool_call_f1', 'tool_call_precision', 'tool_call_recall', 'tool_call_exact_match']
    >>> m.category == SamplingMethod.GENERATIVE
    True
    """
    # lighteval 0.13 annotates both dicts' values as callables; it takes these (metric_utils.py)
    higher_is_better: Any = dict.fromkeys(METRIC_NAMES, True)
    corpus: Any = {name: MicroAverage(what) for name, what in METRIC_NAMES.items()}
    return SampleLevelMetricGrouping(metric_name=list(METRIC_NAMES), higher_is_better=higher_is_better,
                                     category=SamplingMethod.GENERATIVE, sample_level_fn=ToolCallCounts(**settings),
                                     corpus_level_fn=corpus)

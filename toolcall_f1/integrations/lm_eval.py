"""lm-evaluation-harness: a task's ``process_results`` and aggregations that micro-average.

lm-eval calls ``process_results(doc, results)`` once per document and hands each metric's
items, one per document, to that metric's aggregation. The obvious glue — an ``hf_evaluate``
metric per document — makes the corpus number a mean of per-document F1 (a macro mean), and
the bootstrap resamples those means. Here each document's item is its weighted counts
``(tp, fp, fn)`` (from :meth:`ToolCallMetric.scores <toolcall_f1.ToolCallMetric.scores>`), and
:func:`micro_f1`, :func:`micro_precision` and :func:`micro_recall` sum the items exactly before
dividing once: the number ``compute()`` gives, and a resample of the items (lm-eval's
``bootstrap_stderr``) is re-aggregated the same way. ``exact_match``'s item is 1.0 or 0.0,
aggregated by lm-eval's own ``mean`` (which also gives it lm-eval's closed-form stderr).

A task YAML (``examples/lm_eval/toolcall_f1.yaml``)::

    process_results: !function toolcall_f1.integrations.lm_eval.process_results
    metric_list:
      - metric: f1
        aggregation: !function toolcall_f1.integrations.lm_eval.micro_f1
        higher_is_better: true
      - metric: exact_match
        aggregation: mean
        higher_is_better: true

Each document holds its gold calls in ``doc["reference"]`` (any reference shape: JSON text of
calls, a list of calls, ``{"calls", "tools"}``) and optionally its tool schemas in
``doc["tools"]``. Other settings: a module of your own next to the YAML defines
``process_results = ToolCallResults(level="arg")``.

Nothing here imports ``lm_eval`` (lm-eval calls these functions; they need nothing of it):
``pip install toolcall_f1[lm-eval]`` installs the harness.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from .. import Counts, EmptyCorpusError, Settings, ToolCallMetric

__all__ = ["ToolCallResults", "micro_counts", "micro_f1", "micro_precision", "micro_recall", "process_results"]


class ToolCallResults:
    """A ``process_results`` for lm-eval, scoring with one :class:`~toolcall_f1.Settings`.

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
    >>> process = ToolCallResults(level="arg")
    >>> process({"reference": '[{"name": "f", "arguments": {"x": 1, "y": 2}}]'}, ["[f(x=1, y=3)]"])
    {'f1': (2.0, 1.0, 1.0), 'precision': (2.0, 1.0, 1.0), 'recall': (2.0, 1.0, 1.0), 'exact_match': 0.0}
    >>> ToolCallResults(levl="arg")
    Traceback (most recent call last):
    ...
    TypeError: Settings.replace() got an unexpected keyword argument 'levl'; did you mean 'level'?
    """

    def __init__(self, **settings: Any) -> None:
        self.metric = ToolCallMetric.from_settings(Settings().replace(**settings))

    def __repr__(self) -> str:
        return f"ToolCallResults({self.metric.signature()})"

    def __call__(self, doc: Mapping[str, Any], results: Sequence[Any]) -> dict[str, Any]:
        """One document's items: ``{"f1", "precision", "recall"}`` its weighted ``(tp, fp,
        fn)``, ``"exact_match"`` 1.0 or 0.0.

        Parameters
        ----------
        doc
            The document: its gold calls in ``"reference"``, its tools (optional) in ``"tools"``.
        results
            lm-eval's results for the document: the generation (after the task's filters)
            first; a ``generate_until`` task gives one.

        Raises
        ------
        ValueError
            For a document without ``"reference"``, no generation, or a reference that cannot
            be read (naming the document by its ``"id"`` when it has one).

        Examples
        --------
        >>> process_results({"reference": [], "id": "d7"}, [])
        Traceback (most recent call last):
        ...
        ValueError: document 'd7': lm-eval gave no generation (results is empty)
        """
        name = f"document {doc.get('id')!r}" if "id" in doc else "document"
        if "reference" not in doc:
            raise ValueError(f"{name}: no \"reference\" field (the gold calls; [] where no call is expected); "
                             f"it has {sorted(doc)}")
        if not results:
            raise ValueError(f"{name}: lm-eval gave no generation (results is empty)")
        # the document's tools apply on top of the settings' (and under a reference's own), as verl's do
        tools = {} if doc.get("tools") is None else {"tools": doc["tools"]}
        try:
            score = next(self.metric.scores([results[0]], [doc["reference"]], details=False, **tools))
        except (ValueError, TypeError) as err:
            raise ValueError(f"{name}: {err}") from err
        counts = (score.tp, score.fp, score.fn)
        return {"f1": counts, "precision": counts, "recall": counts, "exact_match": 1.0 if score.exact else 0.0}


#: The default ``process_results`` (default settings): ``!function toolcall_f1.integrations.lm_eval.process_results``.
process_results = ToolCallResults()


def micro_counts(items: Iterable[Sequence[float]]) -> Counts:
    """The exact sum of documents' ``(tp, fp, fn)`` items (as :class:`~toolcall_f1.Tally` sums).

    Raises
    ------
    EmptyCorpusError
        For no items: a corpus of zero documents has no score.
    TypeError, ValueError
        For an item that is not three counts (another metric's), naming it.

    Examples
    --------
    >>> micro_counts([(1.0, 0.0, 0.0), (0.0, 0.0, 1.0)])
    Counts(tp=1.0, fp=0.0, fn=1.0)
    >>> micro_counts([0.5])
    Traceback (most recent call last):
    ...
    TypeError: expected an item (tp, fp, fn) from toolcall_f1's process_results, got 0.5
    """
    parts = []
    for item in items:
        if not (isinstance(item, Sequence) and len(item) == 3):
            raise TypeError(f"expected an item (tp, fp, fn) from toolcall_f1's process_results, got {item!r}")
        parts.append(Counts(*item))
    if not parts:
        raise EmptyCorpusError()
    return Counts.total(parts)


def micro_f1(items: Iterable[Sequence[float]]) -> float:
    """Micro-averaged F1 of documents' ``(tp, fp, fn)`` items: summed, then divided once.

    Examples
    --------
    >>> round(micro_f1([(1.0, 0.0, 0.0), (0.0, 0.0, 1.0)]), 4)  # the mean of per-document F1 is 0.5
    0.6667
    """
    return micro_counts(items).f1


def micro_precision(items: Iterable[Sequence[float]]) -> float:
    """Micro-averaged precision of documents' ``(tp, fp, fn)`` items.

    Examples
    --------
    >>> micro_precision([(1.0, 1.0, 0.0), (1.0, 0.0, 2.0)])
    0.6666666666666666
    """
    return micro_counts(items).precision


def micro_recall(items: Iterable[Sequence[float]]) -> float:
    """Micro-averaged recall of documents' ``(tp, fp, fn)`` items.

    Examples
    --------
    >>> micro_recall([(1.0, 1.0, 0.0), (1.0, 0.0, 2.0)])
    0.5
    """
    return micro_counts(items).recall

"""``compare()``: is the difference between systems real? (SPEC §8b, "Paired comparison").

Every system is scored once, with the same settings, against the same references, through the
metric's one stream (:meth:`~toolcall_f1.ToolCallMetric.scores`); the paired test resamples the
examples' counts (:func:`~toolcall_f1.resampling.compare_units`). Nothing is scored twice.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from typing import Any

from .calls import ToolCallWarning
from .metric import ToolCallMetric, mostly_unreadable, unit_keys
from .values import plain_json
from .resampling import TESTS, Units, check_interval, compare_units, signature_parts
from .settings import Settings, keyword_error

#: Fewer resampling units than this make a paired test say little: ``compare`` warns
#: (percentile intervals are too narrow there too: README, "Is the difference real?").
FEW_UNITS = 10

__all__ = ["compare"]


def compare(
    systems: Mapping[str, Sequence[Any]],
    references: Sequence[Any],
    *,
    test: str = "bootstrap",
    n_resamples: int | None = None,
    seed: int = 12345,
    confidence_level: float = 0.95,
    groups: Sequence[Any] | None = None,
    **settings: Any,
) -> dict[str, dict[str, Any]]:
    """Compare systems on the same references with a paired test; the first is the baseline.

    Parameters
    ----------
    systems
        System name → its predictions (one per reference), in order; the first is the baseline.
    references
        The gold calls, one per example, as :meth:`ToolCallMetric.compute` takes them.
    test
        ``"bootstrap"`` (paired bootstrap, 1,000 resamples by default) or ``"randomization"``
        (approximate randomization, 10,000 trials by default).
    n_resamples, seed, confidence_level
        Resamples (or trials), the seed of ``numpy.random.default_rng`` and the level of each
        system's F1 interval.
    groups
        One string or integer per example (else the references' ``"group"`` keys): examples of
        one group are resampled together.
    **settings
        The metric's settings (``level``, ``matching``, ``tools``, ...), the same for every system.

    Returns
    -------
    dict
        System name → ``{"f1", "ci": [lo, hi], "delta", "p_value", "signature"}``: ``delta`` is
        its F1 − the baseline's, ``p_value`` two-sided (None for the baseline).

    Raises
    ------
    ValueError
        For no systems, a system whose predictions are not as many as the references (naming
        it), an unknown test, bad interval settings, or what :meth:`ToolCallMetric.compute` raises.

    Examples
    --------
    >>> refs = [[("f", {"x": i})] for i in range(40)]
    >>> base = [f"[f(x={i if i % 2 else -1})]" for i in range(40)]      # half right
    >>> new = [f"[f(x={i if i % 8 else -1})]" for i in range(40)]       # 7 in 8 right
    >>> out = compare({"base": base, "new": new}, refs, n_resamples=500)
    >>> out["base"]["delta"], out["base"]["p_value"], out["new"]["delta"], out["new"]["p_value"] < 0.05
    (0.0, None, 0.375, True)
    >>> out["new"]["signature"]
    'level:call|match:greedy|order:any|canon:default|names:exact|pred:auto|ref:auto|w:none|test:bootstrap|n:500|seed:12345|v:0.1.0'
    >>> compare({"base": base, "short": new[:3]}, refs)
    Traceback (most recent call last):
    ...
    ValueError: compare: system 'short' has 3 predictions for 40 references
    """
    if not isinstance(systems, Mapping):
        raise TypeError(f"compare: systems must map each system's name to its predictions, the baseline first "
                        f"({{'baseline': [...], 'new': [...]}}), got {type(systems).__name__}")
    if not systems:
        raise ValueError("compare: no systems given (a mapping of name -> predictions, the baseline first)")
    if test not in TESTS:
        raise ValueError(f"test: unknown value {test!r}; expected one of {', '.join(map(repr, TESTS))}")
    n = TESTS[test] if n_resamples is None else n_resamples
    check_interval(confidence_level, n, seed)
    confidence_level, n, seed = plain_json([confidence_level, n, seed])  # numpy's numbers as the plain ones
    for key in settings:
        if key not in Settings.names():
            raise keyword_error("compare()", key, (*Settings.names(), "test", "n_resamples", "seed",
                                                   "confidence_level", "groups"))
    metric = ToolCallMetric(**settings)
    references = list(references)
    keys = unit_keys(groups, references)
    units: dict[str, Units] = {}
    digests: set[str] = set()
    for name, predictions in systems.items():
        predictions = list(predictions)
        if len(predictions) != len(references):
            raise ValueError(f"compare: system {name!r} has {len(predictions)} predictions for "
                             f"{len(references)} references")
        u = units[name] = Units()
        errors = 0
        for i, score in enumerate(metric.scores(predictions, references, details=False)):
            u.add(score.tp, score.fp, score.fn, score.exact, keys[i])
            errors += score.parse_error is not None
            if score.tools_digest:
                digests.add(score.tools_digest)
        if mostly_unreadable(errors, len(predictions)):
            warnings.warn(f"compare: {errors} of {len(predictions)} predictions of system {name!r} could not be "
                          f"read (parse errors, scored as no calls): is prediction_format right?",
                          ToolCallWarning, stacklevel=2)
    if len(next(iter(units.values()))) < FEW_UNITS:
        warnings.warn(f"compare: only {len(next(iter(units.values())))} resampling units (examples or groups): "
                      "too few for a paired test to mean anything (with one unit every resample is the same, and "
                      "the bootstrap's p sits at its floor); score more examples", ToolCallWarning, stacklevel=2)
    out = compare_units(units, test=test, n_resamples=n, seed=seed, confidence_level=confidence_level)
    extra = signature_parts(f"test:{test}", n, seed, next(iter(units.values())).grouped)
    signature = metric.settings.signature(digests, extra)
    for result in out.values():
        result["signature"] = signature
    return out

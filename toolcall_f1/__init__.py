"""toolcall_f1: cost-weighted, micro-averaged F1 for LLM tool calls, BFCL-style.

Parse the tool calls a model emitted, match them to the gold calls as a multiset, judge each
pair the way BFCL's AST checker does (without executing anything), and report weighted
TP/FP/FN and micro-averaged scores.
"""

from __future__ import annotations

import os
import sys
from importlib.machinery import EXTENSION_SUFFIXES
from typing import Any

from .calls import AnyOf, Call, GoldCall, ToolCallParseError, ToolCallWarning, bfcl_gold
from .counting import Counts, EmptyCorpusError, Score, Tally, prf, summarize
from .judge import ArgVerdict, PairResult, compare_call
from .matching import match_calls
from .parsing import FORMATS, parse_calls
from .rules import ArgumentRuleError, ArgumentRuleTypeError
from .schema import type_ok
from .metric import VERSION, ToolCallMetric
from .settings import Settings
from .significance import compare
from .values import DuplicateKeyError, canon_bfcl, canon_default, canon_exact, loads_strict

__version__ = VERSION

#: True in the compiled build (a wheel whose core modules mypyc compiled, issue 25), False in
#: the pure-Python one (an editable install, ``TOOLCALL_F1_PURE=1``, no C compiler).
COMPILED: bool = (getattr(sys.modules[Counts.__module__], "__file__", None) or "").endswith(tuple(EXTENSION_SUFFIXES))

__all__ = [
    "__version__",
    "AnyOf",
    "ArgVerdict",
    "ArgumentRuleError",
    "ArgumentRuleTypeError",
    "COMPILED",
    "Call",
    "Counts",
    "DuplicateKeyError",
    "EmptyCorpusError",
    "FORMATS",
    "GoldCall",
    "PairResult",
    "Score",
    "Settings",
    "Tally",
    "ToolCallMetric",
    "ToolCallParseError",
    "ToolCallWarning",
    "bfcl_gold",
    "canon_bfcl",
    "canon_default",
    "canon_exact",
    "compare",
    "compare_call",
    "load",
    "loads_strict",
    "match_calls",
    "parse_calls",
    "prf",
    "summarize",
    "type_ok",
]

#: The folder evaluate loads the metric from (this package's own folder).
METRIC_PATH = os.path.dirname(os.path.abspath(__file__))


def load(config_name: str | None = None, **kwargs: Any) -> Any:
    """Load the metric through ``evaluate.load`` by absolute path: works from any directory
    and never touches the Hub.

    Parameters
    ----------
    config_name
        ``"call"`` (default) or ``"arg"``: the default level.
    **kwargs
        Passed to ``evaluate.load`` (``num_process``, ``process_id``, ``experiment_id``, ...).

    Returns
    -------
    evaluate.EvaluationModule

    Raises
    ------
    ValueError
        For a config name other than ``"call"`` or ``"arg"``.
    TypeError
        For a keyword neither ``evaluate.load`` nor the module takes: scoring settings
        (``level``, ``matching``, ``tools``, ...) go to ``compute()`` (evaluate would drop them
        silently).
    ImportError
        When ``evaluate`` (or ``datasets``) is not installed: ``pip install toolcall_f1[evaluate]``.

    Examples
    --------
    >>> metric = load("arg")
    >>> metric.compute(predictions=["[f(x=1)]"], references=[[("f", {"x": 1})]])["f1"]
    1.0
    >>> load(matching="optimal")
    Traceback (most recent call last):
    ...
    TypeError: load() got keyword(s) it does not take: 'matching'; scoring settings go to compute(predictions=..., references=..., matching=...) (load takes the default level as config name: load('arg'))
    """
    import inspect

    import evaluate

    taken = set(inspect.signature(evaluate.load).parameters) | set(
        inspect.signature(evaluate.EvaluationModule.__init__).parameters)
    unknown = sorted(k for k in kwargs if k not in taken or k in ("path", "self", "kwargs", "init_kwargs"))
    if unknown:
        raise TypeError(
            f"load() got keyword(s) it does not take: {', '.join(map(repr, unknown))}; scoring settings go to "
            f"compute(predictions=..., references=..., {unknown[0]}=...) (load takes the default level as "
            "config name: load('arg'))"
        )
    return evaluate.load(METRIC_PATH, config_name, **kwargs)

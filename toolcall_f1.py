"""The file ``evaluate.load("<org>/toolcall_f1")`` fetches from the Hub: the metric, re-exported.

evaluate's Hub loader downloads ``toolcall_f1.py`` from the root of the repository (the Space)
and instantiates the first ``evaluate`` module class it finds in it. The metric itself is the
adapter inside the package, ``toolcall_f1/toolcall_f1.py``; this file only re-exports its class,
so the package must be installed where the metric is loaded (``pip install`` the repository).

This file never shadows the package: in the repository root, ``import toolcall_f1`` finds the
directory ``toolcall_f1/`` first, because Python's path finder prefers a package to a module
of the same name on the same ``sys.path`` entry. Keep every import on its own line without a
trailing comment: evaluate reads them with a regular expression.
"""

import evaluate
from toolcall_f1 import toolcall_f1 as _adapter


def _metric_class() -> type:
    """The one ``evaluate`` module class defined by the package's adapter, whatever its name."""
    found = [
        obj
        for obj in vars(_adapter).values()
        if isinstance(obj, type)
        and issubclass(obj, evaluate.EvaluationModule)
        and obj.__module__ == _adapter.__name__
    ]
    if len(found) != 1:
        raise ImportError(
            f"{_adapter.__file__}: expected one evaluate metric class, found {[c.__name__ for c in found]}"
        )
    return found[0]


#: The metric class; evaluate's loader picks it (the first module class in this namespace).
ToolCallF1Metric = _metric_class()

"""The public ``Counts`` constructor takes finite numbers >= 0 only, and says which field is bad."""

from __future__ import annotations

import math
import pickle
from fractions import Fraction
from typing import Any

import pytest

from toolcall_f1 import Counts


@pytest.mark.parametrize(
    ("field", "value", "error"),
    [
        ("tp", -1, ValueError),
        ("fp", -0.5, ValueError),
        ("fn", float("nan"), ValueError),
        ("tp", float("inf"), ValueError),
        ("fp", -math.inf, ValueError),
        ("fn", 10**400, ValueError),  # no float holds it
        ("tp", "1", TypeError),
        ("fp", None, TypeError),
        ("fn", True, TypeError),  # a bool is not a count
        ("tp", [1], TypeError),
        ("fp", 1j, TypeError),
    ],
    ids=repr,
)
def test_a_bad_count_raises_naming_the_field(field: str, value: Any, error: type[Exception]) -> None:
    with pytest.raises(error) as caught:
        Counts(**{field: value})
    assert str(caught.value).startswith(f"Counts: {field}={value!r}: expected a finite number >= 0")


def test_the_issue_wording() -> None:
    with pytest.raises(ValueError, match=r"^Counts: fp=-1: expected a finite number >= 0$"):
        Counts(1, -1)
    with pytest.raises(TypeError, match=r"^Counts: tp='1': expected a finite number >= 0, got str$"):
        Counts("1")


def test_numbers_of_every_kind_are_counts() -> None:
    np = pytest.importorskip("numpy")
    assert Counts(np.float32(0.5), np.int64(2), Fraction(1, 4)) == Counts(0.5, 2.0, 0.25)
    assert Counts(0, -0.0, 0) == Counts()  # -0.0 is zero
    with pytest.raises(TypeError, match="fn=np.True_"):
        Counts(fn=np.bool_(True))
    with pytest.raises(ValueError, match="tp=np.float64"):
        Counts(np.float64("nan"))


def test_counts_pickle_and_merge_as_before() -> None:
    c = Counts(0.1, 0.2, 1 / 3)
    assert pickle.loads(pickle.dumps(c)) == c
    assert (c + c).tp == 0.2 and Counts.total([c, c, c]).fp == math.fsum([0.2] * 3)


def test_count_example_builds_each_score_field_from_its_own_value() -> None:
    # count_example passes Score's fields by position (keywords cost ~2 µs an example): every
    # field must hold the value of its name, whatever the order of Score's fields
    from toolcall_f1 import Call, GoldCall, ToolCallMetric

    metric = ToolCallMetric(tools=[{"name": "f", "parameters": {"properties": {"x": {"type": "integer"}}}}])
    score = metric("[f(x=1, y=2), g()]", {"calls": [("f", {"x": 1}), ("h", {})]})
    assert (score.tp, score.fp, score.fn, score.exact) == (0.0, 2.0, 2.0, False)
    assert score.parse_error is None and score.attempted and not score.superset_match and not score.subset_match
    assert score.preds == (Call("f", {"x": 1, "y": 2}), Call("g", {}))
    assert score.golds == (GoldCall.from_call(Call("f", {"x": 1})), GoldCall.from_call(Call("h", {})))
    assert [(i, j) for i, j, _ in score.pairs] == [(0, 0)] and score.unmatched_pred == (1,)
    assert score.unmatched_gold == (1,)
    assert (score.hallucinated_tools, score.hallucinated_args) == (1, 1)
    assert set(score.per_tool) == {"f", "g", "h"} and score.tools_digest == ""
    assert len(score.row_fields) == 3 and score.undeclared == ((False, ("y",)), (True, ()))
    exact = metric("[f(x=1)]", [("f", {"x": 1})])
    assert exact.exact and exact.superset_match and exact.subset_match and exact.attempted
    unreadable = metric("[f(", [("f", {"x": 1})])
    assert unreadable.parse_error and unreadable.attempted and not unreadable.subset_match

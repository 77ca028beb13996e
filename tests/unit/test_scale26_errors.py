"""Small errors of issue 26's last read: a constructor setting given to ``compute()`` (or to
one example's call) is named as one — ``level``, ``matching``, the canonicalizers and
``on_parse_error`` are the same for every call (settings.py's table: not ``per_call``) — and
any other unknown keyword names the nearest one the method takes."""

from __future__ import annotations

import pytest

from toolcall_f1 import Settings, ToolCallMetric

FIXED = [name for name in Settings.names() if name not in Settings.names(per_call=True)]


def test_the_fixed_settings_are_the_tables() -> None:
    assert FIXED == ["level", "matching", "canonicalizer", "name_canonicalizer", "on_parse_error"]


@pytest.mark.parametrize("name", FIXED)
def test_a_constructor_setting_given_per_call_is_named_as_one(name: str) -> None:
    metric = ToolCallMetric()
    with pytest.raises(TypeError, match=rf"^ToolCallMetric.compute\(\): '{name}' is a constructor setting, the same "
                                        rf"for every call: ToolCallMetric\({name}='x'\)$"):
        metric.compute([[]], [[]], **{name: "x"})
    with pytest.raises(TypeError, match=rf"^ToolCallMetric.__call__\(\): '{name}' is a constructor setting"):
        metric([], [], **{name: "x"})


def test_other_unknown_keywords_name_the_nearest_one() -> None:
    metric = ToolCallMetric()
    with pytest.raises(TypeError, match=r"^ToolCallMetric.compute\(\) got an unexpected keyword argument 'per_tools'; "
                                        r"did you mean 'per_tool'\?$"):
        metric.compute([[]], [[]], per_tools=True)
    with pytest.raises(TypeError, match=r"^ToolCallMetric.__call__\(\) got an unexpected keyword argument 'detials'; "
                                        r"did you mean 'details'\?$"):
        metric([], [], detials=False)
    assert metric.compute([[]], [[]], order="strict")["f1"] == 1.0  # a setting a call may change is taken

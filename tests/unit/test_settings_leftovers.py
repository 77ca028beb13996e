"""One home for the setting names and their check (the settings merge's leftovers): the
matcher reads ``LEVELS``, ``MATCHINGS`` and ``check_choice`` from :mod:`toolcall_f1.settings`,
so ``match_calls`` and ``Settings`` refuse a name with the same words."""

from __future__ import annotations

import pytest

from toolcall_f1 import Settings, matching, settings
from toolcall_f1.matching import match_calls


def test_the_matcher_uses_the_settings_names_and_check() -> None:
    assert matching.check_choice is settings.check_choice
    assert matching.LEVELS is settings.LEVELS == Settings.allowed("level")
    assert matching.MATCHINGS is settings.MATCHINGS == Settings.allowed("matching") == tuple(matching.SOLVERS)


@pytest.mark.parametrize(("field", "value"), [("matching", "best"), ("level", "token")])
def test_one_message_for_an_unknown_name(field: str, value: str) -> None:
    with pytest.raises(ValueError) as by_settings:
        Settings(**{field: value})
    with pytest.raises(ValueError) as by_matcher:
        match_calls([], [], **{field: value})
    assert str(by_settings.value) == str(by_matcher.value)

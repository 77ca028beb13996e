"""The seed design note's doctests run with toolcall_f1 as the import path."""

from __future__ import annotations

import doctest
from pathlib import Path

SEED = Path(__file__).with_name("seed_doctests.txt")


def test_seed_doctests_pass() -> None:
    result = doctest.testfile(str(SEED), module_relative=False, optionflags=doctest.ELLIPSIS)
    assert result.attempted == 9
    assert result.failed == 0

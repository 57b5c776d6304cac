"""Unit.part: a key part the suite's plan sets, as a str; a unit without it is one line, not a None
passed on."""

import pytest

from eval_harness.contract import Unit
from eval_harness.errors import InputError


def test_a_planned_part_is_its_value_and_a_missing_one_is_one_line():
    unit = Unit(model="m", suite="xweat", language="en", dataset="xweat", config="en", test="T1")
    assert unit.part("test") == "T1" and unit.part("config") == "en"
    with pytest.raises(
        InputError,
        match=r"^unit m__xweat__en__xweat__en__T1__seed0 of suite 'xweat' has no emotion$",
    ):
        unit.part("emotion")

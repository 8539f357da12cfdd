"""The bench table's numbers: a ratio that missed 1 never reads as 1."""

from __future__ import annotations

from bench.report import _fmt


def test_a_ratio_near_one_keeps_the_decimals_that_show_which_side_it_is() -> None:
    assert _fmt(0.997, "x") == "0.997"
    assert _fmt(0.9995152, "x") == "0.9995"
    assert _fmt(1.0004, "x") == "1.0004"
    assert _fmt(1.0, "x") == "1.000"
    assert _fmt(2.3671, "x") == "2.367"


def test_other_units_keep_their_rounding() -> None:
    assert _fmt(364.6, "ms") == "365"
    assert _fmt(60.34, "ms") == "60.3"
    assert _fmt(7.523, "ms") == "7.52"

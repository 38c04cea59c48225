"""Clipping text to a length: one line or as written, head only or head and tail."""

from __future__ import annotations

from core.text import clip


def test_short_text_is_returned_as_written() -> None:
    assert clip("a\n b", 10) == "a\n b"


def test_one_line_folds_white_space_before_counting() -> None:
    assert clip("a\n b\t c", 5, one_line=True) == "a b c"
    assert clip("abcdef", 4, one_line=True) == "abc…"


def test_a_cut_ends_with_an_ellipsis_within_the_limit() -> None:
    assert clip("abcdef", 4) == "abc…"


def test_keep_tail_keeps_head_and_tail_with_the_count_between() -> None:
    text = "HEAD" + "x" * 1_000 + "TAIL"
    clipped = clip(text, 120, keep_tail=True)
    assert len(clipped) <= 120
    assert clipped.startswith("HEAD") and clipped.endswith("TAIL")
    assert "characters truncated" in clipped

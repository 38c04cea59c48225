"""The text boundary: the user's text comes in repaired once, and nothing printed can drive a terminal."""

from __future__ import annotations

import argparse
import io
import json
import os
import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ui.shared.boundary import (
    TerminalStream,
    count_arg,
    for_terminal,
    is_blank,
    json_safe,
    message_arg,
    session_arg,
    user_text,
)

ANY_TEXT = st.text(st.characters(codec=None, exclude_characters=""), max_size=200)  # surrogates included


def argv(raw: bytes) -> str:
    """What Python hands main.py for an argument made of these bytes (surrogateescape, as for sys.argv)."""
    return os.fsdecode(raw)


def test_bytes_that_are_not_utf8_become_replacement_characters_and_the_rest_is_kept() -> None:
    assert user_text(argv(b"bad \xff end")) == "bad \ufffd end"
    assert user_text(argv("café ✓ ".encode() + b"\xc3")) == "café ✓ \ufffd"  # a cut-off sequence


def test_a_lone_surrogate_from_a_browser_is_replaced() -> None:
    assert user_text("a\ud800b\udfffc") == "a\ufffdb\ufffdc"


def test_text_is_put_in_nfc_and_otherwise_kept_as_said() -> None:
    assert user_text("cafe\u0301") == "café"
    kept = "x\x1b]0;t\x07 \u202eRTL\u200b\ttab\nline"
    assert user_text(kept) == kept  # control and invisible characters are stored as said


@given(ANY_TEXT)
def test_repaired_text_can_always_be_stored_and_is_stable(text: str) -> None:
    repaired = user_text(text)
    repaired.encode("utf-8")  # SQLite, tokenizers and JSON need encodable text
    assert user_text(repaired) == repaired


def test_blank_means_nothing_visible() -> None:
    assert is_blank("") and is_blank("  \n\t") and is_blank("\u200b\u200d\ufeff\u2060")
    assert not is_blank("\u200bhi") and not is_blank("\ufffd")


def test_message_and_session_arguments_refuse_blank_and_invisible_values() -> None:
    assert message_arg(argv(b"hi \xff")) == "hi \ufffd"
    with pytest.raises(argparse.ArgumentTypeError, match="empty"):
        message_arg("\u200b \u200b")
    assert session_arg("  abc  ") == "abc"
    for bad in ("   ", "\u200b", "a\x1bb", "a\u200bb"):
        with pytest.raises(argparse.ArgumentTypeError):
            session_arg(bad)


def test_count_arguments_stay_in_range() -> None:
    parse = count_arg(1, 1000)
    assert parse(" 7 ") == 7
    for bad in ("0", "-5", "1001", "100000000000000000000", "1e3", "ten"):
        with pytest.raises(argparse.ArgumentTypeError):
            parse(bad)


def test_escape_sequences_and_controls_are_removed_for_the_terminal() -> None:
    assert for_terminal("x\x1b]0;pwned\x07y\x1b[2Jz") == "xyz"
    assert for_terminal("a\x1b]8;;http://e.x\x1b\\link\x1b]8;;\x1b\\b") == "alinkb"
    assert for_terminal("a\x9b2Jb\x9d0;t\x9cc") == "abc"  # 8-bit CSI and OSC
    assert for_terminal("one\r\ntwo\rthree\x08\x00\x7f") == "one\ntwothree"
    assert for_terminal("keep\ttabs\nand lines, \u202eRTL and é") == "keep\ttabs\nand lines, \u202eRTL and é"
    assert for_terminal("cut \x1b[1") == "cut 1" and for_terminal("end \x1b") == "end "  # incomplete ones


@given(ANY_TEXT)
def test_nothing_but_newline_and_tab_survives_among_control_characters(text: str) -> None:
    shown = for_terminal(text)
    assert all(ch in "\n\t" or unicodedata.category(ch) != "Cc" for ch in shown)


@given(ANY_TEXT)
def test_json_output_escapes_del_and_c1_and_keeps_the_value(text: str) -> None:
    text = user_text(text)
    rendered = json_safe(json.dumps({"t": text}, ensure_ascii=False))
    assert for_terminal(rendered) == rendered and json.loads(rendered) == {"t": text}


def test_a_terminal_stream_filters_every_write_and_delegates_the_rest() -> None:
    inner = io.StringIO()
    stream = TerminalStream(inner)
    print("a\x1b[2Jb", file=stream)
    stream.writelines(["c\x07", "d\n"])
    stream.flush()
    assert inner.getvalue() == "ab\ncd\n" and stream.getvalue() == inner.getvalue()

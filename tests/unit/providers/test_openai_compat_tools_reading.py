"""The pieces of the tolerant tool-call reader on their own: arguments, text calls, the stream's hold-back."""

from __future__ import annotations

import pytest

from core.errors import ConfigError
from core.providers.openai_tools import INVALID_ARGUMENTS_KEY, dialect_named, parse_tool_arguments
from core.providers.text_tool_calls import CallTextHold, read_text_calls

NAMES = frozenset({"get_weather", "get_time"})


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ('{"city": "Paris"}', {"city": "Paris"}),
        ({"city": "Paris"}, {"city": "Paris"}),  # already an object (Ollama, some llama.cpp builds)
        ('"{\\"city\\": \\"Paris\\"}"', {"city": "Paris"}),  # JSON encoded twice
        ("", {}),
        ("   ", {}),
        (None, {}),
        ("null", {}),
        ("{}", {}),
    ],
)
def test_arguments_are_read_in_every_shape_servers_send(raw: object, expected: dict) -> None:
    assert parse_tool_arguments(raw) == expected


@pytest.mark.parametrize("raw", ['{"city": "Par', "[1, 2]", '"Paris"', "42", 42, '"{broken"'])
def test_arguments_that_are_no_json_object_are_marked_with_the_raw_text(raw: object) -> None:
    assert set(parse_tool_arguments(raw)) == {INVALID_ARGUMENTS_KEY}


def test_an_unknown_dialect_is_a_config_error_naming_the_known_ones() -> None:
    with pytest.raises(ConfigError, match="ollama"):
        dialect_named("koboldcpp")


def test_marker_forms_are_read_and_an_invented_result_is_dropped() -> None:
    text = (
        'Checking both.\n<tool_call name="get_weather">{"city": "Paris"}</tool_call>\n'
        '<tool_call>{"name": "get_time", "arguments": {}}</tool_call>\n'
        "<tool_result>sunny</tool_result>"
    )
    visible, calls = read_text_calls(text, NAMES)
    assert visible == "Checking both."
    assert calls == [("get_weather", {"city": "Paris"}), ("get_time", {})]


def test_a_bare_list_of_call_objects_is_several_calls() -> None:
    text = '[{"name": "get_weather", "arguments": {"city": "Oslo"}}, {"name": "get_time"}]'
    assert read_text_calls(text, NAMES) == ("", [("get_weather", {"city": "Oslo"}), ("get_time", None)])


def test_a_list_naming_one_unknown_tool_stays_text() -> None:
    text = '[{"name": "get_weather", "arguments": {}}, {"name": "rm_rf", "arguments": {}}]'
    assert read_text_calls(text, NAMES) == (text, [])


def feed_all(pieces: list[str]) -> tuple[str, str]:
    """(text shown while streaming, text held back to the end)."""
    hold = CallTextHold()
    shown = "".join(hold.feed(piece) for piece in pieces)
    return shown, hold.finish()


def test_a_marker_split_across_pieces_is_held_back_from_its_first_character() -> None:
    shown, held = feed_all(["Sure, one moment <to", "ol_ca", 'll>{"name": "get_time"}', "</tool_call>"])
    assert shown == "Sure, one moment " and held == '<tool_call>{"name": "get_time"}</tool_call>'


@pytest.mark.parametrize(
    "pieces",
    [
        ["if a <", " b then c"],  # a lone '<' is released once it cannot start a marker
        ["```py", "thon\nprint(1)\n```"],  # a code block that is not JSON streams on
        ["The answer ", "is 42."],
    ],
)
def test_ordinary_text_is_shown_while_it_streams(pieces: list[str]) -> None:
    shown, held = feed_all(pieces)
    assert shown + held == "".join(pieces) and shown.startswith(pieces[0][:3]) and len(held) < 3


@pytest.mark.parametrize(
    "pieces", [['{"na', 'me": "get_time"}'], ["``", "`json\n{", '"name": "get_time"}\n```']]
)
def test_a_reply_opening_like_a_json_call_is_held_to_the_end(pieces: list[str]) -> None:
    assert feed_all(pieces) == ("", "".join(pieces))

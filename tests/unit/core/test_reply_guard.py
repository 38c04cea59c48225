"""No reply shows the prompt's markup: copied headings and the query marker cut the reply, item markers that
name nothing are removed, real citations and the answer's own headings and code stay; streamed, the same."""

from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from core.generation.reply_guard import MarkupFilter, clean_reply

LEAK = "the tortoise is called Sir Reginald. ### trusted faces [f1] Teodora Elena"


def test_a_heading_in_the_middle_of_a_line_cuts_the_reply_there() -> None:
    cleaned = clean_reply(LEAK, markers={"M1"})
    assert cleaned.text == "the tortoise is called Sir Reginald."
    assert cleaned.cut_at == LEAK.index("###")


def test_a_heading_copied_from_the_prompt_cuts_but_the_answers_own_heading_stays() -> None:
    copied = "Here you go.\n### USER PROFILE\n- The user is a pharmacist"
    assert clean_reply(copied, markers=set()).text == "Here you go."
    own = "## Steps\n1. Preheat the oven.\n2. Bake.\n## API\nCall it."
    assert clean_reply(own, markers=set()).text == own
    styled = "Sold.\n### LAST REQUEST\nSold."  # the prompt's style: words in capitals
    assert clean_reply(styled, markers=set()).text == "Sold."
    run_together = "Max's family is 20 years old.\n\n### TIMECONTEXT Max's Family: 20 years old."
    assert clean_reply(run_together, markers=set()).text == "Max's family is 20 years old."
    answers_own = "## Documentation links\nSee the manual."
    assert clean_reply(answers_own, markers=set()).text == answers_own


def test_the_query_marker_cuts_the_reply() -> None:
    assert clean_reply("Sure. The user says: hi", markers=set()).text == "Sure."


def test_markers_that_name_no_item_go_and_real_citations_stay() -> None:
    cleaned = clean_reply("You work at Bluefin [M2]. Your sister is Jo [f1] [W9].", markers={"M2"})
    assert cleaned.text == "You work at Bluefin [M2]. Your sister is Jo."
    assert cleaned.removed_markers == ("f1", "W9")


def test_code_is_left_alone() -> None:
    text = "Use this:\n```python\nprint('### USER PROFILE [X1]')\n```\nand `a ## b` inline."
    assert clean_reply(text, markers=set()).text == text


def test_nothing_to_clean_leaves_the_reply_unchanged() -> None:
    text = "C# and F# are languages; item [3] of the list; a ## b? no: 'a ## b' is mid-line."
    plain = "C# and F# are languages; item [3] of the list."
    assert clean_reply(plain, markers=set()).text == plain
    assert not clean_reply(plain, markers=set()).changed
    assert clean_reply(text, markers=set()).cut_at is not None  # '## b' mid-line reads as a copied heading


def squeezed(text: str) -> str:
    return "".join(text.split())


def stream(text: str, sizes: list[int], markers: set[str]) -> tuple[str, list[str]]:
    guard = MarkupFilter(markers)
    shown, pieces, at = [], [], 0
    for size in sizes:
        piece = text[at : at + size]
        at += size
        shown.append(guard.feed(piece))
        pieces.append("".join(shown))
    shown.append(guard.close())
    return "".join(shown), pieces


@pytest.mark.parametrize(
    "text",
    [
        LEAK,
        "Here you go.\n### USER PROFILE\n- The user is a pharmacist",
        "You work at Bluefin [M2]. Your sister is Jo [f1].",
        "## Steps\n1. Preheat.\n2. Bake [M2].",
        "Sure. The user says: hi",
        "The user asked about the weather, and The user says nothing more.",
    ],
)
def test_streamed_in_single_characters_it_shows_the_cleaned_reply(text: str) -> None:
    shown, _ = stream(text, [1] * len(text), {"M2"})
    assert shown == clean_reply(text, {"M2"}, streamed=True).text
    assert squeezed(shown) == squeezed(clean_reply(text, {"M2"}).text)  # the final answer: tidier spaces


def test_streaming_holds_back_a_heading_until_its_line_ends() -> None:
    guard = MarkupFilter(set())
    assert guard.feed("Answer.\n## Ste") == "Answer.\n"
    assert guard.feed("ps\n1. Go") == "## Steps\n1. Go"


def test_streaming_never_holds_back_plain_words_or_spaces() -> None:
    guard = MarkupFilter(set())
    assert guard.feed("please ") == "please "
    assert guard.feed("hang ") == "hang "


@settings(max_examples=300, deadline=None)
@example(parts=["## ", "M2", "#", "M2", "word "], sizes=[1])  # "## M2#M" looked like a heading mid-line
@given(
    st.lists(
        st.sampled_from(
            ["word ", "#", "## ", "\n", "[", "M2", "]", "f1", "The user says: ", "`", "```", ". "]
        ),
        max_size=30,
    ),
    st.lists(st.integers(1, 7), min_size=1, max_size=40),
)
def test_whatever_arrives_what_was_shown_is_always_the_start_of_the_cleaned_reply(
    parts: list[str], sizes: list[int]
) -> None:
    text = "".join(parts)
    sizes = sizes * (len(text) // max(1, sum(sizes)) + 1)
    shown, pieces = stream(text, sizes, {"M2"})
    streamed = clean_reply(text, {"M2"}, streamed=True).text
    assert shown == streamed
    assert all(streamed.startswith(piece) for piece in pieces)
    assert squeezed(shown) == squeezed(clean_reply(text, {"M2"}).text)


@pytest.mark.parametrize(
    ("reply", "shown"),
    [
        (
            "2026-12-06 23:52\nThe tool-use limit for this turn was reached. Do not call any more tools.",
            "2026-12-06 23:52",
        ),
        ('{"tool": "current_time", "arguments": {"timezone": "UTC"}}', ""),
        ('Let me check. <tool_call name="calculator">{"expression": "2+2"}</tool_call>', "Let me check."),
        ('It is late. [The tool_result name="current_time" id="call_5_1" ok="true"]', "It is late."),
        ('Call it so: {"name": "search_web", "parameters": {"q": "x"}}', "Call it so:"),
    ],
)
def test_tool_call_text_never_reaches_the_user(reply: str, shown: str) -> None:
    assert clean_reply(reply, set()).text == shown


@pytest.mark.parametrize(
    "reply",
    [
        "The set {1, 2} has two items.",
        'Write it as `{"tool": "x", "arguments": {}}` in the file.',
        "Use <b> for bold.",
    ],
)
def test_braces_and_code_that_are_not_tool_calls_stay(reply: str) -> None:
    assert clean_reply(reply, set()).text == reply

"""Time, unit and arithmetic questions answered by the built-in tools themselves (the embedded model)."""

from __future__ import annotations

import asyncio
import re

import pytest

from core.events import Done, TextDelta, ToolCallEnded, ToolCallStarted
from core.generation.direct_tools import DIRECT_MODEL, DirectToolAgent, DirectTools, read_direct_call


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        ("What is 17.5% of 2480?", "17.5% of 2480 = 434"),
        ("what's 12 * 7", "12 * 7 = 84"),
        ("Calculate (3 + 4) * 2", "(3 + 4) * 2 = 14"),
        ("what is the square root of 144", "square root of 144 = 12"),
        ("What is 5 minus 3?", "5 minus 3 = 2"),
        ("what's 1,250 + 3,400?", "1,250 + 3,400 = 4650"),
        ("17 x 3", "17 x 3 = 51"),
        ("What's 2 to the power of 10", "2 to the power of 10 = 1024"),
        ("How many kilometres is 10 miles?", "10 miles = 16.093 kilometres."),
        ("convert 5 kg to pounds", "5 kilograms = 11.023 pounds."),
        ("How many cups in a litre?", "1 litre = 4.2268 US cups."),
        ("100 F in celsius?", "100 degrees Fahrenheit = 37.778 degrees Celsius."),
        ("what is 1/0", "I can't work that out: division by zero."),
    ],
)
def test_a_message_that_is_an_arithmetic_or_unit_question_is_answered_by_the_tool(
    question: str, answer: str
) -> None:
    done = DirectTools().answer(question)
    assert done is not None and done.answer == answer
    assert done.model == DIRECT_MODEL and done.tool_calls[0]["name"] in ("calculator", "convert_units")


@pytest.mark.parametrize("question", ["What time is it now?", "what time is it", "Can you tell me the time?"])
def test_the_time_is_read_from_this_computers_clock(question: str) -> None:
    done = DirectTools().answer(question)
    assert done is not None
    assert re.fullmatch(
        r"It's \d\d:\d\d on \w+day, \d{1,2} \w+ \d{4} \(.+, this computer's clock\)\.", done.answer
    )
    assert done.tool_calls[0] == {
        **done.tool_calls[0],
        "name": "current_time",
        "arguments": {"timezone": "local"},
    }


@pytest.mark.parametrize("question", ["What's the date today?", "what day is it", "What is today's date?"])
def test_a_date_question_gets_the_day(question: str) -> None:
    done = DirectTools().answer(question)
    assert done is not None and re.fullmatch(r"Today is \w+day, \d{1,2} \w+ \d{4}\.", done.answer)


@pytest.mark.parametrize(
    "message",
    [
        "I was born in 1990 and moved in 2001",
        "I have 2 cats and 3 dogs",
        "What time do I usually go to the gym?",
        "When did I move to Gothenburg?",
        "How many miles did I run?",
        "I ran 10 km today",
        "what's 10% of my salary",
        "2024-5-1",
        "hello there",
        "what is love",
        "what time is it in Tokyo?",
        "My flight is at 10:30 on the 5th",
    ],
)
def test_a_message_that_only_contains_numbers_or_time_words_is_left_to_the_model(message: str) -> None:
    assert read_direct_call(message) is None


def test_the_direct_answer_runs_as_a_tool_call_the_front_ends_show() -> None:
    done = DirectTools().answer("what is 2+2")
    assert done is not None

    async def events() -> list[object]:
        return [event async for event in DirectToolAgent(done).run([])]

    started, ended, text, final = asyncio.run(events())
    assert isinstance(started, ToolCallStarted) and started.call.name == "calculator"
    assert isinstance(ended, ToolCallEnded) and ended.ok and ended.output == "4"
    assert isinstance(text, TextDelta) and text.text == "2+2 = 4"
    assert isinstance(final, Done) and final is done

"""Time, arithmetic and unit questions answered by the built-in tools directly, without a model choosing them.

The embedded model (SmolLM2-135M) cannot use tools: offered `current_time` it called it five times and
then printed the call as its answer; asked "What is 17.5% of 2480?" it answered 42. So for it, a message
that *is* such a question is read here and answered by the tool itself. The reading is deliberately
narrow: the whole message must be the question (apart from filler such as "please" or "can you tell
me"), so a sentence that merely contains a number or a time word goes to the model as before.
"""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import datetime

from core.errors import ToolError, ToolRetry
from core.events import Done, RunEvent, TextDelta, ToolCallEnded, ToolCallStarted
from core.tools.builtin import calculator, convert_units, current_time
from core.tools.units import UNIT_PATTERN
from core.types import Message, ToolCall

DIRECT_MODEL = "daemon-tools (direct)"  # the `model` of a reply a tool gave without a model

# Words around a question that do not change what it asks.
_FILLER = (
    r"hey|hi|ok|okay|so|please|pls|daemon|quick question|can you|could you|would you|tell me|"
    r"do you know|i need to know|i want to know|work out|figure out|what(?:'s| is| are)|whats|how much is|"
    r"how much are|the|result of|answer to|calculate|compute|equals?|is"
)
_ONLY_FILLER = re.compile(rf"^(?:\W|\b(?:{_FILLER})\b)*$", re.I)

_TIME = re.compile(
    r"^\W*(?:(?:hey|hi|ok|okay|so|please|daemon)\W+)*"
    r"(?:(?:can|could) you tell me |do you know |tell me )?"
    r"(?P<what>what(?:'s|\s+is)\s+the\s+(?:current\s+)?(?:time|date)|what\s+time\s+is\s+it|"
    r"what\s+(?:day|date)\s+is\s+(?:it|today)|what(?:'s|\s+is)\s+today(?:'s\s+date)?|which\s+day\s+is\s+(?:it|today)|"
    r"what(?:'s|\s+is)\s+the\s+day(?:\s+today)?|the\s+(?:time|date))"
    r"(?:\s+(?:now|right\s+now|today|please|here))*\W*$",
    re.I,
)

_NUMBER = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+"
_UNIT_VALUE = rf"(?P<value>-?(?:{_NUMBER})|\ban?\b|\bone\b)\s*(?P<source>{UNIT_PATTERN})"
_UNIT_QUESTIONS = (
    re.compile(
        rf"\bhow\s+many\s+(?P<target>{UNIT_PATTERN})\s+(?:is|are|in|make|makes)\s+{_UNIT_VALUE}\b", re.I
    ),
    re.compile(rf"{_UNIT_VALUE}\s+(?:in|to|into|as)\s+(?P<target>{UNIT_PATTERN})\b", re.I),
    re.compile(rf"\bconvert\s+{_UNIT_VALUE}\s+(?:in|to|into)\s+(?P<target>{UNIT_PATTERN})\b", re.I),
)
_UNIT_FILLER = re.compile(rf"^(?:\W|\b(?:{_FILLER}|convert|how many|in|to|into|as|make|makes)\b)*$", re.I)

# Arithmetic written in words or symbols, one token at a time.
_MATH_TOKEN = re.compile(
    rf"(?P<num>{_NUMBER})|(?P<op>\*\*|[-+*/^×÷()])|(?P<pct>%\s*of\b|%|\bpercent\s+of\b|\bpercent\b)|"
    r"(?P<word>\bplus\b|\bminus\b|\btimes\b|\bmultiplied\s+by\b|\bdivided\s+by\b|\bover\b|\bsquared\b|"
    r"\bcubed\b|\bsquare\s+root\s+of\b|\bsqrt\b|\bto\s+the\s+power\s+of\b|\bmod(?:ulo)?\b|\bx\b)",
    re.I,
)
_DATE_LIKE = re.compile(r"\b\d{1,4}[-/.]\d{1,2}[-/.]\d{1,4}\b")  # 2024-5-1, 5/1/24: not a subtraction
_WORD_OPS = {
    "plus": "+",
    "minus": "-",
    "times": "*",
    "multiplied by": "*",
    "x": "*",
    "divided by": "/",
    "over": "/",
    "squared": "**2",
    "cubed": "**3",
    "to the power of": "**",
    "mod": "%",
    "modulo": "%",
    "^": "**",
    "×": "*",
    "÷": "/",
}


@dataclass(frozen=True)
class DirectCall:
    """A tool call read from a message, and the words of the message it answers ("17.5% of 2480")."""

    call: ToolCall
    asked: str


def read_direct_call(text: str) -> DirectCall | None:
    """The built-in tool call a message asks for, when the whole message is a time, unit or arithmetic
    question; None otherwise."""
    message = " ".join(text.split())
    if match := _TIME.match(message):
        return DirectCall(ToolCall("direct_1", current_time.name, {"timezone": "local"}), match["what"])
    for pattern in _UNIT_QUESTIONS:
        match = pattern.search(message)
        if match and _UNIT_FILLER.match(message[: match.start()] + " " + message[match.end() :]):
            number = match["value"].replace(",", "")
            value = float(number) if number[-1:].isdigit() else 1.0  # "a litre", "one mile"
            arguments = {"value": value, "from_unit": match["source"], "to_unit": match["target"]}
            return DirectCall(ToolCall("direct_1", convert_units.name, arguments), match.group(0))
    return _arithmetic(message)


def _arithmetic(message: str) -> DirectCall | None:
    """A calculator call when the message is an arithmetic question ("What is 17.5% of 2480?")."""
    tokens = list(_MATH_TOKEN.finditer(message))
    if not tokens or _DATE_LIKE.search(message):
        return None
    start, end = tokens[0].start(), tokens[-1].end()
    gaps = [message[a.end() : b.start()] for a, b in zip(tokens, tokens[1:], strict=False)]
    if any(gap.strip(" ,") for gap in gaps):
        return None  # words between the numbers: not an expression ("born in 1990, moved in 2001")
    if not _ONLY_FILLER.match(message[:start] + " " + message[end:]):
        return None
    numbers = sum(1 for t in tokens if t["num"])
    operations = sum(1 for t in tokens if t["op"] not in (None, "(", ")") or t["pct"] or t["word"])
    if numbers == 0 or operations == 0 or (numbers == 1 and not _unary(tokens)):
        return None
    expression = _expression(tokens)
    if expression is None:
        return None
    asked = message[start:end].strip()
    return DirectCall(ToolCall("direct_1", calculator.name, {"expression": expression}), asked)


def _unary(tokens: list[re.Match[str]]) -> bool:
    """Whether a one-number expression still asks for a computation (squared, a square root, a percent)."""
    return any(
        t["word"] and t["word"].lower().split()[0] in ("squared", "cubed", "square", "sqrt") for t in tokens
    )


def _expression(tokens: list[re.Match[str]]) -> str | None:
    """The calculator expression the tokens spell ("17.5 % of 2480" -> "(17.5/100)*2480")."""
    parts: list[str] = []
    roots = 0  # square roots waiting for their number
    for token in tokens:
        if token["num"]:
            number = token["num"].replace(",", "")
            parts.append(number + ")" * roots)
            roots = 0
        elif token["op"]:
            parts.append(_WORD_OPS.get(token["op"], token["op"]))
        elif token["pct"]:
            if not parts or not parts[-1][:1].isdigit():
                return None
            parts[-1] = f"({parts[-1]}/100)" + ("*" if "of" in token["pct"].lower() else "")
        else:
            word = " ".join(token["word"].lower().split())
            if word in ("square root of", "sqrt"):
                parts.append("sqrt(")
                roots += 1
            else:
                parts.append(_WORD_OPS[word])
    if roots:
        return None
    return "".join(parts)


class DirectTools:
    """Answers a message that is a time, unit or arithmetic question with the built-in tool itself."""

    def answer(self, text: str) -> Done | None:
        """The tool's answer as a finished run (its call recorded), or None when the message is not such a
        question or the tool cannot answer it (the model answers then)."""
        direct = read_direct_call(text)
        if direct is None:
            return None
        call = direct.call
        tool = {t.name: t for t in (current_time, calculator, convert_units)}[call.name]
        started = time.perf_counter()
        try:
            output, ok = str(tool(**call.arguments)), True
        except ToolError as error:  # a real answer: 1/0 has none
            output, ok = str(error), False
        except (ToolRetry, ValueError, TypeError, OverflowError):
            return None  # not read right: the model answers
        record = {"name": call.name, "arguments": dict(call.arguments), "ok": ok, "output": output}
        answer = _phrase(call.name, direct.asked, output) if ok else f"I can't work that out: {output}."
        return Done(
            answer=answer,
            model=DIRECT_MODEL,
            tool_calls=(record,),
            extra={
                "mode": "direct_tool",
                "answered_by": call.name,
                "elapsed_ms": round((time.perf_counter() - started) * 1000, 2),
            },
        )


def _phrase(tool: str, asked: str, output: str) -> str:
    """The tool's output as a sentence."""
    if tool == current_time.name:
        moment = datetime.strptime(output[:19], "%Y-%m-%d %H:%M:%S")
        zone = output[20:].split(" (")[0]
        day = f"{moment:%A}, {moment.day} {moment:%B %Y}"
        if re.search(r"\b(?:date|day)\b", asked, re.I) and not re.search(r"\btime\b", asked, re.I):
            return f"Today is {day}."
        return f"It's {moment:%H:%M} on {day} ({zone}, this computer's clock)."
    if tool == convert_units.name:
        return f"{output}."
    return f"{asked.rstrip(' =?')} = {output}"


class DirectToolAgent:
    """An agent that shows a direct tool answer as a run would: the call started and ended, then the text."""

    def __init__(self, done: Done) -> None:
        self._done = done

    async def run(
        self, messages: list[Message], *, cancel: asyncio.Event | None = None, max_tokens: int | None = None
    ) -> AsyncIterator[RunEvent]:
        """The known answer, whatever the messages (they were built for the model this replaces)."""
        for record in self._done.tool_calls:
            call = ToolCall("direct_1", record["name"], record["arguments"])
            yield ToolCallStarted(call)
            yield ToolCallEnded(call, ok=record["ok"], output=record["output"])
        yield TextDelta(self._done.answer)
        yield self._done

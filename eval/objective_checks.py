"""Objective checks of one answer, no LLM: what can be told wrong from the text and its prompt alone.

- `length`: the answer is empty, or longer than `max_words`;
- `thinking_leak`: reasoning meant to stay hidden shows (`<think>`, "Thinking:", `<reasoning>`);
- `markup_leak`: a prompt heading or the query marker shows (`reply_guard.markup_cut`);
- `citations`: a citation marker names no item the prompt gave;
- `grounding`: a name in the answer (a capitalised word inside a sentence) is nowhere in the prompt or
  the question;
- `filler`: stock filler ("As an AI language model", "I hope this helps", "Great question");
- `attribution`: a sentence hands the user a value memory holds for someone else
  (`attribution.misattributed`).

`bench answers` runs them on the embedded model's raw answers and on what the user would see (after the
reply guard), so the guard's worth is a measured count, not a claim.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass

from core.generation.attribution import misattributed
from core.generation.reply_guard import ITEM_MARKER, markup_cut
from core.ports import FactView

CHECKS = ("length", "thinking_leak", "markup_leak", "citations", "grounding", "filler", "attribution")
_THINKING = re.compile(r"</?think>|</?reasoning>|^\s*(?:thinking|reasoning|thought)\s*:", re.I | re.M)
_FILLER = re.compile(
    r"\bas an ai(?: language model)?\b|\bi hope this helps\b|\bgreat question\b|\bfeel free to ask\b|"
    r"\bi'm just an ai\b|\bhappy to help\b",
    re.I,
)
# a capitalised word that does not start a sentence (or a line, or a quotation)
_NAME = re.compile(r"(?<=[a-z,;:] )([A-Z][a-z]+(?:[ -][A-Z][a-z]+)*)")


@dataclass(frozen=True)
class CheckResult:
    """One check on one answer: whether it passed, and what failed it."""

    name: str
    passed: bool
    detail: str = ""


def check_answer(
    answer: str,
    *,
    question: str,
    prompt_text: str,
    markers: Collection[str],
    facts: Sequence[FactView] = (),
    max_words: int = 300,
) -> list[CheckResult]:
    """Every check of the module docstring, in `CHECKS` order."""
    words = len(answer.split())
    used = [match.group("name") for match in ITEM_MARKER.finditer(answer)]
    invented = sorted({m for m in used if m not in markers})
    cut = markup_cut(answer)
    seen = f"{prompt_text}\n{question}".lower()
    unknown = sorted({name for name in _NAME.findall(answer) if name.lower() not in seen})
    filler = _FILLER.search(answer)
    wrong = misattributed(answer, facts)
    return [
        CheckResult("length", 0 < words <= max_words, f"{words} words"),
        CheckResult("thinking_leak", not _THINKING.search(answer)),
        CheckResult("markup_leak", cut is None, f"from character {cut}" if cut is not None else ""),
        CheckResult("citations", not invented, ", ".join(invented)),
        CheckResult("grounding", not unknown, ", ".join(unknown)),
        CheckResult("filler", filler is None, filler.group() if filler else ""),
        CheckResult("attribution", not wrong, " | ".join(wrong)),
    ]

"""Importance of a memory at write time: a cheap, explainable score in [0, 1].

Personal disclosures, commitments, corrections and emotional content matter more later than small talk.
"""

from __future__ import annotations

import re

_PERSONAL = re.compile(r"\b(i|i'm|i've|i'd|my|mine|me|we|our)\b", re.IGNORECASE)
_SIGNALS: tuple[tuple[re.Pattern[str], float], ...] = (
    # commitments, plans and deadlines
    (
        re.compile(
            r"\b(remember|don't forget|remind me|deadline|tomorrow|next (week|month)|plan(ning)? to|"
            r"going to|promise|appointment|due)\b",
            re.IGNORECASE,
        ),
        0.15,
    ),
    # corrections of earlier facts
    (
        re.compile(
            r"\b(actually|no longer|not anymore|moved to|changed|correction|i meant)\b", re.IGNORECASE
        ),
        0.15,
    ),
    # life facts: people, work, health, home
    (
        re.compile(
            r"\b(wife|husband|partner|son|daughter|mom|mother|dad|father|sister|brother|friend|dog|cat|"
            r"job|work|boss|doctor|diagnos\w*|allerg\w*|birthday|anniversary|live[sd]?|address)\b",
            re.IGNORECASE,
        ),
        0.15,
    ),
    # strong emotion
    (
        re.compile(
            r"\b(love|hate|afraid|scared|anxious|depressed|grief|lonely|excited|proud|upset|angry)\b",
            re.IGNORECASE,
        ),
        0.1,
    ),
)
_SMALL_TALK = re.compile(
    r"^\s*(hi|hello|hey|thanks|thank you|ok|okay|cool|bye|good (morning|night))\W*$", re.IGNORECASE
)


def turn_importance(user_text: str, assistant_text: str = "") -> float:
    """Score a turn: base 0.3, up for personal content and signals, down for bare small talk."""
    if _SMALL_TALK.match(user_text):
        return 0.1
    score = 0.3
    if _PERSONAL.search(user_text):
        score += 0.15
    for pattern, weight in _SIGNALS:
        if pattern.search(user_text):
            score += weight
    words = len(user_text.split())
    score += min(words, 60) / 60 * 0.1  # substance, capped
    return round(min(score, 1.0), 3)

"""Temporal expressions: questions -> time windows, and how well a memory's timestamp fits a window.

`query_time_window("What did Nate cook on 9 November, 2022?", now)` is the 9th of November 2022;
`query_time_window("what did I read last week", now)` is the calendar week before `now`'s. An explicit date in
the text wins over relative words, and anchors them ("last week, as mentioned on 6 November 2023").

Memories are written *after* what they describe, so a memory stamped T can talk about anything up to T: a
window [start, end) matches timestamps in [start, end + lag), and the fit decays smoothly outside that range.
`asks_for_time` and `mentions_time` carry the other generic signal: a "when ..." question is answered by a
memory that mentions a time ("yesterday", "last May", "two weeks ago").
"""

from __future__ import annotations

import calendar
import math
import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, datetime, timedelta

_MONTHS = {name.lower(): i for i, name in enumerate(calendar.month_name) if name}
_MONTHS.update({name.lower(): i for i, name in enumerate(calendar.month_abbr) if name})
_MONTHS["sept"] = 9
# Whole month names; "May", "March" and abbreviations only when capitalised ("what may she do", "a novel").
_MONTH_RE = (
    r"(?:(?i:january|february|april|june|july|august|september|october|november|december)|May|March|"
    r"Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept|Sep|Oct|Nov|Dec)(?![a-z])\.?"
)
_DAY = r"(\d{1,2})(?:st|nd|rd|th)?"
_YEAR = r"((?:19|20)\d\d)"
_DAY_MONTH_YEAR = re.compile(rf"\b{_DAY}\s+(?:of\s+)?({_MONTH_RE}),?\s*{_YEAR}?\b")
_MONTH_DAY_YEAR = re.compile(rf"\b({_MONTH_RE})\s+{_DAY}\b(?:,?\s*{_YEAR}\b)?")
_MONTH_YEAR = re.compile(rf"\b({_MONTH_RE}),?\s+(?:of\s+)?{_YEAR}\b")
_IN_MONTH = re.compile(rf"\b(?:in|during|since|of|last|this|early|late|mid)\s+({_MONTH_RE})(?![\w])")
_YEAR_ONLY = re.compile(rf"\b(?:in|during|of|since|by|from)\s+{_YEAR}\b")
_NUMBER_WORDS = {
    "a": 1,
    "an": 1,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "few": 3,
    "couple": 2,
    "several": 3,
}
_AGO = re.compile(
    r"\b(\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|few|couple of|several)\s+"
    r"(day|week|month|year)s?\s+ago\b",
    re.I,
)
_RELATIVE = re.compile(r"\b(last|this|past|next)\s+(week|weekend|month|year|night)\b", re.I)
_WEEKDAY = re.compile(
    r"\b(last|this|next|on)\s+(monday|tuesday|wednesday|thursday|friday|saturday|sunday|"
    r"mon|tues?|wed|thu|thurs?|fri|sat|sun)\b",
    re.I,
)
# a weekday as people shorten it in chat ("last Tues") -> its number (Monday 0), by its first three letters
_WEEKDAY_NUMBERS = {name[:3].lower(): n for n, name in enumerate(calendar.day_name)}
_SINGLE_DAY = re.compile(r"\b(yesterday|today|tonight|tomorrow|day before yesterday)\b", re.I)
_RECENT = re.compile(r"\b(recently|lately|the other day)\b", re.I)
_ASKS_TIME = re.compile(
    r"^\s*(?:when\b|how long (?:ago|has|have|had|did|was|were)\b|what (?:year|month|date|day|time|week)\b|"
    r"which (?:year|month|date|day|week)\b|in which (?:year|month)\b|since when\b|"
    r"how many (?:days|weeks|months|years)\b)|\b(?:what date|which year|which month|what year|what month)\b",
    re.I,
)
_MENTIONS_TIME = re.compile(
    rf"\b(?:{_MONTH_RE})|\b(?:19|20)\d\d\b|\b(?i:yesterday|today|tonight|tomorrow|recently|lately|ago|"
    r"weekend|week|month|year|years|months|weeks|days|since|monday|tuesday|wednesday|thursday|friday|saturday|"
    r"sunday|morning|evening|birthday|anniversary|summer|winter|spring|autumn|fall|christmas|holiday|"
    r"holidays)\b"
)


@dataclass(frozen=True)
class TimeWindow:
    """A half-open interval [start, end) and the expression it came from."""

    start: datetime
    end: datetime
    expression: str


def _month_number(token: str) -> int:
    return _MONTHS.get(token.lower().rstrip(".")) or _MONTHS[token.lower()[:3]]


def _past_year(month: int, day: int, reference: datetime) -> int:
    """The year of a month/day given without one: the latest such date not after the reference (+1 day)."""
    year = reference.year
    return year - 1 if datetime(year, month, min(day, 28)) > reference + timedelta(days=1) else year


def _day_window(year: int, month: int, day: int, expression: str) -> TimeWindow | None:
    try:
        start = datetime(year, month, day)
    except ValueError:
        return None
    return TimeWindow(start, start + timedelta(days=1), expression)


def _month_window(year: int, month: int, expression: str) -> TimeWindow:
    end = datetime(year + (month == 12), month % 12 + 1, 1)
    return TimeWindow(datetime(year, month, 1), end, expression)


def absolute_windows(text: str, reference: datetime) -> list[TimeWindow]:
    """Explicit dates in `text`, in order: days (`9 November, 2022`, `Aug 15th`), months, years."""
    found: list[tuple[int, TimeWindow]] = []
    taken: list[range] = []

    def claim(match: re.Match[str], window: TimeWindow | None) -> None:
        span = range(match.start(), match.end())
        if window and not any(span.start < t.stop and t.start < span.stop for t in taken):
            taken.append(span)
            found.append((match.start(), window))

    for m in _DAY_MONTH_YEAR.finditer(text):
        month, day = _month_number(m.group(2)), int(m.group(1))
        year = int(m.group(3)) if m.group(3) else _past_year(month, day, reference)
        claim(m, _day_window(year, month, day, m.group(0)))
    for m in _MONTH_DAY_YEAR.finditer(text):
        month, day = _month_number(m.group(1)), int(m.group(2))
        year = int(m.group(3)) if m.group(3) else _past_year(month, day, reference)
        claim(m, _day_window(year, month, day, m.group(0)))
    for m in _MONTH_YEAR.finditer(text):
        claim(m, _month_window(int(m.group(2)), _month_number(m.group(1)), m.group(0)))
    for m in _IN_MONTH.finditer(text):
        month = _month_number(m.group(1))
        claim(m, _month_window(_past_year(month, 1, reference), month, m.group(0)))
    for m in _YEAR_ONLY.finditer(text):
        year = int(m.group(1))
        claim(m, TimeWindow(datetime(year, 1, 1), datetime(year + 1, 1, 1), m.group(0)))
    return [w for _, w in sorted(found, key=lambda item: item[0])]


def _day_start(moment: datetime) -> datetime:
    return moment.replace(hour=0, minute=0, second=0, microsecond=0)


def shift_months(moment: date, months: int) -> tuple[int, int]:
    """The (year, month) `months` after `moment`'s month (before, when negative)."""
    index = moment.year * 12 + moment.month - 1 + months
    return index // 12, index % 12 + 1


def _unit_window(unit: str, anchor: datetime, offset: int, expression: str) -> TimeWindow:
    """The calendar day/week/month/year `offset` units from the anchor's (weeks start on Monday)."""
    day = _day_start(anchor)
    if unit in ("day", "night"):
        start = day + timedelta(days=offset)
        return TimeWindow(start, start + timedelta(days=1), expression)
    if unit == "week":
        start = day - timedelta(days=day.weekday()) + timedelta(weeks=offset)
        return TimeWindow(start, start + timedelta(weeks=1), expression)
    if unit == "weekend":
        saturday = day - timedelta(days=day.weekday()) + timedelta(days=5, weeks=offset)
        return TimeWindow(saturday, saturday + timedelta(days=2), expression)
    if unit == "month":
        year, month = shift_months(anchor, offset)
        return _month_window(year, month, expression)
    return TimeWindow(
        datetime(anchor.year + offset, 1, 1), datetime(anchor.year + offset + 1, 1, 1), expression
    )


def _weekday_window(which: str, weekday: str, anchor: datetime, expression: str) -> TimeWindow:
    target = _WEEKDAY_NUMBERS[weekday[:3]]
    day = _day_start(anchor)
    delta = (day.weekday() - target) % 7
    if which == "next":
        start = day + timedelta(days=(target - day.weekday()) % 7 or 7)
    else:  # "last"/"on"/"this": the most recent one before the anchor
        start = day - timedelta(days=delta or 7)
    return TimeWindow(start, start + timedelta(days=1), expression)


def weekday_named(expression: str) -> str:
    """The weekday a relative expression names, in full ("last Tues" -> "Tuesday"); "" for none."""
    m = _WEEKDAY.search(expression)
    return calendar.day_name[_WEEKDAY_NUMBERS[m.group(2).lower()[:3]]] if m else ""


def relative_windows(text: str, anchor: datetime) -> list[TimeWindow]:
    """Relative expressions at `anchor`: `yesterday`, `last week`, `3 months ago`, `last Friday`..."""
    found: list[tuple[int, TimeWindow]] = []
    offsets = {"day before yesterday": -2, "yesterday": -1, "today": 0, "tonight": 0, "tomorrow": 1}
    for m in _SINGLE_DAY.finditer(text):
        found.append((m.start(), _unit_window("day", anchor, offsets[m.group(1).lower()], m.group(0))))
    for m in _AGO.finditer(text):
        count = m.group(1).lower()
        number = int(count) if count.isdigit() else _NUMBER_WORDS[count.split()[0]]
        found.append((m.start(), _unit_window(m.group(2).lower(), anchor, -number, m.group(0))))
    for m in _RELATIVE.finditer(text):
        which, unit = m.group(1).lower(), m.group(2).lower()
        if which == "past":  # "the past week": a rolling span ending now, not a calendar unit
            span = {"week": 7, "weekend": 3, "month": 31, "year": 366, "night": 1}[unit]
            found.append((m.start(), TimeWindow(anchor - timedelta(days=span), anchor, m.group(0))))
            continue
        offset = {"last": -1, "this": 0, "next": 1}[which]
        found.append((m.start(), _unit_window(unit, anchor, 0 if unit == "night" else offset, m.group(0))))
        if unit == "night" and which == "last":
            found[-1] = (m.start(), _unit_window("day", anchor, -1, m.group(0)))
    for m in _WEEKDAY.finditer(text):
        found.append((m.start(), _weekday_window(m.group(1).lower(), m.group(2).lower(), anchor, m.group(0))))
    for m in _RECENT.finditer(text):
        found.append(
            (m.start(), TimeWindow(anchor - timedelta(days=30), anchor + timedelta(days=1), m.group(0)))
        )
    return [w for _, w in sorted(found, key=lambda item: item[0])]


def hull(windows: Iterable[TimeWindow]) -> TimeWindow | None:
    """The smallest window covering all the given ones (None for none)."""
    items = list(windows)
    if not items:
        return None
    return TimeWindow(
        min(w.start for w in items), max(w.end for w in items), "; ".join(w.expression for w in items)
    )


def query_time_window(text: str, reference: datetime) -> TimeWindow | None:
    """The time a question is about, or None. Explicit dates win and anchor the relative words beside them."""
    explicit = absolute_windows(text, reference)
    if explicit:
        anchor = min(w.end for w in explicit) - timedelta(microseconds=1)
        return hull([*explicit, *relative_windows(text, anchor)])
    return hull(relative_windows(text, reference))


def asks_for_time(question: str) -> bool:
    """True for questions whose answer is a time: `When did ...`, `How long ago ...`, `Which year ...`."""
    return bool(_ASKS_TIME.search(question))


def mentions_time(text: str) -> bool:
    """True when a text mentions a time: a date, a month, a weekday or words like yesterday/ago/weekend."""
    return bool(_MENTIONS_TIME.search(text))


def window_affinity(
    timestamp: datetime,
    window: TimeWindow,
    *,
    lag: timedelta = timedelta(days=7),
    scale: timedelta | None = None,
) -> float:
    """How well a memory stamped `timestamp` fits `window`: 1 inside [start, end + lag), decaying outside.

    The decay scale defaults to the window's width, at least a week: a memory a month off fits "in 2023" well
    but "on 9 May" poorly.
    """
    if window.start <= timestamp < window.end + lag:
        return 1.0
    width = scale or max(window.end - window.start, timedelta(days=7))
    distance = window.start - timestamp if timestamp < window.start else timestamp - (window.end + lag)
    return math.exp(-distance / width)


def time_affinities(
    timestamps: Iterable[datetime], window: TimeWindow | None, **kwargs: timedelta
) -> list[float]:
    """`window_affinity` for many timestamps; all zeros when there is no window."""
    if window is None:
        return [0.0 for _ in timestamps]
    return [window_affinity(ts, window, **kwargs) for ts in timestamps]

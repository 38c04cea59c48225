"""Reading when a task is due: "Thursday at 9", "in 20 minutes", "every Monday at 8", "the 1st of each month".

One small grammar reads the words both ways: `parse_when` reads a whole phrase (a tool argument, `task add
--when`) and refuses any word it cannot place, and `find_when` finds the phrase inside a sentence ("Remind me
on Thursday at 9 to call the dentist"), so the rest is what to be reminded of. Nothing is guessed silently:
a word that is not a time ("next blursday"), a moment already past or a rule that never happens ("every 30
February") is a `TimeNotUnderstood` whose message asks the user; defaults that fill a gap (09:00 for a day
without a time, the afternoon for "at 3") are visible in the description the user approves.

Times are read in the user's time zone (`now` carries it) and kept as aware datetimes.
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import UTC, date, datetime, time, timedelta

from core.errors import UserInputError
from core.schedule.recurrence import WEEKDAY_NAMES, Frequency, Recurrence, wall_time
from core.temporal import shift_months

DEFAULT_TIME = time(9, 0)  # a day named without a time
_DAYPART_TIMES = {
    "morning": time(9, 0),
    "afternoon": time(15, 0),
    "evening": time(18, 0),
    "night": time(21, 0),
}
_TONIGHT = time(20, 0)
_WEEKDAYS = {name.lower(): i for i, name in enumerate(WEEKDAY_NAMES)}
_WEEKDAYS.update({"mon": 0, "tue": 1, "tues": 1, "wed": 2, "weds": 2, "thu": 3, "thur": 3, "thurs": 3})
_WEEKDAYS.update({"fri": 4, "sat": 5, "sun": 6})
_MONTHS = {name.lower(): i for i, name in enumerate(calendar.month_name) if name}
_MONTHS.update({name.lower(): i for i, name in enumerate(calendar.month_abbr) if name})
_MONTHS["sept"] = 9
_NUMBERS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7}
_NUMBERS.update({"eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "fifteen": 15, "twenty": 20})
_NUMBERS.update({"thirty": 30, "forty-five": 45, "other": 2, "second": 2, "third": 3})
_UNITS = {"second": "seconds", "sec": "seconds", "minute": "minutes", "min": "minutes", "hour": "hours"}
_UNITS.update({"hr": "hours", "day": "days", "week": "weeks", "month": "months", "year": "years"})
_FREQUENCIES: dict[str, Frequency] = {
    "minute": "minutely",
    "min": "minutely",
    "hour": "hourly",
    "day": "daily",
    "week": "weekly",
    "month": "monthly",
    "year": "yearly",
}

_DAY_NAME = (
    r"(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|mon|tues?|weds?|thu(?:rs?)?|fri|sat|sun)"
)
_MONTH_NAME = (
    r"(?:january|february|march|april|may|june|july|august|september|october|november|december|"
    r"jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec)"
)
_COUNT = r"(?:\d+|an?|" + "|".join(w for w in _NUMBERS if w not in ("a", "an")) + ")"
_ORDINAL_DAY = r"(?P<mday>\d{1,2})(?:st|nd|rd|th)?"


@dataclass(frozen=True)
class When:
    """A moment or a rule read from words: `first` is the first slot (aware, in the user's zone)."""

    first: datetime
    recurrence: Recurrence | None = None
    words: str = ""

    def describe(self) -> str:
        """ "Thu 10 Dec 2026 at 09:00" or "every Monday at 08:00 (next: Mon 14 Dec 2026 at 08:00)"."""
        moment = describe_moment(self.first)
        if self.recurrence is None:
            # "in 20 minutes" is read again when the user approves: say it as said, with the moment now.
            relative = re.match(r"in\s", self.words, re.I) is not None
            return f"{self.words} (about {moment})" if relative else moment
        return f"{self.recurrence.describe()} (next: {moment})"


def describe_moment(moment: datetime) -> str:
    """A slot as people read it: "Thu 10 Dec 2026 at 09:00"."""
    return f"{moment:%a} {moment.day} {moment:%b %Y} at {moment:%H:%M}"


class TimeNotUnderstood(UserInputError):
    """Words that do not give a usable time; the message asks the user for one."""


@dataclass
class _Reading:
    """What the words said so far; `build` turns it into a `When`."""

    day: date | None = None
    day_rule: Callable[[datetime], date] | None = None  # a weekday: resolved once the time is known
    at: time | None = None
    ampm_known: bool = False
    evening: bool = False  # "tonight", "in the evening": an hour without am/pm is in the afternoon
    delta: timedelta | None = None
    frequency: Frequency | None = None
    interval: int = 1
    weekdays: tuple[int, ...] = ()
    month_day: int | None = None
    month: int | None = None
    parts: int = 0  # how many time words were read (connectors alone are not a time)
    problems: list[str] = field(default_factory=list)


# Each piece of the grammar: a pattern matched at the current position, and what it adds to the reading.
_Piece = tuple[re.Pattern[str], Callable[[re.Match[str], _Reading, datetime], None]]


def _count(word: str) -> int:
    word = word.lower()
    return int(word) if word.isdigit() else _NUMBERS[word]


def _relative(match: re.Match[str], reading: _Reading, now: datetime) -> None:
    amount = 0.5 if match["half"] else _count(match["n"])
    unit = _UNITS[match["unit"].lower()]
    if unit in ("months", "years"):  # a calendar step: the same day (or the month's last) at this time
        reading.day = _add_months(now.date(), int(amount) * (12 if unit == "years" else 1))
        reading.at = reading.at or now.time().replace(second=0, microsecond=0)
        return
    reading.delta = timedelta(**{unit: amount})


def _every(match: re.Match[str], reading: _Reading, now: datetime) -> None:
    if match["wd"]:
        reading.frequency, reading.weekdays = "weekly", (0, 1, 2, 3, 4)
    elif match["we"]:
        reading.frequency, reading.weekdays = "weekly", (5, 6)
    elif match["part"]:
        reading.frequency = "daily"
        reading.at = reading.at or _DAYPART_TIMES[match["part"].lower()]
        reading.evening = match["part"].lower() != "morning"
    else:
        reading.frequency = _FREQUENCIES[match["unit"].lower()]
        reading.interval = _count(match["n"]) if match["n"] else 1


def _adverb(match: re.Match[str], reading: _Reading, now: datetime) -> None:
    word = match[0].lower()
    reading.frequency = {"daily": "daily", "weekly": "weekly", "monthly": "monthly", "yearly": "yearly"}.get(
        word, "yearly" if word == "annually" else "hourly"
    )  # type: ignore[assignment]


def _weekday_list(match: re.Match[str], reading: _Reading, now: datetime) -> None:
    names = re.findall(_DAY_NAME, match[0].lower())
    days = tuple(sorted({_WEEKDAYS[name] for name in names}))  # every spelling _DAY_NAME matches is a key
    every = bool(match["every"]) or _plural(match[0]) or len(days) > 1
    if every or reading.frequency == "weekly":
        reading.frequency, reading.weekdays = "weekly", days
        if match["n"]:
            reading.interval = _count(match["n"])
        return
    which = (match["which"] or "").lower()
    reading.day_rule = _weekday_rule(days[0], which)


def _plural(words: str) -> bool:
    """Whether a day is named in the plural ("Mondays"), not a day whose own name ends in s ("weds")."""
    tokens = re.findall(r"[a-z]+", words.lower())
    return any(
        t.endswith("s") and not re.fullmatch(_DAY_NAME, t) and re.fullmatch(_DAY_NAME, t[:-1]) for t in tokens
    )


def _weekday_rule(weekday: int, which: str) -> Callable[[datetime], date]:
    """The date a weekday names, once the time is known: "Thursday" is today if today is Thursday and the
    time is still ahead, else the next one; "next Thursday" is never today."""

    def rule(now: datetime) -> date:
        ahead = (weekday - now.weekday()) % 7
        if which == "next" and ahead == 0:
            ahead = 7
        return now.date() + timedelta(days=ahead)

    return rule


def _named_day(match: re.Match[str], reading: _Reading, now: datetime) -> None:
    word = " ".join(match[0].lower().split())
    if word == "tonight":
        reading.day, reading.evening = now.date(), True
        reading.at = reading.at or _TONIGHT
    elif word == "today":
        reading.day = now.date()
    elif word.endswith("after tomorrow"):
        reading.day = now.date() + timedelta(days=2)
    else:
        reading.day = now.date() + timedelta(days=1)


def _date(match: re.Match[str], reading: _Reading, now: datetime) -> None:
    month = _MONTHS[match["month"].lower().rstrip(".")]
    day = int(match["mday"])
    year = int(match["year"]) if match["year"] else None
    _set_date(reading, now, day, month, year)


def _iso_date(match: re.Match[str], reading: _Reading, now: datetime) -> None:
    _set_date(reading, now, int(match["d"]), int(match["m"]), int(match["y"]))


def _set_date(reading: _Reading, now: datetime, day: int, month: int, year: int | None) -> None:
    if reading.frequency == "yearly":
        reading.month, reading.month_day = month, day
        _check_day_exists(reading, day, month, 2000)  # a leap year: 29 February is a yearly date
        return
    if year is None:
        year = now.year if (month, day) >= (now.month, now.day) else now.year + 1
        if month == 2 and day == 29 and not calendar.isleap(year):
            year = next(y for y in range(year, year + 8) if calendar.isleap(y))
    if _check_day_exists(reading, day, month, year):
        reading.day = date(year, month, day)


def _check_day_exists(reading: _Reading, day: int, month: int, year: int) -> bool:
    if 1 <= month <= 12 and 1 <= day <= calendar.monthrange(year, month)[1]:
        return True
    reading.problems.append(
        f"{calendar.month_name[month] if 1 <= month <= 12 else 'that month'} has no day {day}"
    )
    return False


def _month_day(match: re.Match[str], reading: _Reading, now: datetime) -> None:
    """ "on the 1st" / "the 15th of every month": a monthly rule's day, or the next such date."""
    day = int(match["mday"])
    if day < 1 or day > 31:
        reading.problems.append(f"no month has a day {day}")
        return
    if match["monthly"] or reading.frequency is not None:
        reading.frequency = reading.frequency or "monthly"
        reading.month_day = day
        return
    for months in range(0, 3):
        candidate_month = _add_months(now.date().replace(day=1), months)
        if day <= calendar.monthrange(candidate_month.year, candidate_month.month)[1]:
            candidate = candidate_month.replace(day=day)
            if candidate >= now.date():
                reading.day = candidate
                return


def _clock(match: re.Match[str], reading: _Reading, now: datetime) -> None:
    word = match[0].lower()
    if "noon" in word or "midday" in word:
        reading.at, reading.ampm_known = time(12, 0), True
        return
    if "midnight" in word:
        reading.at, reading.ampm_known = time(0, 0), True
        return
    hour, minute = int(match["h"]), int(match["m"] or 0)
    groups = match.groupdict()
    suffix = (groups.get("ampm") or "").replace(".", "").lower()
    if suffix:
        if not 1 <= hour <= 12:
            reading.problems.append(f"{match[0].strip()} is not a time of day")
            return
        hour = hour % 12 + (12 if suffix == "pm" else 0)
        reading.ampm_known = True
    elif hour > 23 or minute > 59:
        reading.problems.append(f"{match[0].strip()} is not a time of day")
        return
    else:
        reading.ampm_known = hour == 0 or hour > 12 or bool(match["m"] and hour >= 10) or hour == 12
    if minute > 59:
        reading.problems.append(f"{match[0].strip()} is not a time of day")
        return
    reading.at = time(hour, minute)


def _daypart(match: re.Match[str], reading: _Reading, now: datetime) -> None:
    part = match["part"].lower()
    reading.evening = part != "morning"
    if part == "morning":
        reading.ampm_known = True
    if reading.at is None:
        reading.at = _DAYPART_TIMES[part]
        reading.ampm_known = True


def _nothing(match: re.Match[str], reading: _Reading, now: datetime) -> None:
    reading.parts -= 1  # a connector is not a time by itself


_PIECES: tuple[_Piece, ...] = tuple(
    (re.compile(pattern, re.I), handler)
    for pattern, handler in (
        (
            rf"in\s+(?:(?P<half>half\s+an?)|(?P<n>{_COUNT}))\s+(?P<unit>second|sec|minute|min|hour|hr|day|week|month|year)s?\b(?:\s+from\s+now)?",
            _relative,
        ),
        (
            rf"(?:every|each)\s+(?:(?P<wd>weekday)s?|(?P<we>weekend)s?|(?P<part>morning|afternoon|evening|night)|(?:(?P<n>{_COUNT})\s+)?(?P<unit>minute|min|hour|day|week|month|year)s?)\b",
            _every,
        ),
        (r"(?:daily|weekly|monthly|yearly|annually|hourly)\b", _adverb),
        (
            rf"(?:(?P<every>every|each)\s+(?:(?P<n>other|\d+)\s+)?|(?P<which>next|this|on|coming)\s+)?{_DAY_NAME}s?\b(?:\s*(?:,|and|&)\s*{_DAY_NAME}s?\b)*",
            _weekday_list,
        ),
        (r"(?:the\s+)?day\s+after\s+tomorrow\b|today\b|tonight\b|tomorrow\b|tmrw\b", _named_day),
        (
            rf"(?:on\s+)?(?:the\s+)?{_ORDINAL_DAY}\s+(?:of\s+)?(?P<month>{_MONTH_NAME})\.?\b(?:,?\s+(?P<year>\d{{4}})\b)?",
            _date,
        ),
        (rf"(?:on\s+)?(?P<month>{_MONTH_NAME})\.?\s+{_ORDINAL_DAY}\b(?:,?\s+(?P<year>\d{{4}})\b)?", _date),
        (r"(?:on\s+)?(?P<y>\d{4})-(?P<m>\d{1,2})-(?P<d>\d{1,2})\b", _iso_date),
        (
            rf"(?:on\s+)?the\s+{_ORDINAL_DAY}(?:\s+of\s+(?P<monthly>every|each)\s+month|\s+of\s+the\s+month)?\b",
            _month_day,
        ),
        (r"(?:at\s+)?(?:noon|midday|midnight)\b", _clock),
        (r"(?:at\s+)?(?P<h>\d{1,2})(?:[:.](?P<m>\d{2}))?\s*(?P<ampm>a\.?m\.?|p\.?m\.?)(?!\w)", _clock),
        (r"at\s+(?P<h>\d{1,2})(?:[:.](?P<m>\d{2}))?(?:\s*o'?clock)?\b", _clock),
        (r"(?P<h>\d{1,2}):(?P<m>\d{2})\b", _clock),
        (r"(?:in\s+the\s+|this\s+)(?P<part>morning|afternoon|evening)\b", _daypart),
        (r"(?:at\s+)?(?P<part>night)\b", _daypart),
        (r"(?:,|and|at|on|from|starting|the)(?=\W|$)", _nothing),
    )
)
_SPACE = re.compile(r"[\s,;]*")


def _read_run(text: str, start: int, reading: _Reading, now: datetime) -> int:
    """Read pieces from `start` for as long as they follow one another; where the run ends."""
    pos = end = start
    while pos < len(text):
        for pattern, handler in _PIECES:
            match = pattern.match(text, pos)
            if match and match.end() > pos:
                handler(match, reading, now)
                reading.parts += 1
                pos = match.end()
                if handler is not _nothing:
                    end = pos
                pos = _SPACE.match(text, pos).end()  # type: ignore[union-attr]
                break
        else:
            break
    return end


def parse_when(words: str, now: datetime) -> When:
    """The moment or rule `words` say, relative to `now` (aware, in the user's zone).

    Raises `TimeNotUnderstood` when a word cannot be placed, the moment has passed or the rule never happens.
    """
    text = " ".join(words.split()).strip(" .!?")
    if not text:
        raise TimeNotUnderstood(
            "When should it be? For example 'Thursday at 9', 'in 20 minutes' or 'every Monday at 8'."
        )
    reading = _Reading()
    end = _read_run(text, 0, reading, now)
    rest = text[end:].strip(" ,;")
    if rest or reading.parts <= 0:
        unread = rest or text
        raise TimeNotUnderstood(
            f"I could not read {unread!r} as a time. When should it be? For example 'Thursday at 9', "
            "'tomorrow at 18:00', 'in 20 minutes' or 'every Monday at 8'."
        )
    return _build(reading, text, now)


@dataclass(frozen=True)
class FoundTime:
    """A time phrase found in a sentence: its words, and the sentence without them."""

    phrase: str
    rest: str


def find_when(sentence: str, now: datetime) -> FoundTime | None:
    """The first time phrase inside `sentence` ("on Thursday at 9") and the sentence without it ("Remind
    me to call the dentist"); None when it holds no time words."""
    for match in re.finditer(r"\b\w", sentence):
        reading = _Reading()
        start = match.start()
        end = _read_run(sentence, start, reading, now)
        if reading.parts > 0 and end > start:
            rest = " ".join((sentence[:start] + " " + sentence[end:]).split()).strip(" ,;")
            return FoundTime(sentence[start:end], rest)
    return None


def _build(reading: _Reading, words: str, now: datetime) -> When:
    if reading.problems:
        raise TimeNotUnderstood(f"{reading.problems[0]}; when should it be?")
    at = _afternoon(reading)
    if reading.frequency is not None:
        return _repeating(reading, at, words, now)
    zone = now.tzinfo
    assert zone is not None, "now must carry the user's time zone"
    if reading.delta is not None:
        moment = later(now, reading.delta)
        if reading.at is not None and reading.delta >= timedelta(days=1):
            moment = wall_time(moment.date(), at, zone)
        return _future(When(moment.replace(microsecond=0), None, words), now)
    if reading.day_rule is not None:
        reading.day = reading.day_rule(now)
        slot = wall_time(reading.day, at, zone)
        if slot <= now:  # "Thursday at 9" said on Thursday at 10: next week's
            slot = wall_time(reading.day + timedelta(days=7), at, zone)
        return When(slot, None, words)
    if reading.day is not None:
        slot = wall_time(reading.day, at, zone)
        if slot <= now and reading.at is None and reading.day == now.date():
            raise TimeNotUnderstood(f"At what time on {slot:%a} {slot.day} {slot:%b}?")
        return _future(When(slot, None, words), now)
    if reading.at is not None:  # a time alone: today's if still ahead, else tomorrow's
        slot = wall_time(now.date(), at, zone)
        if slot <= now:
            slot = wall_time(now.date() + timedelta(days=1), at, zone)
        return When(slot, None, words)
    raise TimeNotUnderstood(f"{words!r} does not say when; when should it be?")


def _afternoon(reading: _Reading) -> time:
    """The time of day, with "at 3" read as 15:00 (people rarely mean 3 in the night) and "tonight at 10"
    as 22:00; the description the user approves shows the hour chosen."""
    at = reading.at or DEFAULT_TIME
    if (
        reading.at is not None
        and not reading.ampm_known
        and (reading.evening or 1 <= at.hour <= 6)
        and at.hour < 12
    ):
        return at.replace(hour=at.hour + 12)
    return at


def _repeating(reading: _Reading, at: time, words: str, now: datetime) -> When:
    zone = now.tzinfo
    assert zone is not None
    if reading.interval < 1:
        raise TimeNotUnderstood(f"{words!r} never repeats; how often should it be?")
    frequency = reading.frequency
    assert frequency is not None
    weekdays = reading.weekdays or ((now.weekday(),) if frequency == "weekly" else ())
    month_day, month = reading.month_day, reading.month
    if frequency == "monthly" and month_day is None:
        month_day = (reading.day or now.date()).day
    if frequency == "yearly" and month is None:
        source = reading.day or now.date()
        month, month_day = source.month, source.day
    rule = Recurrence(frequency, reading.interval, at, weekdays, month_day, month, anchor=now.date())
    if rule.step is not None:  # every N minutes or hours: counted from the first whole minute after one step
        rule = replace(rule, start=later(now, rule.step).replace(second=0, microsecond=0))
    try:
        first = rule.next_after(now, zone)
    except ValueError:
        raise TimeNotUnderstood(f"{rule.describe()} would never happen; when should it be?") from None
    return When(first, rule, words)


def _future(when: When, now: datetime) -> When:
    if when.first <= now:
        raise TimeNotUnderstood(f"{describe_moment(when.first)} has already passed; when should it be?")
    return when


def later(moment: datetime, delta: timedelta) -> datetime:
    """`delta` of real time after `moment`, in its zone ("in 2 hours" is two hours even the night the
    clocks change; Python's own + on an aware datetime adds wall-clock time)."""
    zone = moment.tzinfo
    return (moment.astimezone(UTC) + delta).astimezone(zone)


def _add_months(day: date, months: int) -> date:
    """The same day `months` later, or that month's last day when it is shorter."""
    year, month = shift_months(day, months)
    return day.replace(year=year, month=month, day=min(day.day, calendar.monthrange(year, month)[1]))

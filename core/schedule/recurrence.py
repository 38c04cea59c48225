"""When a repeating task is due next, in the user's wall-clock time, daylight-saving changes included.

A recurrence keeps its wall-clock time: "every Monday at 08:00" is at 08:00 local before and after the
clocks change, so the gap between two slots is 167 or 169 hours that week. A slot that falls in the hour the
clocks skip (02:30 on the spring-forward night) is moved forward by the gap; one in the hour that happens
twice is the first of the two. "every N minutes/hours" is absolute time instead: every N hours means N
hours, whatever the clocks say.

Dates are walked one day at a time, which keeps the rules readable (a monthly slot on the 31st is the
month's last day in a shorter month) and is cheap: the longest walk, a yearly 29 February, is eight years.
"""

from __future__ import annotations

import calendar
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta, tzinfo
from typing import Literal

Frequency = Literal["minutely", "hourly", "daily", "weekly", "monthly", "yearly"]
WEEKDAY_NAMES = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
_MAX_DAYS = 366 * 8 + 2  # the walk's bound: a 29 February comes at least once in eight years


@dataclass(frozen=True)
class Recurrence:
    """A rule such as "every Monday and Thursday at 08:00" or "every 2 hours".

    `anchor` is the local date the rule counts its intervals from (every other week is even weeks after
    it); `weekdays` (0 = Monday) only for weekly rules; `month_day` for monthly and yearly rules, `month`
    for yearly ones; `at` is the wall-clock time (minutely and hourly rules count from `start` instead).
    """

    frequency: Frequency
    interval: int = 1
    at: time = time(9, 0)
    weekdays: tuple[int, ...] = ()
    month_day: int | None = None
    month: int | None = None
    anchor: date | None = None
    start: datetime | None = None  # minutely/hourly: the first slot, an aware instant

    def next_after(self, moment: datetime, zone: tzinfo) -> datetime:
        """The first slot strictly after `moment` (aware), as an aware local datetime in `zone`."""
        if self.frequency in ("minutely", "hourly"):
            return self._next_interval(moment).astimezone(zone)
        local = moment.astimezone(zone)
        day = local.date()
        for _ in range(_MAX_DAYS):
            if self._matches(day):
                slot = wall_time(day, self.at, zone)
                if slot > moment:
                    return slot
            day += timedelta(days=1)
        raise ValueError(f"{self.describe()} never happens")  # the parser refuses such rules first

    @property
    def step(self) -> timedelta | None:
        """The fixed gap of an every-N-minutes or every-N-hours rule (None for calendar rules)."""
        if self.frequency == "minutely":
            return timedelta(minutes=self.interval)
        if self.frequency == "hourly":
            return timedelta(hours=self.interval)
        return None

    def _next_interval(self, moment: datetime) -> datetime:
        step = self.step
        assert step is not None  # next_after sends only minutely and hourly rules here
        # In UTC: arithmetic on two datetimes of one zone is wall-clock arithmetic in Python.
        start, now = (self.start or moment).astimezone(UTC), moment.astimezone(UTC)
        if start > now:
            return start
        passed = (now - start) // step
        return start + (passed + 1) * step

    def _matches(self, day: date) -> bool:
        anchor = self.anchor or day
        if self.frequency == "daily":
            return (day - anchor).days % self.interval == 0
        if self.frequency == "weekly":
            weeks = ((day - timedelta(days=day.weekday())) - (anchor - timedelta(days=anchor.weekday()))).days
            return day.weekday() in self.weekdays and (weeks // 7) % self.interval == 0
        if self.frequency == "monthly":
            months = (day.year - anchor.year) * 12 + day.month - anchor.month
            return day.day == _clamped_day(day, self.month_day or 1) and months % self.interval == 0
        # yearly
        years = day.year - anchor.year
        return (
            day.month == self.month
            and day.day == _clamped_day(day, self.month_day or 1)
            and years % self.interval == 0
        )

    def describe(self) -> str:
        """The rule in words: "every Monday and Thursday at 08:00", "every 2 hours"."""
        every = "every" if self.interval == 1 else f"every {self.interval}"
        if self.frequency in ("minutely", "hourly"):
            unit = "minute" if self.frequency == "minutely" else "hour"
            return f"every {unit}" if self.interval == 1 else f"{every} {unit}s"
        at = f"at {self.at:%H:%M}"
        if self.frequency == "daily":
            return f"every day {at}" if self.interval == 1 else f"{every} days {at}"
        if self.frequency == "weekly":
            days = _joined([WEEKDAY_NAMES[d] for d in self.weekdays])
            if self.weekdays == (0, 1, 2, 3, 4):
                days = "weekday"
            return f"every {days} {at}" if self.interval == 1 else f"{every} weeks on {days} {at}"
        day = _ordinal(self.month_day or 1)
        if self.frequency == "monthly":
            unit = "month" if self.interval == 1 else f"{self.interval} months"
            return f"every {unit} on the {day} {at}"
        unit = "year" if self.interval == 1 else f"{self.interval} years"
        return f"every {unit} on {self.month_day} {calendar.month_name[self.month or 1]} {at}"

    def to_json(self) -> dict[str, object]:
        """A plain dict for the task store (`from_json` reads it back)."""
        return {
            "frequency": self.frequency,
            "interval": self.interval,
            "at": self.at.strftime("%H:%M"),
            "weekdays": list(self.weekdays),
            "month_day": self.month_day,
            "month": self.month,
            "anchor": self.anchor.isoformat() if self.anchor else None,
            "start": self.start.astimezone(UTC).isoformat() if self.start else None,
        }

    @classmethod
    def from_json(cls, data: dict[str, object]) -> Recurrence:
        hour, minute = str(data["at"]).split(":")
        anchor, start = data.get("anchor"), data.get("start")
        return cls(
            frequency=data["frequency"],  # type: ignore[arg-type]
            interval=int(data["interval"]),  # type: ignore[call-overload]
            at=time(int(hour), int(minute)),
            weekdays=tuple(int(d) for d in data.get("weekdays") or ()),  # type: ignore[attr-defined]
            month_day=data.get("month_day"),  # type: ignore[arg-type]
            month=data.get("month"),  # type: ignore[arg-type]
            anchor=date.fromisoformat(str(anchor)) if anchor else None,
            start=datetime.fromisoformat(str(start)) if start else None,
        )


def wall_time(day: date, at: time, zone: tzinfo) -> datetime:
    """`day` at `at` on the wall clock of `zone`: a skipped time moves forward by the gap, a repeated
    one is the first of the two."""
    naive = datetime.combine(day, at)
    first = naive.replace(tzinfo=zone, fold=0)
    # A time in the gap does not survive the round trip through UTC; it lands after the gap (PEP 495:
    # fold=0 reads it with the offset from before the change, so 02:30 becomes 03:30).
    landed = first.astimezone(UTC).astimezone(zone)
    return landed if landed.replace(tzinfo=None) != naive else first


def _clamped_day(day: date, wanted: int) -> int:
    """The month's `wanted` day, or its last day when the month is shorter (the 31st in April is the 30th)."""
    return min(wanted, calendar.monthrange(day.year, day.month)[1])


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _joined(words: list[str]) -> str:
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]

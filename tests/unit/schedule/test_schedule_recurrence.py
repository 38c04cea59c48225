"""Repeating slots keep their wall-clock time across daylight-saving changes; month ends are clamped."""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from core.schedule.recurrence import Recurrence, wall_time

LONDON = ZoneInfo("Europe/London")  # clocks go forward 29 March 2026 01:00 UTC, back 25 October 01:00 UTC


def _slots(rule: Recurrence, start: datetime, count: int) -> list[datetime]:
    slots, moment = [], start
    for _ in range(count):
        moment = rule.next_after(moment, LONDON)
        slots.append(moment)
    return slots


def _elapsed(first: datetime, second: datetime) -> timedelta:
    return second.astimezone(UTC) - first.astimezone(UTC)  # (- on one zone's datetimes is wall time)


def test_a_daily_slot_stays_at_eight_on_the_wall_clock_when_the_clocks_go_forward_and_back() -> None:
    rule = Recurrence("daily", at=time(8, 0), anchor=date(2026, 3, 1))
    spring = _slots(rule, datetime(2026, 3, 27, 12, tzinfo=LONDON), 3)
    assert [s.strftime("%d %H:%M") for s in spring] == ["28 08:00", "29 08:00", "30 08:00"]
    assert _elapsed(spring[0], spring[1]) == timedelta(hours=23)  # the spring night is short
    autumn = _slots(rule, datetime(2026, 10, 23, 12, tzinfo=LONDON), 2)
    assert _elapsed(autumn[0], autumn[1]) == timedelta(hours=25)
    assert [s.strftime("%H:%M") for s in autumn] == ["08:00", "08:00"]


def test_a_slot_in_the_skipped_hour_moves_past_it_and_one_in_the_repeated_hour_fires_once() -> None:
    skipped = wall_time(date(2026, 3, 29), time(1, 30), LONDON)
    assert skipped.strftime("%H:%M") == "02:30"  # 01:30 does not exist that night in London
    rule = Recurrence("daily", at=time(1, 30), anchor=date(2026, 10, 1))
    slots = _slots(rule, datetime(2026, 10, 24, 12, tzinfo=LONDON), 2)
    assert [s.astimezone(UTC).strftime("%d %H:%M") for s in slots] == ["25 00:30", "26 01:30"]


def test_hourly_rules_count_real_hours_across_the_change() -> None:
    start = datetime(2026, 3, 29, 0, 0, tzinfo=LONDON)
    rule = Recurrence("hourly", interval=1, start=start)
    slots = _slots(rule, start, 2)
    assert [s.astimezone(UTC).hour for s in slots] == [1, 2]
    assert [s.hour for s in slots] == [2, 3]  # local 01:00 never happened


def test_a_monthly_slot_on_the_31st_is_the_last_day_of_a_shorter_month() -> None:
    rule = Recurrence("monthly", at=time(9), month_day=31, anchor=date(2026, 1, 1))
    slots = _slots(rule, datetime(2026, 1, 31, 10, tzinfo=LONDON), 3)
    assert [s.date() for s in slots] == [date(2026, 2, 28), date(2026, 3, 31), date(2026, 4, 30)]


def test_every_other_week_counts_weeks_from_its_anchor() -> None:
    rule = Recurrence("weekly", interval=2, at=time(19), weekdays=(1,), anchor=date(2026, 12, 7))
    slots = _slots(rule, datetime(2026, 12, 7, 12, tzinfo=LONDON), 3)
    assert [s.date() for s in slots] == [date(2026, 12, 8), date(2026, 12, 22), date(2027, 1, 5)]


def test_a_rule_survives_its_round_trip_through_the_task_book() -> None:
    rule = Recurrence("weekly", interval=2, at=time(7, 45), weekdays=(0, 3), anchor=date(2026, 12, 7))
    assert Recurrence.from_json(rule.to_json()) == rule
    hourly = Recurrence("hourly", interval=3, start=datetime(2026, 12, 7, 10, tzinfo=UTC))
    assert Recurrence.from_json(hourly.to_json()) == hourly

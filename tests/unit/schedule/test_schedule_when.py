"""Reading when a reminder is due: one-off moments, rules, and the words that get a question instead."""

from __future__ import annotations

from datetime import datetime, time
from zoneinfo import ZoneInfo

import pytest

from core.schedule.when import TimeNotUnderstood, find_when, parse_when

PARIS = ZoneInfo("Europe/Paris")
MONDAY_MORNING = datetime(2026, 12, 7, 10, 15, tzinfo=PARIS)  # a Monday


def _at(words: str, now: datetime = MONDAY_MORNING) -> datetime:
    return parse_when(words, now).first


@pytest.mark.parametrize(
    ("words", "expected"),
    [
        ("Thursday at 9", datetime(2026, 12, 10, 9, 0)),
        ("on Thursday at 9am", datetime(2026, 12, 10, 9, 0)),
        ("tomorrow at 14:30", datetime(2026, 12, 8, 14, 30)),
        ("in 20 minutes", datetime(2026, 12, 7, 10, 35)),
        ("in half an hour", datetime(2026, 12, 7, 10, 45)),
        ("in 3 days at 9", datetime(2026, 12, 10, 9, 0)),
        ("next Monday", datetime(2026, 12, 14, 9, 0)),  # never today
        ("Monday at 11", datetime(2026, 12, 7, 11, 0)),  # today: still ahead
        ("Monday at 10", datetime(2026, 12, 14, 10, 0)),  # today's has passed: next week's
        ("tonight", datetime(2026, 12, 7, 20, 0)),
        ("tonight at 10", datetime(2026, 12, 7, 22, 0)),
        ("at 3", datetime(2026, 12, 7, 15, 0)),  # the afternoon, not 3 in the night
        ("at 9", datetime(2026, 12, 8, 9, 0)),  # 09:00 has passed today
        ("Friday at noon", datetime(2026, 12, 11, 12, 0)),
        ("12 December at 5pm", datetime(2026, 12, 12, 17, 0)),
        ("December 25", datetime(2026, 12, 25, 9, 0)),
        ("5 January", datetime(2027, 1, 5, 9, 0)),  # the next one
        ("2027-01-05 at 08:15", datetime(2027, 1, 5, 8, 15)),
        ("on the 15th", datetime(2026, 12, 15, 9, 0)),
        ("weds at 5pm", datetime(2026, 12, 9, 17, 0)),  # a day spelt with an s is not "every"
        ("thurs at noon", datetime(2026, 12, 10, 12, 0)),
    ],
)
def test_a_one_off_moment_is_read_in_the_users_zone(words: str, expected: datetime) -> None:
    moment = _at(words)
    assert moment.tzinfo is PARIS
    assert moment.replace(tzinfo=None) == expected


@pytest.mark.parametrize(
    ("words", "described", "first"),
    [
        ("every Monday at 8", "every Monday at 08:00", datetime(2026, 12, 14, 8, 0)),
        ("every day at 7am", "every day at 07:00", datetime(2026, 12, 8, 7, 0)),
        ("every weekday at 9:30", "every weekday at 09:30", datetime(2026, 12, 8, 9, 30)),
        ("Mondays and Thursdays at 8", "every Monday and Thursday at 08:00", datetime(2026, 12, 10, 8, 0)),
        ("the 1st of every month", "every month on the 1st at 09:00", datetime(2027, 1, 1, 9, 0)),
        ("every month on the 31st at 10", "every month on the 31st at 10:00", datetime(2026, 12, 31, 10, 0)),
        ("every other week on Tuesday at 19", "every 2 weeks on Tuesday at 19:00", datetime(2026, 12, 8, 19)),
        ("every morning", "every day at 09:00", datetime(2026, 12, 8, 9, 0)),
        ("every 2 hours", "every 2 hours", datetime(2026, 12, 7, 12, 15)),
        ("every year on 12 December", "every year on 12 December at 09:00", datetime(2026, 12, 12, 9, 0)),
    ],
)
def test_a_rule_is_read_with_its_first_slot(words: str, described: str, first: datetime) -> None:
    when = parse_when(words, MONDAY_MORNING)
    assert when.recurrence is not None
    assert when.recurrence.describe() == described
    assert when.first.replace(tzinfo=None) == first


@pytest.mark.parametrize(
    ("words", "asks"),
    [
        ("next blursday", "could not read 'next blursday'"),
        ("yesterday", "could not read 'yesterday'"),
        ("", "When should it be?"),
        ("2025-01-01", "has already passed"),
        ("today", "At what time on Mon 7 Dec?"),  # 09:00, the default, has passed
        ("at 25:00", "is not a time of day"),
        ("at 13pm", "is not a time of day"),
        ("every year on 30 February", "February has no day 30"),
        ("every 0 days", "never repeats"),
        ("on the 32nd", "no month has a day 32"),
    ],
)
def test_words_that_give_no_usable_time_get_a_question_not_a_guess(words: str, asks: str) -> None:
    with pytest.raises(TimeNotUnderstood, match=asks) as raised:
        parse_when(words, MONDAY_MORNING)
    assert str(raised.value).rstrip().endswith("?") or "?" in str(raised.value)


def test_the_time_phrase_is_found_in_a_sentence_and_the_rest_is_what_to_do() -> None:
    cases = {
        "Remind me on Thursday at 9 to call the dentist": ("Remind me to call the dentist", 10, time(9)),
        "remind me to call mom in 20 minutes": ("remind me to call mom", 7, time(10, 35)),
        "Remind me to take 2 pills at 9pm": ("Remind me to take 2 pills", 7, time(21)),
        "every Monday at 8, summarise my week": ("summarise my week", 14, time(8)),
    }
    for sentence, (rest, day, at) in cases.items():
        found = find_when(sentence, MONDAY_MORNING)
        assert found is not None, sentence
        when = parse_when(found.phrase, MONDAY_MORNING)
        assert found.rest == rest
        assert (when.first.day, when.first.time()) == (day, at)
    assert find_when("remind me to call the dentist", MONDAY_MORNING) is None


def test_in_two_hours_is_two_real_hours_on_the_night_the_clocks_change() -> None:
    before = datetime(2026, 3, 29, 1, 30, tzinfo=PARIS)  # Paris skips 02:00-03:00 that night
    moment = parse_when("in 2 hours", before).first
    assert moment.strftime("%H:%M") == "04:30"

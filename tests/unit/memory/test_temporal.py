"""Temporal expressions and time-window matching."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from core.temporal import (
    TimeWindow,
    absolute_windows,
    asks_for_time,
    hull,
    mentions_time,
    query_time_window,
    relative_windows,
    time_affinities,
    window_affinity,
)

NOW = datetime(2023, 11, 16, 14, 30)  # a Thursday


def span(window: TimeWindow | None) -> tuple[str, str]:
    assert window is not None
    return window.start.date().isoformat(), window.end.date().isoformat()


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("What dish did Nate make on 9 November, 2022?", ("2022-11-09", "2022-11-10")),
        ("What did he read on 8th December, 2023?", ("2023-12-08", "2023-12-09")),
        ("What is Nate playing on November 7, 2022?", ("2022-11-07", "2022-11-08")),
        ("Where was the picture shared on December 1,2023 taken?", ("2023-12-01", "2023-12-02")),
        ("What did his teammates give him on Aug 15th?", ("2023-08-15", "2023-08-16")),
        ("What new activity did Tim start in August 2023?", ("2023-08-01", "2023-09-01")),
        ("What kind of deal did John get in December?", ("2022-12-01", "2023-01-01")),
        ("Which performances did John achieve in 2023?", ("2023-01-01", "2024-01-01")),
    ],
)
def test_absolute_dates(text: str, expected: tuple[str, str]) -> None:
    assert span(hull(absolute_windows(text, NOW))) == expected


def test_may_the_verb_is_not_a_month() -> None:
    assert absolute_windows("What may Caroline do next?", NOW) == []
    assert span(hull(absolute_windows("What did she bake in May 2022?", NOW))) == ("2022-05-01", "2022-06-01")


def test_words_that_start_like_months_are_not_months() -> None:
    assert absolute_windows("I read a novel of Decadence, married 3 years", NOW) == []
    assert not mentions_time("I read a novel, maybe")
    assert not mentions_time("we march on")
    assert span(hull(absolute_windows("the March 3rd game", NOW))) == ("2023-03-03", "2023-03-04")
    assert span(hull(absolute_windows("NOVEMBER 2, 2022", NOW))) == ("2022-11-02", "2022-11-03")


def test_invalid_day_falls_back_to_the_month() -> None:
    assert span(hull(absolute_windows("on 31 February, 2023", NOW))) == ("2023-02-01", "2023-03-01")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("what did I do yesterday", ("2023-11-15", "2023-11-16")),
        ("the day before yesterday", ("2023-11-14", "2023-11-15")),
        ("what did we plan last week", ("2023-11-06", "2023-11-13")),
        ("anything this week", ("2023-11-13", "2023-11-20")),
        ("last weekend", ("2023-11-11", "2023-11-13")),
        ("last month", ("2023-10-01", "2023-11-01")),
        ("last year", ("2022-01-01", "2023-01-01")),
        ("three days ago", ("2023-11-13", "2023-11-14")),
        ("2 weeks ago", ("2023-10-30", "2023-11-06")),
        ("last Friday", ("2023-11-10", "2023-11-11")),
        ("next Monday", ("2023-11-20", "2023-11-21")),
        ("last night", ("2023-11-15", "2023-11-16")),
        ("in the past week", ("2023-11-09", "2023-11-16")),
        ("what did I read recently", ("2023-10-17", "2023-11-17")),
    ],
)
def test_relative_expressions(text: str, expected: tuple[str, str]) -> None:
    assert span(hull(relative_windows(text, NOW))) == expected


def test_months_wrap_across_years() -> None:
    assert span(hull(relative_windows("last month", datetime(2024, 1, 10)))) == ("2023-12-01", "2024-01-01")


def test_explicit_date_wins_and_anchors_relative_words() -> None:
    window = query_time_window("What did Joanna finish last Friday on 23 January, 2022?", NOW)
    assert span(window) == ("2022-01-21", "2022-01-24")
    assert span(
        query_time_window("What was the issue last week, as mentioned on November 6, 2023?", NOW)
    ) == (
        "2023-10-30",
        "2023-11-07",
    )
    assert span(query_time_window("what did I cook yesterday?", NOW)) == ("2023-11-15", "2023-11-16")
    assert query_time_window("What is Caroline's identity?", NOW) is None


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("When did Caroline go to the support group?", True),
        ("How long ago was her 18th birthday?", True),
        ("What year did John start surfing?", True),
        ("In which month's game did he score?", True),
        ("Which month was John in Italy?", True),
        ("What did Caroline research?", False),
    ],
)
def test_asks_for_time(question: str, expected: bool) -> None:
    assert asks_for_time(question) is expected


def test_mentions_time() -> None:
    assert mentions_time("I went there yesterday")
    assert mentions_time("We met in May, it was great")
    assert mentions_time("two weeks ago")
    assert not mentions_time("I love painting sunsets")


def test_window_affinity_allows_a_reporting_lag_and_decays() -> None:
    window = TimeWindow(datetime(2023, 5, 1), datetime(2023, 5, 2), "1 May")
    assert window_affinity(datetime(2023, 5, 1, 12), window) == 1.0
    assert window_affinity(datetime(2023, 5, 7), window) == 1.0  # told a few days later
    later = window_affinity(datetime(2023, 5, 20), window)
    much_later = window_affinity(datetime(2023, 7, 1), window)
    before = window_affinity(datetime(2023, 4, 20), window)
    assert 0 < much_later < later < 1 and 0 < before < 1
    strict = window_affinity(datetime(2023, 5, 7), window, lag=timedelta(0), scale=timedelta(days=1))
    assert strict < 0.01


def test_time_affinities() -> None:
    window = TimeWindow(datetime(2023, 1, 1), datetime(2024, 1, 1), "2023")
    stamps = [datetime(2023, 6, 1), datetime(2025, 6, 1)]
    fits = time_affinities(stamps, window)
    assert fits[0] == 1.0 and fits[1] < 0.5
    assert time_affinities(stamps, None) == [0.0, 0.0]
    assert hull([]) is None

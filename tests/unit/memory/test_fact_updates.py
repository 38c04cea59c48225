"""Corrections read against what is known (`memory.facts.updates`), through the real fact store, spaCy and
MiniLM: an elliptical correction replaces the fact of the same kind of the person it speaks of, and ordinary
chat that says "wrong", "actually" or "back" replaces nothing. The messages are written for these tests,
not taken from a measuring set."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.nlp import SpacyPipeline
from eval.corrections_report import replay
from memory.embeddings import MiniLMEmbedder
from memory.facts.grammar import GrammarFactExtractor
from memory.facts.updates import UpdateReader, is_correction


@pytest.fixture(scope="module")
def updates(nlp: SpacyPipeline) -> UpdateReader:
    return UpdateReader(nlp, MiniLMEmbedder(threads=1).embed)


@pytest.mark.parametrize(
    ("first", "later", "old", "new"),
    [
        (
            "My brother works at Siemens.",
            "Correction about my brother's employer: he's at Bosch, I mixed them up.",
            ("my brother", "works_at", "siemens"),
            ("my brother", "works_at", "bosch"),
        ),
        (
            "My aunt Greta lives in Bremen.",
            "I got the city wrong before, it's in Hamburg that Greta lives.",
            ("greta", "lives_in", "bremen"),
            ("greta", "lives_in", "hamburg"),
        ),
        (
            "My nephew Tom is 9.",
            "oops, Tom's actually 10 now that I think of it",
            ("tom", "age", "9"),
            ("tom", "age", "10"),
        ),
        (
            "I speak French and Italian.",
            "typo earlier: it's Portuguese I speak, not Italian",
            ("user", "speaks", "italian"),
            ("user", "speaks", "portuguese"),
        ),
        (
            "I play the trumpet in a brass band.",
            "my mistake, it's the trombone, never the other one",
            ("user", "plays", "trumpet"),
            ("user", "plays", "trombone"),
        ),
        (
            "I live in Leeds.",
            "Settled in York for good now, the boxes are finally unpacked",
            ("user", "lives_in", "leeds"),
            ("user", "lives_in", "york"),
        ),
        (  # a replacement: what was put away is the old value, what it was swapped for the new one
            "I drive a Honda Civic.",
            "Traded the Civic for a Toyota Prius last month, loving it so far",
            ("user", "owns", "honda civic"),
            ("user", "owns", "toyota prius"),
        ),
        (
            "I play the violin.",
            "Switched to the cello last year, my teacher says it suits me",
            ("user", "plays", "violin"),
            ("user", "plays", "cello"),
        ),
    ],
)
async def test_a_correction_replaces_the_fact_of_its_kind(
    reader: GrammarFactExtractor,
    updates: UpdateReader,
    tmp_path: Path,
    first: str,
    later: str,
    old: tuple[str, str, str],
    new: tuple[str, str, str],
) -> None:
    alone = await replay(reader, tmp_path / "alone", first, later)
    assert alone.get(old) == "current" and new not in alone  # no sentence frame reads it
    listed = await replay(reader, tmp_path / "read", first, later, updates)
    assert listed[old] == "superseded"
    assert listed[new] == "current"


async def test_a_correction_keeps_the_values_it_does_not_name(
    reader: GrammarFactExtractor, updates: UpdateReader, tmp_path: Path
) -> None:
    listed = await replay(
        reader,
        tmp_path,
        "I speak French and Italian.",
        "typo earlier: it's Portuguese I speak, not Italian",
        updates,
    )
    assert listed[("user", "speaks", "french")] == "current"


@pytest.mark.parametrize(
    ("first", "later"),
    [
        ("I live in Leeds.", "I went back to Paris for a week, back home on Sunday"),
        ("I live in Leeds.", "Spending the holidays in Vienna, back on the 3rd"),
        ("I work at Siemens.", "Sorry, my friend works at Bosch, I mixed up who I meant"),
        ("I play the trumpet.", "something went wrong with my drum lesson booking"),
        ("I play the trumpet.", "It was actually a great concert, the trombones were amazing"),
        ("I speak French.", "I also speak German now, finally passed the exam"),
        ("I live in Leeds.", "No, I haven't been to Madrid, is it worth a visit?"),
        ("I live in Leeds.", "thinking about moving to Porto next year, the rent is so much lower"),
        ("My brother Sam lives in Leeds.", "he should have moved to Spain ages ago, he loves the heat"),
        ("I live in Leeds.", "that was back in the 90s, long before I met Ana in Madrid"),
        ("I work at Siemens.", "I mean, it's only Monday, but Bosch already sent the new contracts"),
        ("My nephew Tom is 9.", "Tom is actually pretty good at chess, he beat me 3 times"),
        ("I live in Leeds.", "we took the wrong exit and ended up in Bradford for an hour"),
        ("I play the violin.", "thinking of switching to the cello next year"),
        ("I drive a Honda Civic.", "My neighbour traded his Civic for a Tesla, show-off"),
        ("I play the violin.", "the orchestra swapped the violins for violas in the slow movement"),
        ("I live in Leeds.", "we switched the lights off and watched a film in the garden"),
        ("I play the violin.", "Should I swap the violin for a viola, do you think?"),
    ],
)
async def test_ordinary_chat_replaces_nothing(
    reader: GrammarFactExtractor, updates: UpdateReader, tmp_path: Path, first: str, later: str
) -> None:
    alone = await replay(reader, tmp_path / "alone", first, later)
    listed = await replay(reader, tmp_path / "read", first, later, updates)
    assert {f: s for f, s in listed.items() if s != "current"} == {
        f: s for f, s in alone.items() if s != "current"
    }


def test_correction_markers_are_read_from_the_parse(nlp: SpacyPipeline) -> None:
    assert is_correction(nlp("no idea why I said Leeds, it's York"))
    assert is_correction(nlp("*Hamburg"))
    assert is_correction(nlp("I got her age wrong"))
    assert not is_correction(nlp("what went wrong with the order?"))
    assert not is_correction(nlp("we all make mistakes"))
    assert not is_correction(nlp("I started from scratch"))

"""Explicit crisis statements in other languages: found as written or typed without accents, and not when
denied, figurative, laughed off or about something else. The messages are written here (none is in a tone
data set)."""

from __future__ import annotations

import pytest

from core.pipeline.tone import ToneDetector, ToneLevel
from core.pipeline.tone_languages import STATEMENTS, crisis_statements, fold


@pytest.mark.parametrize(
    ("text", "language"),
    [
        ("la verdad ya no quiero vivir, estoy cansada de todo", "es"),
        ("hoy me voy a matar, perdón a todos", "es"),
        ("nao quero mais viver mano", "pt"),  # typed without accents
        ("j'ai envie de mourir depuis des semaines", "fr"),
        ("ich will nicht mehr aufwachen, echt", "de"),
        ("non voglio più vivere così", "it"),
        ("chce umrzec", "pl"),
        ("я правда хочу умереть", "ru"),
        ("bugün kendimi öldüreceğim", "tr"),
        ("والله اريد ان اموت", "ar"),
        ("मैं अब जीना नहीं चाहती", "hi"),
        ("yaar main marna chahta hoon", "hi"),
        ("gusto ko nang mamatay", "tl"),
        ("aku pengen mati aja", "id"),
        ("tôi không muốn sống nữa", "vi"),
        ("もう死にたい", "ja"),
        ("我真的不想活了", "zh"),
        ("진짜 죽고 싶어", "ko"),
    ],
)
def test_a_first_person_statement_is_found_in_its_language(text: str, language: str) -> None:
    found = crisis_statements(text)
    assert found
    assert set(found) <= set(STATEMENTS[language])


@pytest.mark.parametrize(
    "text",
    [
        "no quiero morir, quiero que me ayudes",  # denied
        "я не хочу умереть",
        "me muero de risa con este video",  # figurative complements
        "qué vergüenza, me quiero morir",
        "je veux mourir de rire",
        "想死你了!",  # "missed you to death"
        "累得想死",  # "tired to death"
        "mệt muốn chết",
        "quiero morir jajaja el examen",  # laughed off
        "死にたいwww",
        "I want to go to the beach",  # English is the other stages' job
        "the news said a man took his own life",
    ],
)
def test_denied_figurative_laughing_and_english_text_has_no_statement(text: str) -> None:
    assert crisis_statements(text) == ()


def test_accents_are_dropped_only_where_the_script_drops_them() -> None:
    assert fold("Não QUERO") == "nao quero"
    assert fold("Всё ещё") == "все еще"  # Cyrillic: ё is е with a diaeresis
    assert fold("tự tử") == "tu tu"  # Latin letters: Vietnamese tones are dropped like any accent
    assert fold("死にたい") == "死にたい"


def test_the_detector_reads_a_statement_in_another_language_as_crisis() -> None:
    result = ToneDetector().detect("ya no quiero vivir")
    assert result.level is ToneLevel.CRISIS
    assert result.stage == "languages"
    assert result.evidence == ("in another language: ya no quiero vivir",)
    assert result.support  # the crisis support text goes with it


def test_a_figurative_statement_stays_below_crisis_in_the_detector() -> None:
    assert ToneDetector().detect("me muero de risa").level is not ToneLevel.CRISIS

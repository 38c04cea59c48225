"""How `eval locomo` tells a conversation as one speaker's and routes questions: pure parts, no models."""

from __future__ import annotations

from pathlib import Path

from eval.benchmarks.locomo import load_locomo
from eval.locomo_eval import exchanges, speaker_asked

TINY = Path(__file__).resolve().parents[2] / "data" / "locomo_tiny.json"


def test_each_speakers_lines_are_the_messages_and_the_others_the_replies() -> None:
    conv = load_locomo(TINY)[0]
    first, second = list(exchanges(conv, "Dana"))
    assert [e.uids for e in first] == [["D1:1", "D1:2"], ["D1:3", "D1:4"]]
    assert first[0].user.startswith("Hi Omar! I finally joined") and first[0].assistant.startswith("That's")
    # the session opens with Omar: his line opens the first reply of Dana's view, nothing is lost
    assert [sorted(e.uids) for e in second] == [["D2:1", "D2:2", "D2:3"], ["D2:4"]]
    assert second[0].assistant.startswith("Dana, how did the concert go?")
    assert second[1].assistant == ""
    told = [uid for session in exchanges(conv, "Omar") for e in session for uid in e.uids]
    assert sorted(told) == sorted(u.uid for u in conv.units)


def test_an_exchange_is_dated_by_its_session() -> None:
    conv = load_locomo(TINY)[0]
    first, second = list(exchanges(conv, "Omar"))
    assert first[0].at < second[0].at
    assert second[0].at - first[0].at > 40 * 86_400  # 3 March -> 17 April


def test_a_question_goes_to_the_first_speaker_it_names() -> None:
    speakers = ("Dana", "Omar")
    assert speaker_asked("What does Omar repair?", speakers) == "Omar"
    assert speaker_asked("Did Dana tell Omar about the cat?", speakers) == "Dana"
    assert speaker_asked("What happened at the concert?", speakers) == "Dana"
    assert speaker_asked("what did omar sell?", speakers) == "Omar"


def test_a_short_form_of_a_speakers_name_names_them() -> None:
    speakers = ("Caroline", "Melanie")
    assert speaker_asked("What did Mel and her kids paint?", speakers) == "Melanie"
    assert speaker_asked("Did Melvin call?", speakers) == "Caroline"  # not a short form of Melanie
    assert speaker_asked("What did the melon cost?", speakers) == "Caroline"  # a word, not a name


def test_only_answerable_categories_are_loaded() -> None:
    questions = load_locomo(TINY)[0].questions
    assert {q.category for q in questions} == {1, 4} and len(questions) == 5

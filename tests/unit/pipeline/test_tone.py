"""Tone detector: lexicon, negation, combinations, observational filter, support text, the head's part, and
accuracy over the labelled set in tests/data/tone_labelled.tsv."""

from __future__ import annotations

import time
from collections import Counter
from pathlib import Path

import pytest

from core.pipeline import tone_lexicon as lex
from core.pipeline.tone import (
    CARE_EMERGENCY_SUPPORT,
    CHECK_IN,
    CRISIS_SUPPORT,
    THIRD_PARTY_SUPPORT,
    ToneConfig,
    ToneDetector,
    ToneLevel,
    normalise,
    support_addendum,
)
from core.pipeline.tone_danger import DangerFinding

DATA = Path(__file__).resolve().parents[2] / "data" / "tone_labelled.tsv"
LEVELS = [level.value for level in ToneLevel]


def load_labelled() -> list[tuple[str, str, bool]]:
    rows = []
    for line in DATA.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            text, level, observational = line.split("\t")
            rows.append((text, level, observational == "1"))
    return rows


@pytest.fixture(scope="module")
def detector() -> ToneDetector:
    return ToneDetector()


def level_of(detector: ToneDetector, text: str) -> str:
    return detector.detect(text).level.value


# -- levels and the original's lookup bug -----------------------------------------------------------------
@pytest.mark.parametrize("level", list(ToneLevel))
def test_level_round_trips_through_every_spelling(level: ToneLevel) -> None:
    assert ToneLevel.parse(level.value) is level
    assert ToneLevel.parse(level.name) is level
    assert ToneLevel.parse(str(level)) is level
    assert level.value in ("crisis", "elevated", "concern", "conversational")


def test_original_system_spellings_do_not_collapse_to_conversational() -> None:
    assert ToneLevel.parse("HIGH") is ToneLevel.CRISIS
    assert ToneLevel.parse("crisis_support") is ToneLevel.CRISIS
    assert ToneLevel.parse("MEDIUM") is ToneLevel.ELEVATED
    assert ToneLevel.parse("elevated_support") is ToneLevel.ELEVATED
    with pytest.raises(ValueError):
        ToneLevel.parse("ecstatic")


def test_detected_levels_are_not_all_conversational(detector: ToneDetector) -> None:
    texts = ["I want to kill myself", "I'm having a panic attack", "work is stressful", "what time is it"]
    assert [level_of(detector, t) for t in texts] == ["crisis", "elevated", "concern", "conversational"]


# -- lexicon shape -----------------------------------------------------------------------------------------
def test_lexicon_is_large_and_well_formed() -> None:
    phrases = [(level, p) for _, level, _, group in lex.PHRASE_GROUPS for p in group]
    scored = [p for level, p in phrases if level != "modifier"]
    assert len(scored) >= 250
    assert len(set(scored)) == len(scored), "duplicate phrase"
    counts = Counter(level for level, _ in phrases)
    assert {"crisis", "elevated", "concern", "modifier"} <= set(counts)
    assert all(w >= 0 for _, _, w, _ in lex.PHRASE_GROUPS)
    categories = {c for c, _, _, _ in lex.PHRASE_GROUPS}
    for first, second, factor in lex.COMBINATIONS:
        assert {first, second} <= categories and factor > 1


def test_normalise_expands_contractions_and_drops_possessives() -> None:
    assert normalise("I can't cope, my friend's dog") == [
        "i",
        "can",
        "not",
        "cope",
        ",",
        "my",
        "friend",
        "dog",
    ]
    assert normalise("Im not ok") == normalise("I'm not ok") == normalise("I\u2019m not ok")


# -- negation, modifiers, combinations ---------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "level"),
    [
        ("I'm depressed", "concern"),
        ("I'm not depressed", "conversational"),
        ("I don't feel lonely at all these days", "conversational"),
        ("I never feel anxious when I'm out walking", "conversational"),
        ("I'm not just sad, I feel completely hopeless", "elevated"),
        ("I can't stop crying", "elevated"),
        ("I used to struggle with anxiety, but I'm fine now", "conversational"),
    ],
)
def test_negation_and_past_framing(detector: ToneDetector, text: str, level: str) -> None:
    assert level_of(detector, text) == level


def test_negated_crisis_language_still_gets_a_gentle_check_in(detector: ToneDetector) -> None:
    result = detector.detect("I'm not suicidal, don't worry")
    assert result.level is ToneLevel.CONCERN
    assert result.support is None


def test_inverted_phrases_score_only_when_negated(detector: ToneDetector) -> None:
    assert level_of(detector, "there's no reason to live") == "crisis"
    assert level_of(detector, "I can't see the point in living anymore") == "crisis"
    assert level_of(detector, "I don't want to be alive") == "crisis"
    assert level_of(detector, "I have so many reasons to live") == "conversational"
    assert level_of(detector, "life is worth living") == "conversational"


def test_intensifiers_and_diminishers_scale_a_cue(detector: ToneDetector) -> None:
    plain = detector.detect("I'm stressed").score
    assert detector.detect("I'm so stressed").score == pytest.approx(plain * detector._config.intensifier)
    assert detector.detect("I'm a bit stressed").score == pytest.approx(plain * detector._config.diminisher)


@pytest.mark.parametrize(
    ("alone", "combined", "factor"),
    [
        ("I feel hopeless", "I feel hopeless and so alone", 1.35),
        ("I'm stressed", "I'm stressed, the deadline is tomorrow", 1.25),
        ("I'm so anxious", "I'm so anxious and I can't sleep", 1.2),
    ],
)
def test_combination_multipliers(alone: str, combined: str, factor: float) -> None:
    strongest_only = ToneDetector(config=ToneConfig(decay=0.0))  # isolates the multiplier from the sum
    base = strongest_only.detect(alone).score
    assert strongest_only.detect(combined).score == pytest.approx(base * factor, rel=1e-3)


def test_crisis_needs_explicit_risk_language(detector: ToneDetector) -> None:
    result = detector.detect("hopeless, worthless, I can't cope, another panic attack, I'm falling apart")
    assert result.level is ToneLevel.ELEVATED
    assert result.score < detector._config.crisis_threshold


@pytest.mark.parametrize(
    "text",
    [
        "this bug is killing me lol",
        "I'm dying to try that ramen place",
        "how do I kill the process on port 8080",
        "I absolutely killed it at the gym",
        "my phone is dying",
        "no stress, the deadline moved",
        "what's the point of this function",
    ],
)
def test_figurative_uses_are_not_distress(detector: ToneDetector, text: str) -> None:
    result = detector.detect(text)
    assert result.level is ToneLevel.CONVERSATIONAL
    assert result.matched == ()


# -- observational filter ----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "text",
    [
        "the news about the earthquake is so sad",
        "my character in the novel wants to die",
        "my friend says she's anxious",
        "what are the warning signs of depression",
        "the documentary about the famine was devastating",
        "in the movie he screams that he can't go on",
    ],
)
def test_observational_text_is_not_personal_distress(detector: ToneDetector, text: str) -> None:
    result = detector.detect(text)
    assert result.level is ToneLevel.CONVERSATIONAL
    assert result.observational
    assert result.support is None


def test_personal_reaction_to_the_news_still_counts(detector: ToneDetector) -> None:
    result = detector.detect("the news is making me so anxious I can barely sleep")
    assert result.level is ToneLevel.CONCERN
    assert not result.observational


def test_third_party_in_danger_warrants_concern_and_guidance(detector: ToneDetector) -> None:
    result = detector.detect("my friend keeps saying she wants to kill herself")
    assert result.level is ToneLevel.CONCERN
    assert result.observational
    assert result.support == THIRD_PARTY_SUPPORT


@pytest.mark.parametrize(
    "text",
    [
        "for my psychology essay, what are the main risk factors for suicide",
        "for my nursing exam: how much paracetamol counts as an overdose?",
        "my homework is on self harm awareness, where do I start",
    ],
)
def test_questions_for_the_users_coursework_are_not_the_users_distress(
    detector: ToneDetector, text: str
) -> None:
    result = detector.detect(text)
    assert (result.level, result.observational) == (ToneLevel.CONVERSATIONAL, True)


@pytest.mark.parametrize(
    "text",
    [
        "my project failed, want to die",  # coursework, but no question: it is about the user
        "my exam went badly. how do I stop wanting to kill myself",
        "I want to die, my exam went terribly",
    ],
)
def test_distress_next_to_coursework_is_still_the_users(detector: ToneDetector, text: str) -> None:
    assert level_of(detector, text) == "crisis"


def test_threat_reported_by_the_user_is_about_the_user(detector: ToneDetector) -> None:
    assert level_of(detector, "he has a knife and I'm hiding in the bathroom") == "crisis"
    assert level_of(detector, "my neighbour told me her husband hits her") == "concern"


# -- support guidance --------------------------------------------------------------------------------------
def test_crisis_result_carries_support_guidance(detector: ToneDetector) -> None:
    result = detector.detect("I want to end my life")
    assert result.level is ToneLevel.CRISIS
    assert result.support == CRISIS_SUPPORT
    for needle in ("emergency services", "988", "116 123", "Samaritans", "trust"):
        assert needle in result.support
    assert "end my life" in result.matched


@pytest.mark.parametrize("text", ["I'm so stressed", "I'm having a panic attack", "hello there"])
def test_non_crisis_results_carry_no_support(detector: ToneDetector, text: str) -> None:
    assert detector.detect(text).support is None


# -- the tone head -----------------------------------------------------------------------------------------
class FakeHead:
    """Votes ``targets[text]`` with probability ``share`` (the rest spread evenly); no vote otherwise."""

    def __init__(self, targets: dict[str, str] | None = None, share: float = 0.8, fail: bool = False) -> None:
        self.targets = targets or {}
        self.share = share
        self.fail = fail
        self.calls: list[str] = []

    def vote(self, text: str) -> dict[str, float]:
        self.calls.append(text)
        if self.fail:
            raise RuntimeError("model not loaded")
        target = self.targets.get(text)
        if target is None:
            return {}
        rest = (1.0 - self.share) / (len(LEVELS) - 1)
        return {level: self.share if level == target else rest for level in LEVELS}


PARAPHRASED_RISK = "wrote letters to everyone tonight, that's everything sorted now"
WITH_RISK_TERM = "took a bunch of pills dont know how many cant think straight"
HINTED = "I'm so tired of all of it, wrote letters to everyone tonight"
NO_SIGNAL = "Can't wait to see them and go for a walk by the river."


@pytest.mark.parametrize("share", [0.5, 0.9, 0.99, 1.0])
def test_the_heads_crisis_reading_alone_never_makes_a_crisis(share: float) -> None:
    """Whatever its value: the tone head read ordinary chat ("can't wait to see them and go for a walk by the
    river") as crisis at p = 1.00. Without a word of distress or risk it changes nothing."""
    for text in (PARAPHRASED_RISK, NO_SIGNAL):
        result = ToneDetector(head=FakeHead({text: "crisis"}, share=share)).detect(text)
        assert (result.level, result.support, result.evidence) == (ToneLevel.CONVERSATIONAL, None, ())


def test_a_hint_in_the_words_with_the_heads_crisis_reading_asks_and_does_not_alarm() -> None:
    """ "so tired of all of it": a distress word, no risk stated. The reading is concern with its reason, and
    the support is one plain check-in question, no hotline list."""
    result = ToneDetector(head=FakeHead({HINTED: "crisis"}, share=0.97)).detect(HINTED)
    assert (result.level, result.stage, result.support) == (ToneLevel.CONCERN, "head", CHECK_IN)
    assert result.unsure is not None and "tired" in result.unsure
    assert "988" not in CHECK_IN and CHECK_IN.count("?") == 1
    unsure = ToneDetector(head=FakeHead({HINTED: "crisis"}, share=0.4)).detect(HINTED)
    assert unsure.unsure is None and unsure.support is None


def test_a_risk_said_of_the_user_with_the_heads_reading_is_a_crisis() -> None:
    head = FakeHead({WITH_RISK_TERM: "crisis"}, share=0.5)
    result = ToneDetector(head=head).detect(WITH_RISK_TERM)
    assert (result.level, result.stage, result.support) == (ToneLevel.CRISIS, "head", CRISIS_SUPPORT)
    assert result.evidence and "pills" in result.evidence[0] and "pills" in result.risk
    calm = ToneDetector(head=FakeHead({WITH_RISK_TERM: "conversational"}, share=0.9)).detect(WITH_RISK_TERM)
    assert calm.level is not ToneLevel.CRISIS


@pytest.mark.parametrize("text", ["the end pills", "after the kill", "it's over now", "bad \ufffd end"])
def test_a_few_words_give_the_head_too_little_for_a_crisis(text: str) -> None:
    """The tuned head read "the end" and "after the party" as crisis at p≈0.99: under four words a risk term
    is not enough with it; the lexicon and the danger reader still read short crises."""
    result = ToneDetector(head=FakeHead({text: "crisis"}, share=0.99)).detect(text)
    assert result.level is not ToneLevel.CRISIS and result.support != CRISIS_SUPPORT
    assert ToneDetector(head=FakeHead({"i want to die": "crisis"}, share=0.99)).detect(
        "i want to die"
    ).level is (ToneLevel.CRISIS)


def test_a_crisis_vote_about_someone_else_is_not_the_users_crisis() -> None:
    text = "my coworker wrote letters to everyone tonight"
    result = ToneDetector(head=FakeHead({text: "crisis"}, share=0.99)).detect(text)
    assert result.level is not ToneLevel.CRISIS


@pytest.mark.parametrize(
    "text",
    [
        "my son swallowed one of the dishwasher pods, he's coughing and drooling",
        "our baby's lips look blue and she's not breathing properly",
    ],
)
def test_a_risk_to_someone_in_the_users_care_is_an_emergency_to_act_on(text: str) -> None:
    """Someone the user names as theirs, a risk said of them, and the head's crisis reading: the user gets
    the emergency text for someone with them. The head's reading alone is not enough."""
    result = ToneDetector(head=FakeHead({text: "crisis"}, share=0.97)).detect(text)
    assert (result.level, result.stage, result.support) == (ToneLevel.CRISIS, "head", CARE_EMERGENCY_SUPPORT)
    unsure = ToneDetector(head=FakeHead({text: "crisis"}, share=0.3)).detect(text)
    assert unsure.level is not ToneLevel.CRISIS
    told = "my sister wrote letters to everyone tonight and won't open her door"
    hinted = ToneDetector(head=FakeHead({told: "crisis"}, share=0.99)).detect(told)
    assert hinted.level is not ToneLevel.CRISIS


class FakeEvidenceReader:
    """The evidence reader: "stated" with probability `share` for the texts in `stated`, 0.05 for others."""

    def __init__(self, stated: set[str], share: float = 0.9, fail: bool = False) -> None:
        self.stated, self.share, self.fail = stated, share, fail

    def vote(self, text: str) -> dict[str, float]:
        if self.fail:
            raise RuntimeError("embedder gone")
        p = self.share if text in self.stated else 0.05
        return {"unstated": 1 - p, "stated": p}


NO_LIST_HOLDS = "no need to book the dentist, i wont be alive by then"


def test_a_risk_no_list_holds_asks_when_both_readers_are_sure_and_never_alarms() -> None:
    head = FakeHead({NO_LIST_HOLDS: "crisis"}, share=0.97)
    result = ToneDetector(head=head, stated=FakeEvidenceReader({NO_LIST_HOLDS})).detect(NO_LIST_HOLDS)
    assert (result.level, result.support, result.evidence) == (ToneLevel.CONCERN, CHECK_IN, ())
    assert (
        result.unsure
        == "both readers heard a stated risk (evidence p=0.90, crisis p=0.97, multilingual p=0.00)"
    )


def test_a_risk_no_list_holds_is_a_crisis_when_the_multilingual_head_agrees() -> None:
    """A third reader over another encoder's vectors, sure as well: the words state a risk (evidence)."""
    head = FakeHead({NO_LIST_HOLDS: "crisis"}, share=0.97)
    stated = FakeEvidenceReader({NO_LIST_HOLDS})
    sure, unsure = (FakeHead({NO_LIST_HOLDS: "crisis"}, share=share) for share in (0.95, 0.8))
    result = ToneDetector(head=head, stated=stated, multilingual=sure).detect(NO_LIST_HOLDS)
    assert (result.level, result.support, result.stage) == (ToneLevel.CRISIS, CRISIS_SUPPORT, "head")
    assert result.evidence == (
        "stated risk heard by three readers (evidence p=0.90, crisis p=0.97, multilingual p=0.95)",
    )
    asks = ToneDetector(head=head, stated=stated, multilingual=unsure).detect(NO_LIST_HOLDS)
    assert (asks.level, asks.support, asks.evidence) == (ToneLevel.CONCERN, CHECK_IN, ())


def test_both_encoders_hearing_a_crisis_in_words_that_say_none_ask_and_never_alarm() -> None:
    """The tone head and the multilingual head both read crisis, the evidence reader hears nothing stated:
    concern and the check-in question."""
    head = FakeHead({NO_LIST_HOLDS: "crisis"}, share=0.97)
    multilingual = FakeHead({NO_LIST_HOLDS: "crisis"}, share=0.95)
    result = ToneDetector(head=head, stated=FakeEvidenceReader(set()), multilingual=multilingual).detect(
        NO_LIST_HOLDS
    )
    assert (result.level, result.support, result.evidence) == (ToneLevel.CONCERN, CHECK_IN, ())
    assert (
        result.unsure
        == "both encoders heard possible risk (evidence p=0.05, crisis p=0.97, multilingual p=0.95)"
    )


def test_the_multilingual_head_alone_changes_nothing_in_english() -> None:
    """Without the tone head's crisis reading it is not consulted in English; below its bar it adds
    nothing."""
    sure, unsure = (FakeHead({NO_SIGNAL: "crisis"}, share=share) for share in (1.0, 0.85))
    quiet_head = ToneDetector(head=FakeHead(), stated=FakeEvidenceReader({NO_SIGNAL}), multilingual=sure)
    assert quiet_head.detect(NO_SIGNAL).level is ToneLevel.CONVERSATIONAL
    assert sure.calls == []
    sure_head = FakeHead({NO_SIGNAL: "crisis"}, share=1.0)
    below = ToneDetector(head=sure_head, stated=FakeEvidenceReader(set()), multilingual=unsure)
    assert (below.detect(NO_SIGNAL).level, below.detect(NO_SIGNAL).unsure) == (ToneLevel.CONVERSATIONAL, None)


def test_neither_reader_alone_asks_nor_both_about_someone_else() -> None:
    text, about_her = NO_LIST_HOLDS, "she says no need to book her dentist, she wont be alive by then"
    sure_head = FakeHead({text: "crisis", about_her: "crisis"}, share=0.97)
    unsure_head = FakeHead({text: "crisis"}, share=0.8)
    readings = [
        ToneDetector(head=sure_head, stated=FakeEvidenceReader(set())).detect(text),
        ToneDetector(head=unsure_head, stated=FakeEvidenceReader({text})).detect(text),
        ToneDetector(stated=FakeEvidenceReader({text})).detect(text),
        ToneDetector(head=sure_head, stated=FakeEvidenceReader({text}, share=0.6)).detect(text),
        ToneDetector(head=sure_head, stated=FakeEvidenceReader({about_her})).detect(about_her),
        ToneDetector(head=sure_head, stated=FakeEvidenceReader({text}, fail=True)).detect(text),
    ]
    assert [(r.level, r.unsure) for r in readings] == [(ToneLevel.CONVERSATIONAL, None)] * len(readings)


@pytest.mark.parametrize("text", ["I don't see the point in going on anymore", "kill myself tonight"])
def test_explicit_risk_the_user_states_is_a_crisis_without_the_head(text: str) -> None:
    result = ToneDetector().detect(text)
    assert result.level is ToneLevel.CRISIS and result.evidence


def test_figurative_risk_words_are_no_evidence() -> None:
    text = "I'd kill for a cold beer rn"
    result = ToneDetector(head=FakeHead({text: "crisis"}, share=0.6)).detect(text)
    assert (result.level, result.risk, result.support) == (ToneLevel.CONVERSATIONAL, (), None)


def head_of(explained: dict[str, object]) -> dict[str, float]:
    """The head's probabilities in an `explain()` (a dict there: these tests use a head)."""
    head = explained["head"]
    assert isinstance(head, dict)
    return head


def test_explain_names_the_evidence_the_head_and_why_it_asks() -> None:
    result = ToneDetector(head=FakeHead({WITH_RISK_TERM: "crisis"}, share=0.5)).detect(WITH_RISK_TERM)
    explained = result.explain()
    assert explained["decided_by"] == "head" and explained["evidence"] and explained["risk"]
    assert head_of(explained)["crisis"] == 0.5 and explained["asks_because"] is None
    asking = ToneDetector(head=FakeHead({HINTED: "crisis"}, share=0.97)).detect(HINTED).explain()
    assert asking["evidence"] == [] and "p=0.97" in str(asking["asks_because"])


def test_the_head_raises_distress_only_where_the_words_say_some() -> None:
    said = "I'm a bit stressed about everything lately"
    assert ToneDetector(head=FakeHead({said: "elevated"}, share=0.8)).detect(said).level is ToneLevel.ELEVATED
    plain = "I'll make sure I give the turtles a bath before you get here"
    assert ToneDetector(head=FakeHead({plain: "elevated"}, share=0.99)).detect(plain).level is (
        ToneLevel.CONVERSATIONAL
    )


def test_the_head_lowers_only_when_very_sure() -> None:
    text = "I'm so stressed"
    lexicon = ToneDetector().detect(text).level
    assert lexicon.rank > 0
    fairly_sure = ToneDetector(head=FakeHead({text: "conversational"}, share=0.8)).detect(text)
    assert fairly_sure.level is lexicon
    very_sure = ToneDetector(head=FakeHead({text: "conversational"}, share=0.95)).detect(text)
    assert (very_sure.level, very_sure.stage) == (ToneLevel.CONVERSATIONAL, "head")


def test_the_head_never_lowers_an_explicit_crisis_cue() -> None:
    text = "I want to kill myself"
    result = ToneDetector(head=FakeHead({text: "conversational"}, share=0.99)).detect(text)
    assert (result.level, result.stage) == (ToneLevel.CRISIS, "lexicon")


NEGATED_OR_PAST = ["I'm not suicidal, just really tired", "I used to feel hopeless years ago"]


@pytest.mark.parametrize("text", NEGATED_OR_PAST)
def test_negated_or_past_strong_cues_keep_the_lexicon_reading(text: str) -> None:
    head = FakeHead({text: "elevated"}, share=0.99)
    result = ToneDetector(head=head).detect(text)
    assert (result.stage, result.settled) == ("lexicon", True)
    assert head.calls == []


def test_a_negated_mild_cue_does_not_silence_the_head() -> None:
    """ "don't worry about me" negates a mild cue; the rest of the message still gets the head's reading: a
    burden said of oneself hints at a risk, so the reading asks."""
    text = "don't worry about me, I'm such a burden to everyone lately"
    result = ToneDetector(head=FakeHead({text: "crisis"}, share=0.96)).detect(text)
    assert (result.level, result.support) == (ToneLevel.CONCERN, CHECK_IN)


def test_other_languages_get_the_evidence_rules_and_no_head_reading() -> None:
    """MiniLM reads English: the head is not asked about other languages (their explicit statements are
    still read: core/pipeline/tone_languages.py)."""
    text = "aaj raat sab khatam kar dunga yaar"
    head = FakeHead({text: "crisis"}, share=0.99)
    assert ToneDetector(head=head).detect(text).level is ToneLevel.CONVERSATIONAL
    assert head.calls == []
    assert ToneDetector(head=head).detect("ya no quiero vivir").level is ToneLevel.CRISIS


def test_an_empty_message_does_not_consult_the_head() -> None:
    head = FakeHead()
    assert ToneDetector(head=head).detect("   ").level is ToneLevel.CONVERSATIONAL
    assert head.calls == []


def test_a_failing_head_falls_back_to_the_lexicon() -> None:
    result = ToneDetector(head=FakeHead(fail=True)).detect(PARAPHRASED_RISK)
    assert (result.level, result.stage) == (ToneLevel.CONVERSATIONAL, "lexicon")


# -- the danger reader -------------------------------------------------------------------------------------
class FakeDanger:
    """Finds ``found[text]`` (none otherwise); records the texts it was asked about."""

    def __init__(self, found: dict[str, list[DangerFinding]] | None = None, fail: bool = False) -> None:
        self.found = found or {}
        self.fail = fail
        self.calls: list[str] = []

    def read(self, text: str) -> list[DangerFinding]:
        self.calls.append(text)
        if self.fail:
            raise RuntimeError("spaCy model missing")
        return self.found.get(text, [])


SIGNS = "my face is drooping on one side and my arm is numb"
ACUTE = DangerFinding("body", "droop, numb", acute=True)


def test_an_acute_danger_frame_is_a_crisis_without_the_head() -> None:
    assert ToneDetector().detect(SIGNS).level is not ToneLevel.CRISIS
    result = ToneDetector(danger=FakeDanger({SIGNS: [ACUTE]})).detect(SIGNS)
    assert (result.level, result.stage, result.support) == (ToneLevel.CRISIS, "danger", CRISIS_SUPPORT)
    assert result.explain()["danger_frames"] == ["body (acute): droop, numb"]


def test_an_emergency_of_someone_in_the_users_care_is_a_crisis_with_emergency_steps() -> None:
    """ "my baby isn't breathing" opens on someone else, but the user must act now: a crisis whose support
    text says to call emergency services, not a crisis line."""
    text = "my baby isn't breathing"
    care = DangerFinding("care", "baby: not breathing", acute=True)
    result = ToneDetector(
        head=FakeHead({text: "conversational"}, share=0.95), danger=FakeDanger({text: [care]})
    ).detect(text)
    assert (result.level, result.stage, result.support) == (
        ToneLevel.CRISIS,
        "danger",
        CARE_EMERGENCY_SUPPORT,
    )
    assert "emergency services" in CARE_EMERGENCY_SUPPORT


def test_an_acute_frame_in_a_message_about_someone_else_is_not_the_users_crisis() -> None:
    text = "my sister says her face is drooping"
    result = ToneDetector(danger=FakeDanger({text: [ACUTE]})).detect(text)
    assert result.level is not ToneLevel.CRISIS


def test_a_threat_frame_is_risk_evidence_for_the_head() -> None:
    """ "he said he'd kill me if I leave" names no risk term the head needs; the parse's threat frame is
    the evidence, so a head at 0.5 reads crisis; without the frame it changes nothing."""
    text = "he said he'd do it if I leave"
    threat = DangerFinding("threat", "he kill → me", acute=False)
    head = FakeHead({text: "crisis"}, share=0.5)
    assert ToneDetector(head=head).detect(text).level is ToneLevel.CONVERSATIONAL
    result = ToneDetector(head=head, danger=FakeDanger({text: [threat]})).detect(text)
    assert (result.level, result.stage, result.risk) == (ToneLevel.CRISIS, "head", ("threat: he kill → me",))


def test_a_mild_bodily_sign_alone_is_no_risk_evidence_but_lets_the_reading_ask() -> None:
    text = "so shaky today and my hands feel funny"
    shaky = DangerFinding("body", "shaky", acute=False)
    result = ToneDetector(
        head=FakeHead({text: "crisis"}, share=0.6), danger=FakeDanger({text: [shaky]})
    ).detect(text)
    assert (result.level, result.support) == (ToneLevel.CONCERN, CHECK_IN)


def test_an_arrangement_beside_a_risk_term_is_a_crisis() -> None:
    """ "ctb" is a risk term, not a cue; sorting one's affairs is an arrangement frame: together, a crisis
    even when the head hears calm."""
    text = "ctb soon, just sorting my affairs first"
    affairs = DangerFinding("ending", "sort → affair", acute=False)
    result = ToneDetector(
        head=FakeHead({text: "conversational"}, share=0.95), danger=FakeDanger({text: [affairs]})
    )
    assert result.detect(text).level is ToneLevel.CRISIS
    plain = "just sorting my affairs first"
    assert ToneDetector(danger=FakeDanger({plain: [affairs]})).detect(plain).level is ToneLevel.CONVERSATIONAL


def test_an_acute_threat_is_the_users_crisis_even_when_the_message_opens_on_someone() -> None:
    """The threat frame's target is the user by construction: "someone is breaking into my flat"."""
    text = "someone is trying to break into my flat right now"
    threat = DangerFinding("threat", "someone break → flat", acute=True)
    assert ToneDetector(danger=FakeDanger({text: [threat]})).detect(text).level is ToneLevel.CRISIS


def test_settled_texts_are_not_read_for_danger() -> None:
    danger = FakeDanger({NEGATED_OR_PAST[0]: [ACUTE]})
    result = ToneDetector(danger=danger).detect(NEGATED_OR_PAST[0])
    assert result.level is not ToneLevel.CRISIS and danger.calls == []


def test_a_failing_danger_reader_falls_back_to_lexicon_and_head() -> None:
    result = ToneDetector(danger=FakeDanger(fail=True)).detect(SIGNS)
    assert (result.stage, result.danger) == ("lexicon", ())


# -- the labelled set --------------------------------------------------------------------------------------
def test_labelled_set_has_the_required_shape() -> None:
    rows = load_labelled()
    levels = Counter(level for _, level, _ in rows)
    assert len(rows) >= 100
    assert all(levels[level] >= 10 for level in LEVELS), levels
    assert sum(1 for _, level, obs in rows if obs and level == "conversational") >= 25


def test_accuracy_on_the_labelled_set(detector: ToneDetector) -> None:
    """Floors just under what the lexicon reaches (docs/tone_eval.md: 176/181, crisis recall 31/32)."""
    rows = load_labelled()
    predicted = [(level, obs, level_of(detector, text)) for text, level, obs in rows]
    accuracy = sum(p == g for g, _, p in predicted) / len(rows)
    crisis = [p for g, _, p in predicted if g == "crisis"]
    observational = [(g, p) for g, obs, p in predicted if obs]
    assert accuracy >= 0.95
    assert crisis.count("crisis") / len(crisis) >= 0.95
    assert sum(g == p for g, p in observational) / len(observational) >= 0.95
    never_escalated = [p for g, obs, p in predicted if obs and g == "conversational"]
    assert set(never_escalated) == {"conversational"}


def test_a_very_long_message_is_read_by_its_head_and_tail(detector: ToneDetector) -> None:
    # Attribution costs cues x length: 15,000 repeated cues once took 40 s. Not a speed target, a hang guard.
    start = time.perf_counter()
    assert level_of(detector, "kill myself " * 15_000) == "crisis"
    assert level_of(detector, "hello there " * 20_000 + "I want to kill myself") == "crisis"
    assert time.perf_counter() - start < 10


# -- slang, rhetorical questions and the head-only vetoes (messages written here) ---------------------------
@pytest.mark.parametrize(
    "text",
    ["ctb tonight, sorry", "kms for real", "i sh'd again, it's deep", "pretty sure i od'd", "unalive myself"],
)
def test_crisis_slang_and_abbreviations_are_explicit_cues(text: str) -> None:
    assert ToneDetector().detect(text).level is ToneLevel.CRISIS


@pytest.mark.parametrize(
    "text", ["kms lol this traffic", "this lecture 💀 kms", "what does ctb mean in a chat?"]
)
def test_slang_laughed_at_or_asked_about_is_no_cue(text: str) -> None:
    assert ToneDetector().detect(text).level is not ToneLevel.CRISIS


def test_a_rhetorical_question_denies_a_reason_to_live() -> None:
    assert ToneDetector().detect("whats the point of being alive anyway").level is ToneLevel.CRISIS
    assert ToneDetector().detect("the point of being alive is the people you love").level is not (
        ToneLevel.CRISIS
    )


@pytest.mark.parametrize(
    "text",
    [
        "how do you treat a bee sting on a toddler",  # a question asked for knowledge
        "what should you do if someone faints on the bus",
        "scalded my hand on the kettle, ouch",  # an everyday cause
        "legs like jelly after the gym",
        "gonna drive my car into a tree tonight lol see ya",  # a risk only implied: asked about, not alarmed
    ],
)
def test_a_head_only_crisis_names_no_risk(text: str) -> None:
    """The head's sure crisis vote, and nothing in the words that states a risk: no crisis."""
    result = ToneDetector(head=FakeHead({text: "crisis"}, share=0.97)).detect(text)
    assert result.level is not ToneLevel.CRISIS and result.support != CRISIS_SUPPORT


def test_a_risk_told_in_the_past_is_no_evidence() -> None:
    """Past framing reads the same for risk terms as for cues ("used to", "a year ago")."""
    text = "a year ago i tried to end things, now i'm sober and happy"
    result = ToneDetector(head=FakeHead({text: "crisis"}, share=0.97)).detect(text)
    assert result.level is not ToneLevel.CRISIS


def test_a_risk_beside_an_errand_or_a_joke_still_counts() -> None:
    text = "whats a good mouthwash for bad breath lol. also been vomiting blood for an hour"
    assert ToneDetector(head=FakeHead({text: "crisis"}, share=0.6)).detect(text).level is ToneLevel.CRISIS


def test_asking_about_dying_or_an_explicit_cue_is_read_as_said() -> None:
    asked = "how many of these would it take to die"  # dying named: a risk said of the user
    assert ToneDetector(head=FakeHead({asked: "crisis"}, share=0.85)).detect(asked).level is ToneLevel.CRISIS
    told = "i cut myself after the gym"  # an explicit cue needs no head
    assert ToneDetector().detect(told).level is ToneLevel.CRISIS


def test_slang_quoted_from_someone_else_is_no_cue() -> None:
    assert ToneDetector().detect("my cousin said kms at dinner, weird vibe").level is not ToneLevel.CRISIS
    assert ToneDetector().detect("honestly kms, can't do this anymore").level is ToneLevel.CRISIS


@pytest.mark.parametrize(
    "text",
    [
        "theres a fire at our school and i'm trapped in the lab",  # a place the user is at, told: no purpose
        "bitten by something while hiking and my whole leg is going numb",  # "while hiking" sets the scene
    ],
)
def test_a_place_or_a_scene_keeps_the_risk_said_there(text: str) -> None:
    assert ToneDetector(head=FakeHead({text: "crisis"}, share=0.85)).detect(text).level is ToneLevel.CRISIS


@pytest.mark.parametrize(
    "text",
    [
        "how do they teach first aid at our school?",  # the same place, in a question
        "ate five donuts and now my heart is racing lmao",  # laughter
    ],
)
def test_a_question_about_a_place_or_laughter_names_no_risk(text: str) -> None:
    assert (
        ToneDetector(head=FakeHead({text: "crisis"}, share=0.85)).detect(text).level is not ToneLevel.CRISIS
    )


@pytest.mark.parametrize(
    ("with_term", "without"),
    [
        ("stung by something and my lips feel weird", "my lips feel weird"),  # venom and allergy
        ("stuck in the car and there's smoke everywhere", "stuck in traffic and running late"),  # entrapment
        ("soaking wet up on the moor and so sleepy", "up on the moor and so sleepy"),  # exposure
        ("being chased by two guys", "two guys on the bus were loud"),  # pursuit
    ],
)
def test_emergency_causes_are_risk_terms_for_a_less_sure_head(with_term: str, without: str) -> None:
    """A crisis vote of 0.6 counts with a risk term of these classes; without one it changes nothing."""
    votes = {with_term: "crisis", without: "crisis"}
    assert ToneDetector(head=FakeHead(votes, share=0.6)).detect(with_term).level is ToneLevel.CRISIS
    assert ToneDetector(head=FakeHead(votes, share=0.6)).detect(without).level is ToneLevel.CONVERSATIONAL


def test_the_support_text_is_appended_unless_the_answer_already_points_where_it_does() -> None:
    assert support_addendum("I'm here with you.", CRISIS_SUPPORT) == "\n\n" + CRISIS_SUPPORT
    assert support_addendum("Please call or text 988 now.", CRISIS_SUPPORT) == ""
    assert support_addendum("Fine.", None) == ""
    # someone in the user's care: a crisis line is not what they need, an emergency number is
    assert support_addendum("Text 988.", CARE_EMERGENCY_SUPPORT) == "\n\n" + CARE_EMERGENCY_SUPPORT
    assert support_addendum("Call 999 now and start CPR.", CARE_EMERGENCY_SUPPORT) == ""


def test_a_check_in_is_appended_only_when_the_reply_asks_nothing() -> None:
    assert support_addendum("Here is the recipe.", CHECK_IN) == "\n\n" + CHECK_IN
    assert support_addendum("Here it is. How has your week been?", CHECK_IN) == ""


# Outside English: the tone head is not consulted (MiniLM reads English only); the multilingual head is.
GERMAN_RISK = "ich kann nicht mehr, heute nacht mache ich allem ein ende"
JAPANESE_RISK = "今日は一日中ずっと部屋にいて、誰とも話していない。"  # in a script without spaces


@pytest.mark.parametrize("text", [GERMAN_RISK, JAPANESE_RISK])
def test_the_other_language_heads_crisis_reading_asks_and_never_alarms(text: str) -> None:
    """No word list or parse reads these languages, so what the head hears is a reason to ask: concern, one
    check-in question, no crisis and no hotline text, whatever its value."""
    for share in (0.7, 1.0):
        result = ToneDetector(multilingual=FakeHead({text: "crisis"}, share=share)).detect(text)
        assert (result.level, result.support, result.evidence) == (ToneLevel.CONCERN, CHECK_IN, ())
        assert result.unsure is not None and "multilingual" in result.unsure
        assert result.head is not None and result.head["crisis"] == share


def test_the_other_language_head_below_its_bar_changes_nothing() -> None:
    result = ToneDetector(multilingual=FakeHead({GERMAN_RISK: "crisis"}, share=0.6)).detect(GERMAN_RISK)
    assert (result.level, result.support, result.unsure) == (ToneLevel.CONVERSATIONAL, None, None)


def test_the_other_language_head_reads_neither_english_nor_a_few_words() -> None:
    """English goes to the English readers; two words give a head too little to read ("the end")."""
    other = FakeHead({NO_SIGNAL: "crisis", "alles vorbei": "crisis"}, share=1.0)
    detector = ToneDetector(head=FakeHead(), multilingual=other)
    assert detector.detect(NO_SIGNAL).level is ToneLevel.CONVERSATIONAL
    assert detector.detect("alles vorbei").level is ToneLevel.CONVERSATIONAL
    assert other.calls == []


def test_an_explicit_statement_in_another_language_stays_a_crisis_without_the_head() -> None:
    other = FakeHead(fail=True)
    result = ToneDetector(multilingual=other).detect("ya no quiero vivir")
    assert result.level is ToneLevel.CRISIS and result.evidence and other.calls == []


def test_a_failing_other_language_head_never_breaks_the_reading() -> None:
    result = ToneDetector(multilingual=FakeHead(fail=True)).detect(GERMAN_RISK)
    assert (result.level, result.support) == (ToneLevel.CONVERSATIONAL, None)

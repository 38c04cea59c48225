"""Danger frames read from the dependency parse: grammar, not phrases, for risk the lexicon cannot list.

A message in crisis often names no crisis word at all: "my face is drooping and my arm is numb", "chugged
antifreeze 20 minutes ago", "he said he'd kill me if I leave". What makes these dangerous is who does what to
whom, when: an attack whose object is the user, a sign in the user's own body now, an act the user does to
themself, an excess of a medicine the user has just taken, arrangements for not being here. Each frame is a
small class of lemmas (a handful per role; the classes live in data/tone/danger.toml) joined by the parse
(spaCy, `core.nlp.SpacyPipeline`):

- ``threat``: an attack verb whose object is the user ("he'll stab me", "a man following me", "coming for me")
  and whose subject is a person, not the user, "you" or a thing ("this deadline is killing me").
- ``body``: a sign of the user's own body in the present ("my lips are swelling", "can't breathe", "bleeding
  heavily", "it won't stop bleeding"); one severe sign or two milder ones make it acute.
- ``self_injury``: an injuring verb whose object is "myself", or a deliberate one into the user's body ("I
  carved into my thigh").
- ``ingestion``: the user took, swallowed or drank a poison or an excess of a medicine ("a whole packet",
  "like 30 of", "too many", "double my dose").
- ``ending``: arrangements for not being here (sorting one's affairs, updating a will, giving things away,
  "won't need it after this weekend"); never acute alone.

The parse also says when a frame must not fire: negated ("I didn't take too many"), asked for information
("how many paracetamol can I take?"), hypothetical ("if I cut myself"), someone else's act ("she cut
herself"), a settled past ("I used to cut myself, three years clean", "hit my head, I feel fine now"),
joking or a game ("lol", "my character"), or an arrangement with an ordinary reason ("because I'm moving").

An *acute* finding is evidence enough for a crisis; the others are evidence that lets the tone head's crisis
vote count (see `core.pipeline.tone`).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Protocol

from core.pipeline import tone_lexicon as lex
from core.pipeline.word_lists import word_lists, words


class Parser(Protocol):
    """What the reader needs from `core.nlp.SpacyPipeline`: text in, a spaCy `Doc` out."""

    def __call__(self, text: str, *, disable: tuple[str, ...] = ()) -> Any: ...


@dataclass(frozen=True)
class DangerFinding:
    """One frame found: its name, the words that make it ("kill → me") and whether it is acute."""

    frame: str
    evidence: str
    acute: bool

    def __str__(self) -> str:
        return f"{self.frame}{' (acute)' if self.acute else ''}: {self.evidence}"


# -- word classes (lemmas, and the lower-cased forms the small model lemmatises oddly) ---------------------
# The words, each class with why it is there, live in data/tone/danger.toml; only the classes built from
# others are composed here.
_W = word_lists("danger")
SELF = words(_W["self"])
REFLEXIVE = words(_W["reflexive"])
THEY = words(_W["they"])
ATTACK = words(_W["attack"])
PURSUIT = words(_W["pursuit"])
ATTEMPT = words(_W["attempt"])
SURFACES = words(_W["surfaces"])
PERSUADE = words(_W["persuade"])
WOUNDING = words(_W["wounding"])
PERSON_NOUNS = lex.THIRD_PARTY_NOUNS | words(_W["person_nouns"])
INJURE = words(_W["injure"])
DELIBERATE_INJURE = words(_W["deliberate_injure"])
SHARP = words(_W["sharp"])
BODY = words(_W["body"])
SEVERE_SIGNS = words(_W["severe_signs"])
SEVERE_BODY_SIGNS = words(_W["severe_body_signs"])
MILD_SIGNS = words(_W["mild_signs"])
MILD_BODY_SIGNS = words(_W["mild_body_signs"])
PANIC_SIGNS = words(_W["panic_signs"]) | frozenset(_W["panic_sign_phrases"])
EMOTION = words(_W["emotion"])
HEAVY = words(_W["heavy"])
INGEST = words(_W["ingest"])
MEDICINE = words(_W["medicine"])
POISON = words(_W["poison"])
EXCESS = words(_W["excess"])
ALCOHOL = words(_W["alcohol"])
CONDITIONS = words(_W["conditions"])
VENOMOUS = words(_W["venomous"])
SEVERE_PAIN = words(_W["severe_pain"])
ARRANGE = words(_W["arrange"])
ARRANGEMENTS = words(_W["arrangements"])
PART_WITH = words(_W["part_with"])
QUESTION_WORDS = words(_W["question_words"])
CONDITIONAL = words(_W["conditional"])
JOKING = words(_W["joking"])
DISTANT_PAST = words(_W["distant_past"])
ORDINARY_CAUSES = words(_W["ordinary_causes"])
RECOVERED = words(_W["recovered"])
REASONS = words(_W["reasons"])
ACCIDENT = words(_W["accident"])
LOST_FUNCTIONS = words(_W["lost_functions"])
FORCE = words(_W["force"])
ENTRIES = words(_W["entries"])
RECENT_PAST = words(_W["recent_past"])
PLAY = words(_W["play"])
WOUND_MARKS = words(_W["wound_marks"])
MARKS_FRESH = words(_W["marks_fresh"])
SOUGHT_INJURE = words(_W["sought_injure"])
CUTTING = words(_W["cutting"])
HEAT = words(_W["heat"])
MARK_CAUSES = words(_W["mark_causes"])
PAIN_SOUGHT = words(_W["pain_sought"])
PRIVATE_SPACES = words(_W["private_spaces"])
UNKNOWN = words(_W["unknown"])
TRY_ENTRY = words(_W["try_entry"])
GUNFIRE = words(_W["gunfire"])
NOT_GUNFIRE = words(_W["not_gunfire"])
WOUNDS = words(_W["wounds"])
HELD = words(_W["held"])
SHAVING = words(_W["shaving"])
# Short fragments are read by their words alone in a message of at most FRAGMENT_WORDS words.
FRAGMENT_WORDS = 8
URGENT = words(_W["urgent"])
NOW = words(_W["now"])
WEAPONS = words(_W["weapons"])
VIOLENCE_NOW = words(_W["violence_now"])
DRIVERS = words(_W["drivers"])
GROUPS = words(_W["groups"])
EDGE_OF = words(_W["edge_of"])
HEIGHT_PLACES = words(_W["height_places"])
ONLINE = words(_W["online"])
HEIGHTS = words(_W["heights"])
EDGES = words(_W["edges"])
HAZARD_SIGNS = words(_W["hazard_signs"])
FOR_OTHERS = words(_W["for_others"])
ORDINARY = words(_W["ordinary"])
NEGATED_SIGNS = LOST_FUNCTIONS | words(_W["negated_signs"])
IN_MY_CARE = words(_W["in_my_care"])
CARE_SIGNS = words(_W["care_signs"])
REPORTED = words(_W["reported"])
RESTING_PLACES = words(_W["resting_places"])
NEGATED_CARE_SIGNS = frozenset(_W["negated_care_signs"])
SWALLOWED_HARM = POISON | words(_W["swallowed_harm"])


def _is(tok: Any, words: frozenset[str]) -> bool:
    """The token's lemma or its lower-cased form is in `words` (the small model lemmatises slang oddly)."""
    return tok.lemma_.lower() in words or tok.lower_ in words


class DangerReader:
    """Reads the danger frames of one message from its parse (one spaCy call: ~8 ms p50 for a chat message
    on the 2-core test machine under load)."""

    def __init__(self, nlp: Parser) -> None:
        self._nlp = nlp

    def read(self, text: str) -> tuple[DangerFinding, ...]:
        """The frames found in `text`, of the user and in force now; empty for a calm or settled message."""
        if not text.strip():
            return ()
        doc = self._nlp(text, disable=("ner",))
        if _joking_or_fiction(doc):
            return ()
        found: list[DangerFinding] = [f for sentence in doc.sents for f in _ingestion(sentence)]
        found.extend(_relapse(doc))
        found.extend(_marks(doc))
        found.extend(_blade_readied(doc))
        # "I feel fine" settles a bump or an attack, not something swallowed: an overdose often feels fine
        # at first.
        if not _recovered(doc):
            for sentence in doc.sents:
                readers = (
                    _threats,
                    _gunfire,
                    _intruder,
                    _self_injury,
                    _heat_held,
                    _means_held,
                    _ending,
                    _edge,
                )
                for reader in readers:
                    found.extend(reader(sentence))
            found.extend(_body(doc))
            found.extend(_fragment(doc, text))
        found.extend(_in_my_care(doc))
        return _combined(found)


def _combined(found: list[DangerFinding]) -> tuple[DangerFinding, ...]:
    """Distinct findings; a milder bodily sign after something taken is acute ("took too much, my heart is
    racing")."""
    frames = {f.frame for f in found}
    if {"ingestion", "body"} <= frames:
        found = [
            DangerFinding(f.frame, f.evidence, True) if f.frame in ("ingestion", "body") else f for f in found
        ]
    return tuple(dict.fromkeys(found))


# -- the frames ------------------------------------------------------------------------------------------
def _threats(sentence: Any) -> Iterator[DangerFinding]:
    """An attack on the user by a person: "he said he'd kill me", "a man following me", "coming for me";
    or told in the passive ("I've been stabbed": acute for a blade or a gun)."""
    for tok in sentence:
        if not _in_force(tok, settled_past=True):
            continue
        entry = _forced_entry(tok) or _entry_attempt(tok) or _locked_in(tok)
        if entry is not None:
            yield entry
            continue
        if _is(tok, ATTACK) and _passive_of_me(tok):
            if not any(c.dep_ == "prt" for c in tok.children):  # "shot down"
                # "I've been stabbed"; "being chased rn", "I'm being followed": under way now
                now = any(c.dep_ == "auxpass" and c.lower_ == "being" for c in tok.children)
                yield DangerFinding("threat", f"{tok.lower_} (me)", acute=_is(tok, WOUNDING) or now)
            continue
        target = _attack_target(tok)
        agent = _subject(tok, through=("xcomp", "conj", "aux")) if target is not None else None
        if agent is None or not _is_person(agent) or (tok.lemma_ in PURSUIT and tok.tag_ != "VBG"):
            continue
        if tok.lemma_ in PURSUIT and (
            any(_is(t, ONLINE) for t in tok.doc) or any(c.lower_ == "for" for c in tok.children)
        ):
            continue  # "following me on instagram", "chasing me for the invoice"
        # Acute: an attack under way or threatened ("he's hitting me", "says he'll hurt me", "a man following
        # me", "breaking into my flat") or with a blade, a gun, strangling (no one says "my ex is going to
        # stab me" in jest); "killing me" is hyperbole and a threat to kill said of a parent or a boss is
        # often a joke, so the head decides those, and a past attack.
        now = tok.tag_ == "VBG" or _future(tok) or (tok.dep_ == "xcomp" and tok.head.tag_ == "VBG")
        acute = (now and tok.lemma_ not in ("kill", "murder")) or _is(tok, WOUNDING) or _rampage(tok)
        yield DangerFinding("threat", f"{agent.lower_} {tok.lemma_} → {target.lower_}", acute=acute)


def _forced_entry(tok: Any) -> DangerFinding | None:
    """A person forcing a door or a window: "he just broke the window", "someone kicked in the front door".
    Acute unless told as yesterday's or last week's, or as play ("broke the window with a football")."""
    if not _is(tok, FORCE):
        return None
    targets = [c for c in tok.children if c.dep_ == "dobj"]
    targets += [g for c in tok.children if c.dep_ == "prep" for g in c.children if g.dep_ == "pobj"]
    door = next((t for t in targets if _is(t, ENTRIES) and _mine(t)), None)
    if (
        door is None
        and tok.lemma_ == "break"
        and any(c.dep_ == "prt" and c.lower_ == "in" for c in tok.children)
    ):
        door = tok  # "someone broke in while I was asleep"
    agent = _subject(tok, through=("xcomp", "conj", "aux"))
    if door is None or agent is None or not _is_person(agent) or any(_is(t, PLAY) for t in tok.doc):
        return None
    acute = not any(_is(t, RECENT_PAST) for t in tok.sent)
    return DangerFinding("threat", f"{agent.lower_} {tok.lemma_} → {door.lower_}", acute=acute)


def _rampage(tok: Any) -> bool:
    """A threat to kill told beside violence under way ("dad is smashing up the kitchen and screaming he'll
    kill us"): no longer a figure of speech."""
    return tok.lemma_ in ("kill", "murder") and any(
        t.tag_ == "VBG" and _is(t, VIOLENCE_NOW) and t.i != tok.i for t in tok.doc
    )


def _urged(child: Any) -> bool:
    """A push towards something to do or reach ("to apply", "to our limits"), not onto a surface ("pushed me
    to the ground")."""
    if child.dep_ in ("xcomp", "ccomp", "advcl"):
        return True
    if child.dep_ == "prep" and child.lower_ == "to":
        return not any(_is(g, SURFACES) for g in child.children)
    return False


def _passive_of_me(tok: Any) -> bool:
    """An attack verb in the passive said of the user ("I've been stabbed") or of no one named, as texting
    drops the subject ("being chased rn"); an agent, if named, is a person ("chased by deadlines" is not)."""
    if not any(c.dep_ in ("auxpass", "nsubjpass") for c in tok.children):
        return False
    subjects = [c for c in tok.children if c.dep_ in ("nsubj", "nsubjpass")]
    if subjects and not all(c.lower_ in SELF for c in subjects):
        return False
    agents = [g for c in tok.children if c.dep_ == "agent" for g in c.children if g.dep_ == "pobj"]
    return all(_is_person(a) for a in agents)


def _locked_in(tok: Any) -> DangerFinding | None:
    """A person locking the user in ("he locked me in the bedroom"), or a driver or a stranger locking the
    doors on them ("the taxi driver isn't going to my address, he locked the doors"); not "locked myself
    out", not yesterday's."""
    if (
        tok.lemma_ != "lock"
        or not _in_force(tok, settled_past=True)
        or any(_is(t, RECENT_PAST) for t in tok.sent)
    ):
        return None
    agent = _subject(tok, through=("xcomp", "conj", "aux"))
    person = agent is not None and (_is_person(agent) or _is(agent, DRIVERS))
    if not person or any(_is(t, PLAY | {"prank", "joke"}) for t in tok.doc):
        return None
    objects = [c for c in tok.children if c.dep_ == "dobj"]
    inside = any(c.lower_ == "in" for c in tok.children)
    if inside and any(o.lower_ in ("me", "us") for o in objects):
        return DangerFinding("threat", f"{agent.lower_} lock → me in", acute=True)
    driver = _unknown(agent) or agent.lemma_.lower() in DRIVERS or _driver_named(tok.doc)
    mine = any(t.lower_ in ("me", "my", "i") for t in tok.doc)
    if driver and mine and any(o.lemma_.lower() == "door" for o in objects):
        return DangerFinding("threat", f"{agent.lower_} lock → doors", acute=True)
    return None


def _driver_named(doc: Any) -> bool:
    """A driver is the person the message is about ("the Uber driver ..., he locked the doors")."""
    return any(t.lemma_.lower() in DRIVERS and t.dep_ in ("nsubj", "nsubjpass") for t in doc)


def _unknown(person: Any) -> bool:
    """Someone the user does not know: "someone", "a stranger", "some guy", "a man"."""
    if person.lower_ in ("someone", "somebody", "stranger", "strangers"):
        return True
    return _is(person, UNKNOWN) and any(
        c.dep_ == "det" and c.lower_ in ("a", "an", "some", "this") for c in person.children
    )


def _entry_attempt(tok: Any) -> DangerFinding | None:
    """An unknown person trying to get into the user's car or home: "a stranger is trying my car door",
    "some guy keeps banging on my window" (a neighbour knocking is not)."""
    if not _is(tok, TRY_ENTRY):
        return None
    targets = [c for c in tok.children if c.dep_ == "dobj"]
    targets += [g for c in tok.children if c.dep_ == "prep" for g in c.children if g.dep_ == "pobj"]
    door = next((t for t in targets if _is(t, ENTRIES) and _mine(t)), None)
    agent = _subject(tok, through=("xcomp", "conj", "aux"))
    if door is None or agent is None or not _unknown(agent) or any(_is(t, RECENT_PAST) for t in tok.sent):
        return None
    return DangerFinding("threat", f"{agent.lower_} {tok.lemma_} → {door.lower_}", acute=True)


def _gunfire(sentence: Any) -> Iterator[DangerFinding]:
    """Gunfire where the user is, now: "someone is shooting outside my house", "active shooter at my school,
    I'm hiding" (not a film shoot, a drill, hoops, a game, or last night's news)."""
    doc = sentence.doc
    if any(_is(t, NOT_GUNFIRE) or _is(t, RECENT_PAST) for t in doc):
        return
    for tok in sentence:
        shooting = (
            tok.lemma_ == "shoot"
            and tok.tag_ == "VBG"
            and not any(c.dep_ in ("dobj", "prt") for c in tok.children)
        )
        if (shooting or _is(tok, GUNFIRE)) and _in_force(tok, settled_past=True) and _near_user(tok):
            yield DangerFinding("threat", f"{tok.lower_} near me", acute=True)
            return


def _near_user(tok: Any) -> bool:
    """The event is at a place of the user's ("outside my house", "at our school") or the user is hiding."""
    places = [g for c in tok.subtree if c.dep_ == "prep" for g in c.children if g.dep_ == "pobj"]
    if any(c.lower_ in ("my", "our") for p in places for c in p.children) or any(
        p.lower_ == "here" for p in places
    ):
        return True
    return any(
        t.lemma_ == "hide" and any(c.dep_ == "nsubj" and c.lower_ in SELF for c in t.children)
        for t in tok.doc
    )


def _intruder(sentence: Any) -> Iterator[DangerFinding]:
    """An unknown person inside a space of the user's own, now: "there's a guy in my backseat", "someone is
    in my house" (not "a guy in my class", nor someone there to do a job: "a man in my house fixing the
    boiler")."""
    for tok in sentence:
        if tok.lemma_ != "be" or tok.tag_ in ("VBD", "VBN") or not _in_force(tok, settled_past=True):
            continue
        role = "attr" if any(c.dep_ == "expl" for c in tok.children) else "nsubj"
        for person in (c for c in tok.children if c.dep_ == role and _unknown(c)):
            preps = [
                c
                for c in (*person.children, *tok.children)
                if c.dep_ == "prep" and c.lower_ in ("in", "inside")
            ]
            spaces = [g for p in preps for g in p.children if g.dep_ == "pobj" and _is(g, PRIVATE_SPACES)]
            mine = any(c.lower_ in ("my", "our") for g in spaces for c in g.children)
            doing = any(c.dep_ in ("acl", "relcl") for c in person.children)
            if mine and not doing:
                yield DangerFinding("threat", f"{person.lower_} in my {spaces[0].lower_}", acute=True)
                return


def _future(tok: Any) -> bool:
    """Said of what is to come: "he'll hurt me", "is going to hit me", "gonna", "about to"."""
    if any(c.dep_ == "aux" and c.lower_ in ("will", "'ll", "wo", "shall", "gon") for c in tok.children):
        return True
    going = tok.head.lemma_ == "go" and tok.head.tag_ == "VBG"
    return tok.dep_ == "xcomp" and (going or tok.head.lower_ == "about")


def _attack_target(tok: Any) -> Any:
    """The user as the object of an attack verb ("kill me"), or of "come for/after me"."""
    if _is(tok, ATTACK) and not any(c.dep_ == "prt" for c in tok.children):  # "hit me up"
        # "a team to push us" encourages; "tried to push me", "going to push me" attack
        infinitive = any(c.dep_ == "aux" and c.lower_ == "to" for c in tok.children) and (
            tok.head.lemma_ not in ATTEMPT
        )
        if tok.lemma_ in PERSUADE and (infinitive or any(_urged(c) for c in tok.children)):
            return (
                None  # "she pushed me to apply", "pushed us to our limits", "a team to push us": persuasion
            )
        return next((c for c in tok.children if c.dep_ == "dobj" and c.lower_ in ("me", "us")), None)
    if tok.lemma_ == "come":
        for prep in tok.children:
            if prep.dep_ == "prep" and prep.lower_ in ("for", "after"):
                return next((c for c in prep.children if c.lower_ in ("me", "us")), None)
    if tok.lemma_ == "break":  # "trying to break into my flat": the user's home is the target
        for prep in tok.children:
            if prep.dep_ == "prep" and prep.lower_ in ("into", "in"):
                return next((c for c in prep.children if _mine(c) and c.dep_ == "pobj"), None)
    return None


def _self_injury(sentence: Any) -> Iterator[DangerFinding]:
    """The user injuring themself: "cut myself", "burning my arm with a lighter", "carved into my thigh"."""
    for tok in sentence:
        injuring = _is(tok, INJURE | DELIBERATE_INJURE) and tok.pos_ == "VERB"
        if not injuring or not _in_force(tok, settled_past=True):
            continue
        subject = _subject(tok)
        if subject is not None and subject.lower_ not in SELF:
            continue
        objects = [c for c in tok.children if c.dep_ in ("dobj", "pobj")]
        objects += [g for c in tok.children if c.dep_ == "prep" for g in c.children if g.dep_ == "pobj"]
        sought = _sought(tok)
        if _accident(tok) and not sought:
            continue
        if any(o.lower_ in REFLEXIVE for o in objects):
            yield DangerFinding("self_injury", f"{tok.lemma_} → myself", acute=True)
        elif any(_my_body_part(o) for o in objects) and (_deliberate(tok) or sought):
            yield DangerFinding("self_injury", f"{tok.lemma_} → my body", acute=True)


def _sought(tok: Any) -> bool:
    """An injury the user wants or needs to do, or is about to do for the pain: "I want to burn my arm",
    "need to feel pain rn. going to burn my arm on the stove" (a bang or a punch is left to the other checks:
    "I want to bang my head against the wall" is a figure of speech)."""
    if not _is(tok, SOUGHT_INJURE):
        return False
    if tok.dep_ == "xcomp" and tok.head.lemma_ in ("want", "need", "wanna"):
        return True
    # "about to cut my arm"; "going to burn my arm" only for the pain or now (else it may be a warning)
    return _future(tok) and (_is(tok, CUTTING) or any(_is(t, PAIN_SOUGHT | NOW) for t in tok.doc))


def _heat_held(sentence: Any) -> Iterator[DangerFinding]:
    """A body part of the user's held to something hot for the pain or on purpose: "holding my hand under
    the boiling tap on purpose", "keeping my arm over the flame rn"."""
    if not any(_is(t, PAIN_SOUGHT | NOW | {"purpose"}) for t in sentence.doc):
        return
    for tok in sentence:
        if tok.lemma_ not in ("hold", "put", "keep", "press") or not _in_force(tok, settled_past=True):
            continue
        subject = _subject(tok)
        parts = [c for c in tok.children if c.dep_ == "dobj" and _my_body_part(c)]
        places = [g for c in tok.children if c.dep_ == "prep" for g in c.subtree]
        if (subject is None or subject.lower_ in SELF) and parts and any(_is(g, HEAT) for g in places):
            yield DangerFinding("self_injury", f"{tok.lemma_} {parts[0].lower_} → heat", acute=True)
            return


def _marks(doc: Any) -> Iterator[DangerFinding]:
    """Self-injury told by its marks on the user's body, fresh and wanted again: "my arm is covered in fresh
    cuts and i want more", "barcode arm again, fresh" (not marks someone or something else left, nor a
    question)."""
    if any(_is(t, MARK_CAUSES) for t in doc) or _names_someone_else(doc):
        return
    marks = [t for t in doc if _is(t, WOUND_MARKS) and t.pos_ in ("NOUN", "PROPN", "ADJ")]
    fresh = {t.lower_ for t in doc if _is(t, MARKS_FRESH)}
    body = any(_my_body_part(t) for t in doc)
    if marks and body and len(fresh) >= 2 and all(_in_force(m, settled_past=True) for m in marks):
        yield DangerFinding("self_injury", f"{marks[0].lower_}, {' + '.join(sorted(fresh))}", acute=True)


def _blade_readied(doc: Any) -> Iterator[DangerFinding]:
    """A blade taken out of something, to be used now with no other purpose: "took apart my sharpener for
    the blade, going to use it tonight" (not "... to open the parcels", not to shave)."""
    blade = any(t.lemma_.lower() == "blade" for t in doc)
    taken_out = any(t.lower_ in ("apart", "out") for t in doc)
    if not blade or not taken_out or any(_is(t, SHAVING) for t in doc):
        return
    for tok in doc:
        if tok.lemma_ != "use" or not _in_force(tok, settled_past=True):
            continue
        subject = _subject(tok)
        if subject is not None and subject.lower_ not in SELF:
            continue
        purpose = any(c.dep_ in ("xcomp", "advcl", "prep") for c in tok.children)
        soon = _future(tok) or any(_is(t, NOW) or t.lower_ == "tonight" for t in tok.subtree)
        if soon and not purpose:
            yield DangerFinding("self_injury", "blade → use now", acute=True)
            return


def _relapse(doc: Any) -> Iterator[DangerFinding]:
    """Self-injury done again, told with a wound: "did it again 🩸", "relapsed, think i need stitches"."""
    if not any(_is(t, WOUNDS) for t in doc) and "🩸" not in doc.text:
        return
    for tok in doc:
        again = tok.lemma_ == "do" and {"it", "again"} <= {c.lower_ for c in tok.children}
        if (again or tok.lemma_ == "relapse") and _in_force(tok, settled_past=True):
            subject = _subject(tok)
            # "did it again 🩸": the small model may take "it" or the emoji for the subject
            if subject is None or subject.lower_ in SELF | {"it"} or not subject.is_alpha:
                yield DangerFinding("self_injury", f"{tok.lower_} again + wound", acute=True)
                return


def _means_held(sentence: Any) -> Iterator[DangerFinding]:
    """A blade or razor in the user's hand again, or got out: "got the blade in my hand again", "got the razor
    out" (not to shave)."""
    if any(_is(t, SHAVING) for t in sentence.doc):
        return
    for tok in sentence:
        if not _is(tok, HELD) or not _in_force(tok, settled_past=True):
            continue
        subject = _subject(tok)
        if subject is not None and subject.lower_ not in SELF:
            continue
        means = [c for c in tok.children if c.dep_ == "dobj" and c.lemma_.lower() in ("blade", "razor")]
        words = {t.lower_ for t in tok.subtree} | {c.lower_ for c in tok.children}
        if means and ("again" in words or "out" in words or {"my", "hand"} <= words):
            yield DangerFinding("self_injury", f"{tok.lemma_} → {means[0].lower_}", acute=True)


def _accident(tok: Any) -> bool:
    """An injury while doing something else ("cut myself shaving"), by accident, or against a thing it met
    ("banged my head on the cupboard door again"), unless done on purpose."""
    doing = any(c.dep_ in ("advcl", "xcomp") and c.tag_ == "VBG" for c in tok.children)
    if doing or any(_is(t, ACCIDENT) for t in tok.sent):
        return True
    bumped = any(
        prep.lower_ in ("on", "into") and not _is(thing, BODY)
        for prep in tok.children
        if prep.dep_ == "prep"
        for thing in prep.children
        if thing.dep_ == "pobj"
    )
    return bumped and not any(t.lower_ == "purpose" for t in tok.sent)


def _deliberate(tok: Any) -> bool:
    """An injury done on purpose: a deliberate verb, a sharp instrument, "on purpose", "again", "deeper", or
    one the user cannot stop ("I keep slamming my head against the wall and I can't stop")."""
    if _is(tok, DELIBERATE_INJURE) or any(_is(t, SHARP | {"purpose", "again", "deep"}) for t in tok.sent):
        return True
    return any(t.lemma_ == "stop" and _cannot(t) for t in tok.sent)


def _ingestion(sentence: Any) -> Iterator[DangerFinding]:
    """The user took a poison or an excess of a medicine: "took a whole packet of paracetamol"."""
    for tok in sentence:
        if not _is(tok, INGEST) or not _in_force(tok, settled_past=True):
            continue
        subject = _subject(tok) if tok.dep_ != "amod" else None  # "mixed xanax and alcohol"
        if subject is not None and subject.lower_ not in SELF:
            continue
        what = _taken(tok)
        words = {w for t in what for w in (t.lemma_.lower(), t.lower_)}
        if words & POISON:
            yield DangerFinding("ingestion", f"{tok.lower_} {sorted(words & POISON)[0]}", acute=True)
        elif words & MEDICINE and (words & EXCESS or any(_number(t.text) >= 8 for t in what)):
            yield DangerFinding(
                "ingestion", f"{tok.lower_} too much {sorted(words & MEDICINE)[0]}", acute=True
            )
        elif words & MEDICINE and words & ALCOHOL:
            yield DangerFinding("ingestion", f"{tok.lower_} with alcohol", acute=True)
        elif {"too", "much"} <= words or {"too", "many"} <= words:
            yield DangerFinding("ingestion", f"{tok.lower_} too much", acute=False)


def _taken(tok: Any) -> list[Any]:
    """What was taken: the verb's subtree after it, or, where the small model misparses a fragment
    ("chugged antifreeze 20 minutes ago"), the words after it up to the clause's end."""
    after = [t for t in tok.subtree if t.i > tok.i]
    for t in tok.doc[tok.i + 1 : tok.i + 9]:
        if t.is_punct or t.dep_ == "cc":
            break
        after.append(t)
    if tok.dep_ == "amod":
        after += [t for t in tok.head.subtree if t.i > tok.i]
    return after


def _number(text: str) -> float:
    try:
        return float(text.replace(",", ""))
    except ValueError:
        return 0.0


def _ending(sentence: Any) -> Iterator[DangerFinding]:
    """Arrangements for not being here: "sorting my affairs", "giving away my things", "won't need it
    after this weekend"."""
    for tok in sentence:
        if tok.pos_ not in ("VERB", "AUX") or _has_reason(tok) or _asked(tok) or _conditional(tok):
            continue
        subject = _subject(tok)
        if subject is not None and subject.lower_ not in SELF:
            continue
        objects = {c.lemma_.lower() for c in tok.children if c.dep_ in ("dobj", "attr")}
        if tok.lemma_ in ARRANGE and objects & ARRANGEMENTS and _mine(tok):
            yield DangerFinding("ending", f"{tok.lemma_} → {sorted(objects & ARRANGEMENTS)[0]}", acute=False)
        elif tok.lemma_ in PART_WITH and (_particle(tok, "away") or tok.lemma_ != "give") and _mine(tok):
            yield DangerFinding("ending", f"{tok.lemma_} → my things", acute=False)
        elif tok.lemma_ == "need" and _negated(tok) and _will(tok) and (_has_time(tok) or _gift(tok.doc)):
            yield DangerFinding("ending", "won't need → after", acute=False)


def _has_object(tok: Any) -> bool:
    return any(c.dep_ == "dobj" for c in tok.children)


def _edge(sentence: Any) -> Iterator[DangerFinding]:
    """The user on the edge of a height, now: "I'm on the edge of the car park roof", "standing at the top of
    the quarry" ("on the edge of my seat" is a figure of speech; a view or a party is an ordinary purpose)."""
    if any(_is(t, ORDINARY) for t in sentence.doc):
        return
    for tok in sentence:
        if tok.pos_ not in ("VERB", "AUX") or not _in_force(tok, settled_past=True):
            continue
        subject = _subject(tok)
        if subject is not None and subject.lower_ not in SELF:
            continue
        edges = [g for c in tok.children if c.dep_ == "prep" for g in c.children if _is(g, EDGE_OF)]
        places = [t for e in edges for o in e.children if o.lower_ == "of" for t in o.subtree]
        if any(_is(t, HEIGHT_PLACES) for t in places):
            yield DangerFinding("ending", f"on the {edges[0].lower_} of a height", acute=True)
            return


def _gift(doc: Any) -> bool:
    """The user gave one of their things to someone ("gave my guitar to my best friend")."""
    return any(
        t.lemma_ == "give" and _mine(t) and any(c.dep_ == "dobj" and c.lower_ not in SELF for c in t.children)
        for t in doc
    )


def _body(doc: Any) -> Iterator[DangerFinding]:
    """Signs in the user's own body now: one severe sign (a failing breath, heavy bleeding, crushing pain),
    two milder ones, or one with a known condition ("I'm allergic", "pregnant") is acute; one mild sign alone
    is evidence only."""
    severe: list[str] = []
    mild: list[str] = []
    for tok in doc:
        sign = _sign(tok)
        if sign and _in_force(tok, settled_past=True) and _of_my_body(tok, sign.endswith("body")):
            (severe if sign.startswith("severe") else mild).append(_sign_name(tok))
    bitten = any(t.lower_ in ("bitten", "bit", "stung") for t in doc)
    condition = any(_is(t, CONDITIONS) for t in doc) or (bitten and any(_is(t, VENOMOUS) for t in doc))
    # "lost my dad" is news that shakes a body; "lost on the mountain" is where the body is
    emotional = any(_is(t, EMOTION) and not (t.lemma_ == "lose" and not _has_object(t)) for t in doc)
    kinds = {"panic" if m in PANIC_SIGNS else m for m in mild}
    if not emotional and (severe or (len(kinds) >= 2 and kinds != {"panic"}) or (mild and condition)):
        yield DangerFinding("body", ", ".join(dict.fromkeys(severe + mild)), acute=True)
    elif mild:
        yield DangerFinding("body", mild[0], acute=False)


def _in_my_care(doc: Any) -> Iterator[DangerFinding]:
    """An emergency of someone in the user's care, now: "my baby isn't breathing", "my dad collapsed and
    won't wake up", "can't wake my son", "my toddler swallowed a battery". Not a pet, not someone else's
    relative ("my friend's dad"), not asked, hypothetical, or over ("last year", "yesterday", "he's fine
    now")."""
    if _recovered(doc, THEY) or any(t.lower_ in RECENT_PAST for t in doc):  # "he's fine now"
        return
    for tok in doc:
        sign = _care_sign(tok)
        # the negation of "isn't breathing", "won't wake" is the sign itself
        if sign is None or _asked(tok) or _conditional(tok) or _distant_past(tok):
            continue
        if _negated(tok) and sign not in NEGATED_CARE_SIGNS:
            continue
        # "my friend texted that she swallowed …": told from afar, the third-party case
        if any(_is(a, REPORTED) for a in tok.ancestors):
            continue
        subject = _subject(tok if tok.dep_ not in ("acomp", "oprd", "xcomp") else tok.head)
        objects = [c for c in tok.children if c.dep_ == "dobj"]
        # a fragment the small model misparses ("my toddler drank bleach" as one noun phrase): who comes first
        before = list(doc[: tok.i]) if subject is None and not objects else []
        candidates = (subject, *objects, *before)
        person = next((p for p in candidates if p is not None and _in_my_care_noun(p, doc)), None)
        if person is not None:
            yield DangerFinding("care", f"{person.lower_}: {sign}", acute=True)
            return


def _care_sign(tok: Any) -> str | None:
    """What makes the state of someone in the user's care an emergency, told by `tok`; None if nothing."""
    lemma = tok.lemma_.lower()
    if lemma == "breathe" and (_negated(tok) or tok.head.lemma_ in ("stop", "struggle")):
        # "isn't breathing properly since the cold", "not breathing loudly": a manner, not no breath
        manner = any(
            c.dep_ == "advmod" and (c.lower_.endswith("ly") or c.lower_ == "well") for c in tok.children
        )
        return None if manner else "not breathing"
    if lemma == "wake" and (_negated(tok) or _cannot(tok)):
        return "won't wake"
    if lemma == "respond" and _negated(tok):
        return "not responding"
    if lemma == "choke" and not any(c.dep_ == "dobj" for c in tok.children):
        return "choking"
    if lemma in ("swallow", "eat", "drink") or tok.lower_ in ("drank", "swallowed", "ate"):
        harm = next((t.lower_ for t in _taken(tok) if _is(t, SWALLOWED_HARM)), None)
        return f"swallowed {harm}" if harm else None
    if _event(tok) or _heavy_bleeding(tok):
        return _sign_name(tok)
    if lemma == "blue" and tok.head.lemma_ in ("turn", "go"):  # "turning blue" ("feeling blue" is a mood)
        return "turning blue"
    state_negated = _negated(tok) or (tok.dep_ in ("acomp", "attr") and _negated(tok.head))
    if _is(tok, CARE_SIGNS) and tok.pos_ in ("VERB", "ADJ", "NOUN") and not state_negated:
        # "collapsed on the sofa after work" is tiredness
        return None if any(t.lower_ in RESTING_PLACES for t in tok.subtree) else lemma
    return None


def _in_my_care_noun(tok: Any, doc: Any) -> bool:
    """`tok` names someone in the user's care: "my son", "our baby", "the baby"; or "he"/"she" in a message
    that names one ("my dad fell. he's not breathing")."""
    if tok.lower_ in ("he", "she", "they", "him", "her", "them"):
        return any(_in_my_care_noun(t, doc) for t in doc if t.lemma_.lower() in IN_MY_CARE)
    if tok.lemma_.lower() not in IN_MY_CARE and tok.lower_ not in IN_MY_CARE:
        return False
    owners = [c for c in tok.children if c.dep_ in ("poss", "det")]
    if not owners:  # texted without one: "baby fell off the bed", "toddler drank bleach"
        return tok.dep_ in ("nsubj", "nsubjpass", "compound", "dobj")
    return any(o.lower_ in ("my", "our") or (o.lower_ == "the" and tok.lemma_ == "baby") for o in owners)


def _fragment(doc: Any, text: str) -> Iterator[DangerFinding]:
    """A short fragment the parse cannot join: an urgent opening ("help", "sos") with a weapon or a bodily
    hazard ("help chest pain", "help he has a gun"), or a height "rn" with no ordinary purpose ("standing on
    the roof rn"). A weapon counts with someone else in it (a threat in the user's scene); a bodily hazard
    only when no one else is named."""
    if (
        len(text.split()) > FRAGMENT_WORDS
        or text.rstrip().endswith("?")
        or any(_is(t, ORDINARY) for t in doc)
    ):
        return
    words = [t for t in doc if not t.is_punct]
    urgent = bool(words) and _is(words[0], URGENT) and not (len(words) > 1 and words[1].lower_ in FOR_OTHERS)
    other = _names_someone_else(doc)
    weapon = next((t.lower_ for t in doc if _is(t, WEAPONS)), None)
    if urgent and weapon:
        yield DangerFinding("threat", f"help + {weapon}", acute=True)
    elif urgent and not other and any(_is(t, HAZARD_SIGNS | BODY) for t in doc):
        yield DangerFinding(
            "body", "help + " + next(t.lower_ for t in doc if _is(t, HAZARD_SIGNS | BODY)), True
        )
    elif not other and any(_is(t, EDGES) for t in doc):
        yield DangerFinding("ending", "on an edge", acute=True)
    elif not other and any(_is(t, HEIGHTS) for t in doc) and any(_is(t, NOW) or t.like_num for t in doc):
        yield DangerFinding("ending", "on a height now", acute=True)


def _sign_name(tok: Any) -> str:
    """How a sign is shown in `--explain`: its lemma, with its object for an event ("having attack")."""
    objects = [c.lemma_ for c in tok.children if c.dep_ == "dobj"]
    return " ".join([tok.lemma_.lower(), *objects[:1]])


def _event(tok: Any) -> bool:
    """The user says a medical event is happening to them: "I think I'm having a heart attack", "I've
    overdosed" (not "a panic attack")."""
    if tok.lemma_ == "overdose" and tok.pos_ == "VERB":  # "overdosed on Netflix" is not
        on = [g for c in tok.children if c.dep_ == "prep" for g in c.children if g.dep_ == "pobj"]
        return all(_is(g, MEDICINE | POISON) for g in on)
    if tok.lemma_ != "have" or tok.tag_ != "VBG":
        return False
    for obj in (c for c in tok.children if c.dep_ == "dobj"):
        modifiers = {c.lower_ for c in obj.children}
        if obj.lemma_ in ("stroke", "seizure") or (
            obj.lemma_ == "attack" and modifiers & {"heart", "asthma"}
        ):
            return True
        if obj.lemma_ == "reaction" and "allergic" in modifiers:
            return True
    return False


def _sign(tok: Any) -> str | None:
    """ "severe", "mild" or None for a token that names a bodily sign."""
    lemma = tok.lemma_.lower()
    if _event(tok):
        return "severe"
    if _short_of_breath(tok):
        return "mild"  # a panic attack says it too: it needs another sign
    if _heavy_bleeding(tok):
        return "severe"
    if lemma in ("pain", "headache", "pressure") and _severe_pain(tok):
        return "severe"
    if _is(tok, LOST_FUNCTIONS) and _cannot(tok):
        return _lost_function(tok)
    if _phrasal_sign(tok):  # "throwing up", "going to pass out", "can't get up"
        return "mild"
    if any(
        (c.dep_ == "dobj" and not c.like_num) or (c.dep_ == "prt" and c.lower_ in ("out", "off"))
        for c in tok.children
    ):
        return None  # an act, not a sign: "close my eyes", "bleeding money", "burnt out" ("racing at 200" is)
    for signs, kind in (
        (SEVERE_SIGNS, "severe"),
        (SEVERE_BODY_SIGNS, "severe body"),
        (MILD_BODY_SIGNS, "mild body"),
    ):
        if _is(tok, signs) and tok.pos_ in ("VERB", "ADJ"):
            return kind
    if lemma == "see" and (_cannot(tok) or any(c.lower_ == "double" for c in tok.children)):
        return "mild"
    if _is(tok, MILD_SIGNS) and (tok.pos_ in ("VERB", "ADJ", "ADV") or _noun_sign(tok)):
        return "mild"
    return None


def _noun_sign(tok: Any) -> bool:
    """A sign named as a noun: "sweating", "vomiting", or hives in a message that names no one else ("covered
    in hives"; "my son has hives" is his)."""
    if tok.lemma_ in ("sweat", "vomit"):
        return True
    return tok.lower_ in ("hive", "hives") and not _names_someone_else(tok.doc)


def _phrasal_sign(tok: Any) -> bool:
    """A sign told by a verb and its particle: "throwing up", "going to pass out", "can't get up"."""
    particles = {c.lower_ for c in tok.children if c.dep_ == "prt" or c.lower_ == "up"}
    if tok.lemma_ == "throw":
        return "up" in particles
    if tok.lemma_ == "pass":
        return "out" in particles
    if tok.lower_ == "sick":  # "made myself sick", "been sick twice" (not "sick of it")
        return tok.head.lemma_ in ("make", "be", "feel") and not any(c.lower_ == "of" for c in tok.children)
    return tok.lemma_ == "get" and "up" in particles and _cannot(tok)


def _heavy_bleeding(tok: Any) -> bool:
    """Bleeding heavily or that won't stop, or blood spurting or gushing ("it's spurting blood")."""
    if tok.lemma_ in ("spurt", "gush", "pour"):
        return any(c.dep_ == "dobj" and c.lemma_ == "blood" for c in tok.children)
    through = any(c.dep_ == "prep" and c.lower_ == "through" for c in tok.children)  # "through my jeans"
    return tok.lemma_ == "bleed" and bool(
        through
        or {c.lemma_ for c in tok.subtree} & HEAVY
        or (tok.head.lemma_ == "stop" and any(c.dep_ == "neg" for c in tok.head.children))
    )


def _short_of_breath(tok: Any) -> bool:
    """ "can't breathe", "struggling to breathe", "can't catch my breath"."""
    if tok.lemma_ == "catch":
        return _cannot(tok) and any(c.lemma_ == "breath" for c in tok.children)
    return tok.lemma_ == "breathe" and (_negated(tok) or tok.head.lemma_ in ("struggle", "fight"))


def _severe_pain(tok: Any) -> bool:
    """Pain an emergency is told by: crushing, the worst of one's life, spreading down an arm."""
    words = {t.lower_ for t in tok.subtree} | {t.lower_ for t in tok.head.subtree if t.dep_ != "conj"}
    if any(t.lower_ in ORDINARY_CAUSES for t in tok.doc):  # "worst pain ever after leg day at the gym"
        return False
    worst = "worst" in words and bool(words & {"life", "ever"})
    return bool(words & SEVERE_PAIN) or worst or {"down", "arm"} <= words


def _of_my_body(tok: Any, body_only: bool) -> bool:
    """The sign is said of the user ("I'm dizzy", "can't breathe") or of their body ("my lips are swelling",
    "my arm's gone numb", "swollen lips" after "my"), not of someone else; `body_only` signs only of a body
    part ("my lips are going blue", not "I'm feeling blue")."""
    subject = _subject(tok if tok.dep_ not in ("acomp", "oprd", "xcomp") else tok.head)
    if subject is None and tok.dep_ == "amod":
        subject = tok.head
    if subject is None:  # "can't breathe", "vomiting for hours"
        return not body_only and tok.sent[0].lower_ not in lex.THIRD_PERSON
    if subject.lower_ in SELF:
        return not body_only
    if (
        tok.lemma_ in ("bleed", "spurt") and subject.lower_ == "it"
    ):  # "it won't stop bleeding", "it's spurting"
        return True
    return _my_body_part(subject) or any(_my_body_part(c) for c in subject.conjuncts)


def _my_body_part(tok: Any) -> bool:
    """A body part owned by the user: "my thigh", "my right arm", "half my face"."""
    if tok.lower_ in ("half", "side", "part", "one"):  # "one side of my face": the part's whole
        return any(_owned_body_part(t) for t in (*tok.children, *tok.doc[tok.i + 1 : tok.i + 2]))
    return _owned_body_part(tok)


def _owned_body_part(tok: Any) -> bool:
    """ "my throat"; or a bare "throat" ("throat feels tight", "lips going blue") in a statement that names no
    one else."""
    if tok.lemma_.lower() not in BODY:
        return False
    if any(c.lower_ in ("my", "our") for c in tok.children):
        return True
    bare = not any(c.dep_ in ("det", "poss") for c in tok.children)
    asked = tok.doc.text.rstrip().endswith("?")  # "what are the signs of a stroke, like face drooping?"
    return bare and not asked and not _names_someone_else(tok.doc)


def _names_someone_else(doc: Any) -> bool:
    """A third person or a relative, friend, colleague is named anywhere in the message."""
    return any(t.lower_ in lex.THIRD_PERSON or t.lemma_.lower() in lex.THIRD_PARTY_NOUNS for t in doc)


def _cannot(tok: Any) -> bool:
    """ "can't"/"cannot" on the verb itself ("can't wait to see it" is no loss of sight)."""
    children = list(tok.children)
    negated = any(c.dep_ == "neg" or c.lower_ == "barely" for c in children)  # "can barely stand"
    return negated and any(c.lemma_ in ("can", "could") for c in children)


def _lost_function(tok: Any) -> str | None:
    """A function the body lost: a body part's is severe ("can't feel my legs", "can't lift my arm"; "can't
    feel anything" is a mood), the user's is mild ("I can't speak properly"; "can't stand him" is none)."""
    objects = [c for c in tok.children if c.dep_ == "dobj"]
    if tok.lemma_ in ("feel", "lift", "move"):
        return "severe" if any(_my_body_part(o) for o in objects) else None
    return None if objects else "mild"


# -- grammar checks ----------------------------------------------------------------------------------------
def _subject(
    tok: Any, through: tuple[str, ...] = ("xcomp", "conj", "ccomp", "advcl", "acomp", "oprd")
) -> Any:
    """The subject of `tok`'s clause: its own, or inherited along xcomp/conj/aux chains, or the noun an acl
    modifies ("a man following me"); None for a subjectless fragment ("chugged antifreeze")."""
    seen = 0
    while tok is not None and seen < 6:
        for child in tok.children:
            if child.dep_ in ("nsubj", "nsubjpass", "csubj"):
                return child
        if tok.dep_ in ("acl", "relcl", "amod"):
            return tok.head
        if tok.dep_ in through and tok.head is not tok:
            tok, seen = tok.head, seen + 1
            continue
        return None
    return None


def _is_person(tok: Any) -> bool:
    """A person who can attack: a third-person pronoun, someone, a person noun, a named person."""
    if tok.lower_ in ("i", "we", "you", "it", "this", "that", "what", "which"):
        return False
    if tok.lemma_.lower() in GROUPS:  # "a group of men", "a gang of lads"
        return any(_is_person(g) for c in tok.children if c.lower_ == "of" for g in c.children)
    return tok.lemma_.lower() in PERSON_NOUNS or tok.lower_ in PERSON_NOUNS or tok.ent_type_ == "PERSON"


def _in_force(tok: Any, *, settled_past: bool = False) -> bool:
    """Not negated, not asked about, not hypothetical; with `settled_past`, not a finished past either."""
    if _negated(tok) and not _is(tok, NEGATED_SIGNS):  # "can't breathe": the negation is the sign
        return False
    if _asked(tok) or _conditional(tok):
        return False
    return not (settled_past and _distant_past(tok))


def _negated(tok: Any) -> bool:
    """A negation on `tok` or on the auxiliary chain that governs it ("not going to hurt myself")."""
    for _ in range(3):
        if tok.lemma_ == "stop":  # "can't stop shivering": the negation is of stopping
            return False
        if any(c.dep_ == "neg" or c.lower_ in ("never", "not") for c in tok.children):
            return True
        if tok.dep_ not in ("xcomp", "aux") or tok.head is tok:
            return False
        tok = tok.head
    return False


def _asked(tok: Any) -> bool:
    """`tok`'s clause is a question asked for information ("how many can I take?", "do I need a plaster?")."""
    sentence = tok.sent
    if not sentence.text.rstrip().endswith("?"):
        return False
    head = tok
    while head.dep_ in ("xcomp", "aux", "conj", "dobj", "pobj", "prep") and head.head is not head:
        head = head.head
    first = next((t for t in head.subtree if not t.is_punct), head)
    clause = list(head.subtree)
    return first.lower_ in QUESTION_WORDS or any(t.tag_ in ("WDT", "WP", "WRB") for t in clause)


def _conditional(tok: Any) -> bool:
    """`tok` or a clause governing it is hypothetical: "if I cut myself", "what would happen if"."""
    for _ in range(4):
        if any(c.dep_ == "mark" and c.lower_ in CONDITIONAL for c in tok.children):
            return True
        if tok.head is tok:
            return False
        tok = tok.head
    return False


SCHOOL_DAYS = words(_W["school_days"])  # "back in college", "back in 2019"


def _distant_past(tok: Any) -> bool:
    """A past well behind the user: "years ago", "last year", "used to", "when I was a kid", "back in
    college"."""
    words = [t.lower_ for t in tok.sent]
    pairs = set(zip(words, words[1:], strict=False))
    if ("used", "to") in pairs or ("when", "i") in pairs and ("i", "was") in pairs:
        return True
    if ("when", "we") in pairs and ("we", "were") in pairs:  # "when we were kids"
        return True
    if any(("last", unit) in pairs for unit in DISTANT_PAST):
        return True
    if any(
        a == "back" and b == "in" and (c in SCHOOL_DAYS or c.isdigit())
        for a, b, c in zip(words, words[1:], words[2:], strict=False)
    ):
        return True
    return "ago" in words and bool(set(words) & DISTANT_PAST)


def _recovered(doc: Any, people: frozenset[str] = SELF) -> bool:
    """The message says the user (or, with `people`, someone else) is fine now: "it's a bit sore but I feel
    fine", "I'm okay now", "he's fine now"."""
    for tok in doc:
        if tok.lemma_.lower() in RECOVERED and tok.dep_ in ("acomp", "oprd", "attr", "advmod", "ROOT"):
            subject = _subject(tok if tok.dep_ not in ("acomp", "advmod") else tok.head)
            if (
                subject is not None
                and subject.lower_ in people
                and not _negated(tok.head)
                and not _negated(tok)
            ):
                return True
    return False


def _joking_or_fiction(doc: Any) -> bool:
    """Laughter or a game, a story, a course: the frames are not about the user's body or life."""
    words = {t.lower_ for t in doc}
    return bool(words & JOKING) or bool(words & (lex.FICTION_MARKERS | lex.STUDY_NOUNS))


def _has_reason(tok: Any) -> bool:
    """An ordinary reason is given: "because I'm moving abroad"."""
    return any(t.lower_ in REASONS and t.dep_ in ("mark", "prep") for t in tok.sent)


def _mine(tok: Any) -> bool:
    """The act concerns the user's own things ("my affairs", "gave my dog", "loose ends"), not someone
    else's ("his will", "my client's will")."""
    owners = [t for t in tok.subtree if t.dep_ == "poss"]
    return all(t.lower_ in ("my", "our") for t in owners)


def _particle(tok: Any, word: str) -> bool:
    return any(c.dep_ == "prt" and c.lower_ == word for c in tok.children) or any(
        t.lower_ == word for t in tok.subtree
    )


def _will(tok: Any) -> bool:
    return any(c.lemma_ in ("will", "wo") or c.lower_ in ("won't", "wo") for c in tok.children)


def _has_time(tok: Any) -> bool:
    return any(t.lower_ in ("after", "anymore", "soon", "longer") for t in tok.subtree)

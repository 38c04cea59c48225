"""Verb frames of the grammar fact reader: where the user lives and moved, work and study, names, pets.

A frame reads one verb of the parse with its prepositions and objects: "moved from Boston to Denver" is
`move` + from (lives in Boston, negated) + to (moved to Denver). Each frame returns `Reading`s; the
reader (`grammar.py`) gives them their subjects, the clause's stance (negation, confidence) and excerpt.
Preferences, stopping and the copula ("I'm a nurse") are in `grammar_frames_be`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, NamedTuple

from core.relations import ALL_WORK, ENDS_WHAT_IT_NAMES
from memory.facts import extraction_rules as R
from memory.facts.grammar_clauses import FUTURE, Stance
from memory.facts.grammar_phrases import (
    PET_NOUNS,
    SUBJECT_DEPS,
    USER,
    coordinated,
    full_name,
    is_name,
    is_role,
    phrase,
    possessed,
    role_text,
    subjects,
    things,
)
from memory.facts.model import PRONOUNS

if TYPE_CHECKING:
    from spacy.tokens import Token


class Reading(NamedTuple):
    """One fact a frame read; `subject` None means each subject of the clause."""

    predicate: str
    object: str
    category: str
    negated: bool = False
    subject: str | None = None
    confidence: float | None = None


Frame = Callable[["Token", Stance], list[Reading]]
_PLACE_ENTS = frozenset({"GPE", "LOC", "FAC"})
_ORG_ENTS = frozenset({"ORG", "PERSON", "GPE", "PRODUCT", "FAC", "WORK_OF_ART"})
_NOT_PLACES = frozenset("here there home abroad away city country town place area countryside".split())
_DEGREES = frozenset(
    "phd doctorate masters master degree mba bachelor bachelors undergrad ma msc ba bsc".split()
)
_JOBS = frozenset("job position role post gig".split())


def preps(verb: Token, *words: str) -> Iterator[tuple[str, Token]]:
    """(preposition, object) pairs of `verb`: "to Denver", "out of Boston" (as "out of"), "back to X"."""
    for child in verb.children:
        if child.dep_ in ("prep", "dative", "agent") or (child.dep_ in ("prt", "advmod") and child.n_rights):
            word = child.lower_
            inner = next((c for c in child.children if c.dep_ == "prep"), None)
            if word in ("out", "away", "back") and inner is not None:
                word, child = (f"{word} {inner.lower_}" if word != "back" else inner.lower_), inner
            obj = next((c for c in child.children if c.dep_ in ("pobj", "pcomp")), None)
            if obj is not None and word in words:
                yield word, obj


def place(token: Token) -> str | None:
    """A place name: "Denver", "New York City", "Portland, Oregon"; "a flat in Brighton" -> Brighton."""
    if token.lower_ == "there":  # "originally from Winnipeg, though I haven't lived there in years"
        named = [
            t
            for t in token.doc[: token.i]
            if t.pos_ == "PROPN" and (t.ent_type_ in _PLACE_ENTS or t.head.lower_ in ("from", "in", "to"))
        ]
        return place(named[-1]) if named else None
    if (
        token.pos_ == "PRON"
        or token.lower_ in _NOT_PLACES
        and not any(c.dep_ == "compound" for c in token.children)
    ):
        return None
    if token.pos_ == "NOUN" and token.ent_type_ not in _PLACE_ENTS:
        inner = next((o for _, o in preps(token, "in", "near", "outside")), None)
        if inner is not None:
            return place(inner)
        bare = not any(c.dep_ in ("det", "poss") for c in token.children)
        capital = token.text[:1].isupper() and token.i > token.sent.start  # "Lyon" tagged as a noun
        lowercase = not token.text[:1].isupper() and token.doc.text == token.doc.text.lower()
        if not (bare and (capital or lowercase)):
            return None  # "moved to the city" names no place; in an all-lower-case message "lyon" may
    text = phrase(token)
    region = next(
        (c for c in token.children if c.dep_ in ("appos", "npadvmod", "conj") and c.i == token.i + 2), None
    )
    if region is not None and token.nbor(1).text == "," and region.pos_ == "PROPN":
        text = f"{text}, {phrase(region)}"
    return text or None


def org(token: Token) -> str | None:
    """An employer or school: "Acme", "the NHS", "a nonprofit called GreenRoots" -> GreenRoots."""
    named = next((c for c in token.children if c.dep_ == "acl" and c.lemma_ in ("call", "name")), None)
    if named is not None:
        name = next((c for c in named.children if c.dep_ in ("oprd", "attr", "dobj", "xcomp")), None)
        return phrase(name) if name is not None else None
    if token.pos_ == "PRON" or token.lower_ in _NOT_PLACES | {"work", "school", "uni", "college"}:
        return None
    if token.pos_ != "PROPN" and token.ent_type_ not in _ORG_ENTS and not token.text[:1].isupper():
        lowercase_message = token.doc.text == token.doc.text.lower()
        if not (lowercase_message and not any(c.dep_ == "det" for c in token.children)):
            return None
    return phrase(token) or None


# ------------------------------------------------------------------------------------------- location
def move(verb: Token, st: Stance) -> list[Reading]:
    """ "I moved from Boston to Denver": Boston no longer, Denver now; "I'm moving to Lisbon": likely."""
    moved = next((c for c in verb.children if c.dep_ == "dobj"), None)
    if moved is not None:  # someone moved someone: "we moved Edith into a care home in Canterbury"
        return _moved_someone(verb, moved, st)
    if verb.lemma_ == "head" and not _heading_for_good(verb):
        return []  # "we headed to Paris for the weekend" is a trip
    out: list[Reading] = []
    future = verb.tag_ == "VBG" and any(c.lemma_ == "be" for c in verb.children if c.dep_ == "aux")
    for word, obj in preps(verb, "to", "into", "from", "out of", "away from"):
        where = place(obj)
        if where is None:
            continue
        if word in ("to", "into"):
            conf = FUTURE if future else None
            out.append(Reading("moved to", where, "location", st.negated, confidence=conf))
        elif not future:
            out.append(Reading("lives in", where, "location", True))
    return out


def _moved_someone(verb: Token, moved: Token, st: Stance) -> list[Reading]:
    """Where a person the user names was moved to ("moved Edith into a care home in Canterbury"); not
    things ("we moved the sofa")."""
    if moved.pos_ == "PRON":  # "my parents moved us to Chicago (when I was ten)": a childhood, not a home
        return []
    if is_role(moved) and possessed(moved):
        who: str | None = role_text(moved)
    else:
        who = full_name(moved) if is_name(moved) else None
    if who is None or st.negated:
        return []
    return [
        Reading("moved to", where, "location", subject=who)
        for _, obj in preps(verb, "to", "into")
        if (where := place(obj))
    ]


def _heading_for_good(verb: Token) -> bool:
    """ "we packed up and headed down to Bristol", "headed over to Leeds for good": a move, not a trip (a
    particle of direction or packing up, and no "for the weekend")."""
    if any(w in ("for", "on") for w, _ in preps(verb, "for", "on")) and not any(
        o.lower_ == "good" for _, o in preps(verb, "for")
    ):
        return False
    packed = any(t.lemma_ == "pack" for t in (verb.head, *verb.children) if t is not verb)
    return packed or any(c.dep_ in ("prt", "advmod") and c.lower_ in _DIRECTIONS for c in verb.children)


_DIRECTIONS = frozenset("down over up out back".split())


def move_noun(noun: Token, st: Stance) -> list[Reading]:
    """ "we finally made the move to Lisbon"."""
    if noun.head.lemma_ not in ("make", "do") or noun.dep_ != "dobj":
        return []
    return [Reading("moved to", w, "location") for _, o in preps(noun, "to") if (w := place(o))]


def live(verb: Token, st: Stance) -> list[Reading]:
    """ "I live in Denver", "I'm based in Leeds", "I don't live in Boston anymore"."""
    words = ("in", "at", "near", "outside") if verb.lemma_ in ("live", "reside") else ("in",)
    found = [w for _, o in preps(verb, *words) if (w := place(o))] or [
        w for o in _where(verb) if (w := place(o))
    ]
    return [Reading("lives in", w, "location", st.negated) for w in found]


def _where(verb: Token) -> list[Token]:
    """ "Lyon, where I was born" -> Lyon; "lived there" -> "there" (the place named before)."""
    there = [c for c in verb.children if c.dep_ == "advmod" and c.lower_ == "there"]
    if there:
        return there
    where = any(c.dep_ == "advmod" and c.lower_ == "where" for c in verb.children)
    return [verb.head] if where and verb.dep_ == "relcl" and verb.head.pos_ == "PROPN" else []


def origin(verb: Token, st: Stance) -> list[Reading]:
    """ "I grew up in Glasgow", "raised in Detroit", "I was born in Lyon"."""
    if verb.lemma_ == "grow" and not any(c.lower_ == "up" for c in verb.children):
        return []
    found = [o for _, o in preps(verb, "in")]
    if not found:  # "born and raised in Detroit": the place hangs on the last verb
        found = [o for c in verb.children if c.dep_ == "conj" for _, o in preps(c, "in")]
    predicate = "born in" if verb.lemma_ in ("bear", "born") else "is from"
    return [Reading(predicate, w, "location", st.negated) for o in found or _where(verb) if (w := place(o))]


# ------------------------------------------------------------------------------------------ work, study
def work(verb: Token, st: Stance) -> list[Reading]:
    """ "I work at Acme as a planner", "I joined Airbnb", "got hired by Stripe", "started at Monzo"."""
    out: list[Reading] = []
    words = ("at", "for", "with", "by") if verb.lemma_ != "work" else ("at", "for")
    for _, obj in preps(verb, *words):
        if (name := org(obj)) is not None:
            out.append(Reading("works at", name, "work", st.negated))
    if verb.lemma_ == "join":
        out += [Reading("works at", n, "work", st.negated) for o in _dobj(verb) if (n := org(o))]
    if verb.lemma_ == "start" and not out:  # "started a new job at Monzo"
        for job in _dobj(verb):
            if job.lemma_ in _JOBS:
                out += [Reading("works at", n, "work") for _, o in preps(job, "at", "with") if (n := org(o))]
    roles = [o for _, o in preps(verb, "as")] if out or verb.lemma_ == "work" else []
    if verb.lemma_ == "work" and not out:  # "as a sound engineer at X": the parse hangs "at" on the role
        out += [
            Reading("works at", n, "work", st.negated)
            for role in roles
            for _, o in preps(role, "at", "for")
            if (n := org(o))
        ]
    out += [Reading("is a", t, "work", st.negated) for o in roles for t in things(o, plain=True)]
    return out


def leave(verb: Token, st: Stance) -> list[Reading]:
    """ "I quit my job at Walmart", "I left Google", "I retired from the NHS", "got laid off from Meta"."""
    out: list[Reading] = []
    for obj in _dobj(verb):
        if obj.lemma_ in _JOBS:
            out += [
                Reading("works at", n, "work", True) for _, o in preps(obj, "at", "with") if (n := org(o))
            ]
        elif obj.ent_type_ == "ORG" or (obj.pos_ == "PROPN" and obj.ent_type_ != "GPE"):
            out.append(Reading("works at", phrase(obj), "work", True))
        elif obj.ent_type_ == "GPE" and verb.lemma_ == "leave":  # "left Sydney for Perth"
            out.append(Reading("lives in", phrase(obj), "location", True))
            out += [Reading("moved to", w, "location") for _, o in preps(verb, "for") if (w := place(o))]
    out += [Reading("works at", n, "work", True) for _, o in preps(verb, "from", "at") if (n := org(o))]
    if verb.lemma_ == "say" and any(o.lower_ in ("goodbye", "farewell") for o in _dobj(verb)):
        out += [Reading("lives in", w, "location", True) for _, o in preps(verb, "to") if (w := place(o))]
    # "I left teaching", "I retired from nursing": the trade (matched to "teacher" when verified)
    trades = [c for c in verb.children if c.dep_ in ("xcomp", "dobj")] if verb.lemma_ == "leave" else []
    trades += [o for _, o in preps(verb, "from")] if verb.lemma_ in ("leave", "quit", "retire") else []
    out += [
        Reading("is a", c.text, "work", True)
        for c in trades
        if c.lower_.endswith("ing") and not any(c.children)
    ]
    if not out and verb.lemma_ == "retire" and not _dobj(verb):  # "Retired at last!": from work itself
        out.append(Reading(ENDS_WHAT_IT_NAMES, ALL_WORK, "work", True))
    return out if not st.negated else []


def study(verb: Token, st: Stance) -> list[Reading]:
    """ "I study at Leiden", "Aria studies biology at UCLA", "doing a PhD at Leiden"."""
    where = list(preps(verb, "at", "in")) + [p for o in _dobj(verb) for p in preps(o, "at")]
    if verb.lemma_ != "study" and not any(o.lower_ in _DEGREES for o in _dobj(verb)):
        return []
    return [Reading("studies at", n, "work", st.negated) for _, o in where if (n := org(o))]


# ------------------------------------------------------------------------------------------ names, pets
def name(verb: Token, st: Stance) -> list[Reading]:
    """ "we named her Pepper", "she's called Mochi", "we ended up calling him Biscuit"."""
    objects = [
        c
        for c in verb.children
        if c.dep_ in ("dobj", "oprd", "attr", "ccomp", "xcomp", "npadvmod")
        and c.pos_ in ("NOUN", "PROPN", "PRON")
    ]
    if verb.dep_ == "acl" or st.negated:
        return []  # "a dog named Rex" is read by the frame that has the dog
    passive = next((c for c in verb.children if c.dep_ == "nsubjpass"), None)
    who, what = (passive, objects[0]) if passive is not None and objects else (None, None)
    if who is None and len(objects) >= 2:
        who, what = objects[0], objects[-1]
    if who is None and len(objects) == 1:  # "calling her Pepper" parsed as "her" owning "Pepper"
        who = next((c for c in objects[0].children if c.dep_ == "poss" and c.lower_ in PRONOUNS), None)
        what = objects[0] if who is not None else None
    if who is None or what is None or not (what.pos_ == "PROPN" or what.text[:1].isupper()):
        return []
    subject = referent(who)
    return [Reading("named", full_name(what), _kind(subject), subject=subject)] if subject else []


def referent(token: Token) -> str | None:
    """ "my cat", "the puppy" -> "my cat"/"my puppy"; "her"/"him" -> the pet or person named before."""
    if is_role(token) and (possessed(token) or any(c.lower_ in ("the", "our") for c in token.children)):
        return role_text(token)
    if token.lower_ in ("me", "us"):
        return USER  # "people call me Alex"
    if token.lower_ in PRONOUNS:
        for earlier in reversed(list(token.doc[: token.i])):
            if earlier.pos_ == "NOUN" and is_role(earlier):
                return role_text(earlier)
        # named in an earlier message ("we ended up calling her Pepper"): the fact service resolves it
        return token.lower_
    return None


def _kind(subject: str) -> str:
    role = subject.split()[-1]
    return (
        "identity"
        if subject == USER
        else "pets"
        if role in PET_NOUNS
        else "work"
        if role in R.WORK_ROLES
        else "family"
    )


def possess(verb: Token, st: Stance) -> list[Reading]:
    """ "I have a dog named Rex", "we adopted Biscuit", "I bought a road bike", "I sold my car"."""
    lost = verb.lemma_ in ("sell", "lose", "rid") or (verb.lemma_ in ("give", "get") and _gone(verb))
    if verb.lemma_ == "give" and not lost and any(preps(verb, "to")):  # "we gave the piano to my cousin"
        given = [t for o in _dobj(verb) for t in things(o, plain=True)]
        return [Reading(ENDS_WHAT_IT_NAMES, t, "possessions", True) for t in given if not st.negated]
    out: list[Reading] = []
    objects = _dobj(verb) + ([o for _, o in preps(verb, "of")] if verb.lemma_ == "rid" else [])
    if verb.lemma_ == "pick":
        objects = objects[:1]  # "picked up an iPad Pro, best purchase all year": the rest is an aside
    for obj in objects:
        if obj.lower_ in PET_NOUNS or obj.lemma_ in PET_NOUNS:
            out += _pet(verb, obj, st, lost)
        elif is_role(obj) and (called := _called(obj)):
            out += [Reading("named", c, "family", subject=role_text(obj)) for c in called]
        elif verb.lemma_ in ("adopt", "rescue") and is_name(obj):
            out.append(Reading("has pet", full_name(obj), "pets"))
        elif lost or _acquired(verb) or (st.ended and verb.lemma_ == "have"):
            mine = USER if _given_me(verb) else None  # "my husband got me an Apple Watch"
            out += [
                Reading("owns", t, "possessions", lost or st.negated, subject=mine)
                for t in things(obj, located=True)
            ]
    return out


def _acquired(verb: Token) -> bool:
    """ "I own", "I bought", "I inherited" (not "we buy lamb-based food": a habit, not a purchase)."""
    if verb.tag_ not in ("VBD", "VBN"):
        return verb.lemma_ == "own"
    picked = verb.lemma_ == "pick" and any(c.lower_ == "up" for c in verb.children)  # "picked up an iPad"
    if picked:  # a thing bought ("an iPad Pro", "a new bike"), not groceries ("some milk")
        return any(
            o.pos_ == "PROPN" or any(d.lower_ in ("a", "an") for d in o.children) for o in _dobj(verb)[:1]
        )
    return verb.lemma_ in ("own", "buy", "purchase", "inherit") or _given_me(verb)


def _given_me(verb: Token) -> bool:
    return verb.lemma_ in ("get", "buy") and any(
        c.dep_ == "dative" and c.lower_ == "me" for c in verb.children
    )


def _pet(verb: Token, obj: Token, st: Stance, lost: bool) -> list[Reading]:
    words = [c.text for c in obj.lefts if c.dep_ in ("compound", "amod") and c.lower_ not in _NOT_KIND]
    kind = " ".join([*words, obj.lemma_ if obj.tag_ == "NNS" else obj.text])
    names = _called(obj)
    if not names:
        plain = verb.lemma_ in ("have", "own", "adopt", "rescue") and any(
            c.lower_ in ("a", "an", "the") for c in obj.children
        )
        return [Reading("owns", kind, "pets", lost or st.negated)] if plain or lost or st.ended else []
    gone = lost or st.negated
    if verb.lemma_ == "keep" and gone:
        return []
    out = []
    for called in names:
        if kind.lower() in R.PET_PREDICATES:
            out.append(Reading(R.PET_PREDICATES[kind.lower()], called, "pets", gone, subject=USER))
        else:
            out.append(Reading("has pet", called, "pets", gone, subject=USER))
            out.append(Reading("is a", kind, "pets", subject=called))
    return out


_NOT_KIND = frozenset({"rescue", "new", "little", "old", "young", "baby", "big", "sweet", "cute"})


def _called(noun: Token) -> list[str]:
    """The names given to a noun: "a dog named Rex", "a beagle, Toast,", "two cats, Pixel and Byte"."""
    for child in noun.children:
        if child.dep_ == "acl" and child.lemma_ in ("name", "call"):
            given = next((c for c in child.children if c.dep_ in ("oprd", "attr", "dobj", "xcomp")), None)
            if given is not None:
                return [full_name(given) if given.pos_ == "PROPN" else given.text]
        if child.dep_ == "appos" and is_name(child, beside_role=True):
            return [full_name(c) for c in coordinated(child) if is_name(c, beside_role=True)]
    return []


def _gone(verb: Token) -> bool:
    """ "gave away", "got rid of"."""
    return any(c.lower_ in ("away", "rid") for c in verb.children)


def _dobj(verb: Token) -> list[Token]:
    return [c for c in verb.children if c.dep_ in ("dobj", "attr") and c.pos_ != "PRON"]


def marry(verb: Token, st: Stance) -> list[Reading]:
    """ "I married Ben", "Lena and I got married", "we got engaged to Maria"; "I divorced Tom", "Carlos and
    I are divorced", "me and Tom split up" (married no longer). Only the user's own marriages."""
    ending = verb.lemma_ in ("divorce", "split", "break", "separate")
    if verb.lemma_ in ("split", "break") and not any(c.lower_ == "up" for c in verb.children):
        return []
    who = subjects(verb)
    if USER not in (w.text for w in who):
        return []  # "my sister married Tom" is her marriage
    partners = [p for p in [*_dobj(verb), *(o for _, o in preps(verb, "to", "with"))] if is_name(p)]
    named = [w.text for w in who if w.text != USER and not w.text.startswith("my ")]
    names = [full_name(p) for p in partners] or named
    if ending:
        return [Reading("married to", n, "family", True, subject=USER) for n in names]
    if verb.lemma_ == "engage":
        return [Reading("named", n, "family", st.negated, subject="my fiance") for n in names]
    return [
        reading
        for n in names
        for reading in (
            Reading("married to", n, "family", st.negated, subject=USER),
            Reading("named", n, "family", st.negated, subject="my spouse"),
        )
    ]


def turned(verb: Token, st: Stance) -> list[Reading]:
    """ "I just turned 40", "my dad turned sixty-one"."""
    for obj in verb.children:
        if obj.dep_ in ("dobj", "attr", "oprd", "npadvmod") and obj.pos_ == "NUM":
            age = R.age_value(phrase(obj).replace(" ", "-"))
            if age is not None and 0 < age < 120:
                return [Reading("age", str(age), "identity")]
    return []


# Verbs that end the holder's tie to a thing, whatever the tie was: "cancelled Netflix", "dropped keto",
# "ditched the gym", "had to put Biscuit down", "let my membership lapse". The fact service ends the current
# facts that name the same thing (`core.relations.ENDS_WHAT_IT_NAMES`); one that names none stores nothing.
_ENDING = frozenset("cancel drop ditch scrap abandon rehome end discontinue".split())
_LAPSE = frozenset("lapse expire".split())


def end(verb: Token, st: Stance) -> list[Reading]:
    """ "I cancelled Netflix", "we had to put Biscuit down", "let my gym membership lapse"."""
    particles = {c.lower_ for c in verb.children if c.dep_ == "prt"}
    if st.negated:
        return []
    if verb.lemma_ == "let":
        objects = [
            s for c in verb.children if c.lemma_ in _LAPSE for s in c.children if s.dep_ in SUBJECT_DEPS
        ]
    elif verb.lemma_ == "put":
        objects = _dobj(verb) if particles == {"down"} else []
    else:  # not "dropped the kids off", "ended up calling her Pepper"
        objects = _dobj(verb) if not particles and not any(preps(verb, "at", "to", "in", "into")) else []
    ended = [t for o in objects for t in things(o, plain=True)]
    return [Reading(ENDS_WHAT_IT_NAMES, t, "preferences", True) for t in ended]


FRAMES: dict[str, Frame] = {
    **dict.fromkeys((*_ENDING, "put", "let"), end),
    **dict.fromkeys(("move", "relocate", "head"), move),
    **dict.fromkeys(("live", "reside", "base", "settle", "locate"), live),
    **dict.fromkeys(("grow", "raise", "bear", "born"), origin),
    **dict.fromkeys(("work", "join", "start", "hire"), work),
    **dict.fromkeys(("quit", "leave", "retire", "lay", "say"), leave),
    **dict.fromkeys(("study", "do", "pursue", "finish"), study),
    **dict.fromkeys(("name", "call", "rename"), name),
    **dict.fromkeys(
        (
            "have",
            "own",
            "adopt",
            "rescue",
            "get",
            "keep",
            "buy",
            "purchase",
            "inherit",
            "sell",
            "lose",
            "give",
            "pick",
            "rid",
        ),
        possess,
    ),
    **dict.fromkeys(("marry", "engage", "divorce", "split", "break", "separate"), marry),
    "turn": turned,
}
NOUN_FRAMES: dict[str, Frame] = {"move": move_noun}

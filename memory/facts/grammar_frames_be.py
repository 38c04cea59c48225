"""Verb frames of tastes and of being: like/love/hate, switch to, stop, "no longer", and the copula.

Preferences take their polarity from the parse: "I don't like X" dislikes X; "I don't drink coffee
anymore" / "I no longer play tennis" / "I stopped eating meat" / "I used to love running" say a liking has
ended (likes, negated); "I switched from coffee to tea" ends one and starts the other. The copula reads "I'm
a nurse" (is a), "I'm 34" (age), "I'm from Lyon", "I'm allergic to cats", "I'm into climbing", "I'm at
Google now", "Portland is home now" and "Jo is my sister" / "my name is Sam" (names).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from memory.facts import extraction_rules as R
from memory.facts.extraction_clauses import HEDGED
from memory.facts.extraction_objects import _gerund, third_person
from memory.facts.grammar_clauses import Stance
from memory.facts.grammar_frames import FRAMES, Frame, Reading, org, place, preps
from memory.facts.grammar_phrases import (
    SUBJECT_DEPS,
    USER,
    coordinated,
    full_name,
    is_name,
    is_role,
    name_before,
    phrase,
    possessed,
    role_before,
    role_text,
    subjects,
    things,
)

if TYPE_CHECKING:
    from spacy.tokens import Token

_LIKE = frozenset("like love enjoy adore dig fancy prefer".split())
_HATE = frozenset("hate dislike detest loathe despise".split())
# Verbs whose object is the taste itself ("I don't drink coffee anymore" -> coffee, "play tennis" -> tennis).
_LIGHT = frozenset("play drink eat do watch smoke have take use listen read ride".split())
_STOP = frozenset("stop quit give cut".split())
_NOT_ROLES = R.NOT_A_ROLE | frozenset(
    "mess wreck person guy girl one thing fan idiot night owl morning type bit student user".split()
) - {"student", "user"}
_LANGUAGE_LEVEL = re.compile(
    r"^(?:a\s+)?(?:little|bit\s+of|some|basic|fluent|conversational|decent|broken)\s+(?:bit\s+of\s+)?", re.I
)


def taste(verb: Token, st: Stance) -> list[Reading]:
    """ "I love hiking and jazz", "I hate flying", "I don't like opera", "I used to love running"."""
    liked = verb.lemma_ in _LIKE
    if verb.lemma_ == "stand":  # "I can't stand coriander"
        if not (st.negated and any(c.lemma_ == "can" for c in verb.children)):
            return []
        liked, st = False, Stance(st.confidence)
    objects = _taste_objects(verb)
    if verb.lemma_ == "prefer":  # "I prefer tea to coffee": only what is preferred
        objects = objects[:1]
    if st.ended:
        return [Reading("likes", t, "preferences", True) for t in objects] if liked else []
    predicate = "likes" if liked != st.negated else "dislikes"
    return [Reading(predicate, t, "preferences") for t in objects]


def _taste_objects(verb: Token) -> list[str]:
    for child in verb.children:
        if child.dep_ in ("dobj", "attr") and child.pos_ not in ("PRON", "DET"):
            return things(child, plain=True)
        if child.dep_ in ("xcomp", "ccomp") and child.pos_ == "VERB" and not _has_subject(child):
            return [activity(v) for v in coordinated(child) if v.pos_ == "VERB"]
    return []


def activity(verb: Token) -> str:
    """ "to cook Thai food" / "cooking Thai food" -> "cooking Thai food"; "running" -> "running"."""
    words = [t for t in verb.subtree if t.i >= verb.i and t.dep_ not in ("advcl", "mark", "punct")]
    cut = next((t.i for t in words if t.dep_ in ("cc", "conj") and t.head.i == verb.i), None)
    cut = cut or next(
        (t.i for t in words if t.dep_ in ("advcl", "conj", "prep") and t.head.i != verb.i), None
    )
    text = " ".join(t.text for t in words if cut is None or t.i < cut)
    head, _, rest = text.partition(" ")
    lead = head if verb.tag_ == "VBG" else _gerund(verb.lemma_)
    return R.THING_CUT.sub("", f"{lead} {rest}".strip())


def _has_subject(verb: Token) -> bool:
    return any(c.dep_ in SUBJECT_DEPS for c in verb.children)


def ended_activity(verb: Token, st: Stance) -> list[Reading]:
    """ "I no longer play tennis", "I don't drink coffee anymore", "I used to run": a liking that ended."""
    if not st.ended or verb.lemma_ in FRAMES:
        return []
    if verb.lemma_ in ("want", "plan"):  # "I no longer want to move abroad"
        aim = next((c for c in verb.children if c.dep_ == "xcomp" and c.pos_ == "VERB"), None)
        return [Reading("wants", base_form(aim), "goals", True)] if aim is not None else []
    obj = next((c for c in verb.children if c.dep_ == "dobj"), None)
    if obj is not None and obj.pos_ == "PRON":
        return []  # "I can't watch them anymore": what it was is in another clause
    if obj is not None and verb.lemma_ in _LIGHT:
        return [Reading("likes", t, "preferences", True) for t in things(obj, plain=True)]
    return [Reading("likes", activity(verb), "preferences", True)] if verb.pos_ == "VERB" else []


# Verbs of thinking, saying, perceiving and valuing, and light verbs: their object is a topic of the moment,
# not a habit ("I know the answer", "I value your opinion", "we make a great team", "I need a break").
_NOT_HABITS = frozenset(
    "know think mean need guess hope say tell feel remember understand believe wonder forget doubt suppose "
    "expect appreciate value mind bet see hear ask thank miss love like hate enjoy want wish try use let "
    "make take give get do put".split()
)


# The general reading's facts carry this category until `grammar.GrammarFactExtractor` files them under
# "preferences": a habit that a more specific fact of the same sentence already states is dropped there.
HABIT = "habit"


def habit(verb: Token, st: Stance) -> list[Reading]:
    """ "I play the cello", "I walk the dog twice a day", "my brother brews his own beer": a main verb no
    frame covers, in the simple present with a noun object, is read as what the subject does, relation the
    verb itself ("plays", "walks"); the general reading behind the frames. Ended ones are
    `ended_activity`'s; phrasal verbs ("mess up") and verbs of thinking or saying are not habits."""
    # a main clause; a complement of a noun is one too ("I subscribe to X, the family plan": the parse
    # makes the aside its root)
    main = verb.dep_ in ("ROOT", "conj") or verb.dep_ == "ccomp" and verb.head.pos_ == "NOUN"
    if st.ended or st.negated or verb.tag_ not in ("VBP", "VBZ") or not main:
        return []
    if {verb.lemma_, verb.lower_.removesuffix("s")} & _NOT_HABITS or any(
        c.dep_ == "prt" for c in verb.children
    ):
        return []
    obj = next((c for c in verb.children if c.dep_ == "dobj"), None)
    relation = third_person(verb.lemma_)
    if obj is None:  # "I subscribe to Netflix", "I belong to a choir": the object of "to"
        obj = next((o for _, o in preps(verb, "to")), None)
        relation += " to"
    if obj is None or obj.pos_ not in ("NOUN", "PROPN") or verb.lemma_ in _TO_SOMEONE:
        return []
    return [Reading(relation, t, HABIT) for t in things(obj, plain=True)]


# Verbs whose "to" names whom one speaks or answers to, not a habit ("I apologise to you", "I reply to Sam").
_TO_SOMEONE = frozenset(
    "talk speak reply respond apologise apologize write explain refer object agree".split()
)


def stop(verb: Token, st: Stance) -> list[Reading]:
    """ "I stopped drinking coffee", "I gave up meat", "I quit smoking" (a liking that ended)."""
    if verb.lemma_ in ("give", "cut") and not any(c.lower_ in ("up", "out") for c in verb.children):
        return []
    for child in verb.children:
        if child.dep_ in ("xcomp", "dobj", "pcomp") and child.tag_ == "VBG":
            inner = ended_activity(child, Stance(st.confidence, True, True))
            return inner or [Reading("likes", activity(child), "preferences", True)]
        if child.dep_ == "dobj" and child.pos_ == "NOUN" and child.lemma_ not in ("job", "work"):
            return [Reading("likes", t, "preferences", True) for t in things(child, plain=True)]
    return []


def switch(verb: Token, st: Stance) -> list[Reading]:
    """ "I switched to tea", "I switched from coffee to tea": the new taste, and the old one ended."""
    out = []
    for word, obj in preps(verb, "to", "from"):
        for thing in things(obj, plain=True):
            out.append(Reading("likes", thing, "preferences", word == "from"))
    return out


def speak(verb: Token, st: Stance) -> list[Reading]:
    """ "I speak German and a little Mandarin"."""
    obj = next((c for c in verb.children if c.dep_ == "dobj"), None)
    if obj is None or st.negated:
        return []
    languages = [_LANGUAGE_LEVEL.sub("", t) for t in things(obj)]
    return [Reading("speaks", t, "identity") for t in languages if t[:1].isupper()]


def be(verb: Token, st: Stance) -> list[Reading]:
    """The copula: what the subject is, where from, at, into, allergic to; and names."""
    out: list[Reading] = []
    for child in verb.children:
        reader = _COPULA.get(child.dep_)
        if reader is not None:
            out += reader(verb, child, st)
    return out + _goal(verb, st)


_GOALS = frozenset("priority goal dream aim ambition plan".split())


def _goal(verb: Token, st: Stance) -> list[Reading]:
    """ "Paying off my loans is my number one priority", "Seeing X is at the top of my bucket list", "the
    plan is to retrain as a nurse": what the user wants (in the base form, "pay off my loans")."""
    if st.negated:
        return []
    attr = next((c for c in verb.children if c.dep_ == "attr"), None)
    listed = any(o.lower_ == "top" for _, o in preps(verb, "at"))
    doing = next((c for c in verb.children if c.dep_ == "csubj" and c.tag_ == "VBG"), None)
    mine = attr is not None and any(t.dep_ == "poss" and t.lower_ in ("my", "our") for t in attr.subtree)
    if doing is not None and (listed or attr is not None and attr.lemma_ in _GOALS and mine):
        return [Reading("wants", base_form(doing, end=verb.i), "goals", subject=USER)]
    subject = next((c for c in verb.children if c.dep_ == "nsubj"), None)
    aim = next((c for c in verb.children if c.dep_ == "xcomp" and c.pos_ == "VERB"), None)
    if subject is not None and aim is not None and subject.lemma_ in _GOALS:
        mine = possessed(subject) or any(c.lower_ == "the" for c in subject.children)
        return [Reading("wants", base_form(aim), "goals", subject=USER)] if mine else []
    return []


def base_form(verb: Token, end: int | None = None) -> str:
    """ "Paying off my student loans" -> "pay off my student loans"; `end` bounds the words taken."""
    stop = end if end is not None else verb.right_edge.i + 1
    words = [verb.lemma_ + verb.whitespace_]
    for token in verb.doc[verb.i + 1 : stop]:
        if token.is_punct or token.dep_ in ("cc", "mark") or token.lower_ in ("when", "because", "so"):
            break
        words.append(token.text_with_ws)
    return "".join(words).strip()


def _attr(verb: Token, attr: Token, st: Stance) -> list[Reading]:
    subject = next((c for c in verb.children if c.dep_ in SUBJECT_DEPS), None)
    if attr.pos_ == "NUM" and verb.tag_ in ("VBD",):
        return []  # "when I was six"
    if attr.pos_ == "NUM":  # "I'm 34", "I'm 34 years old"; not "twelve years" of something
        after = attr.nbor(1) if attr.i + 1 < len(attr.doc) else None
        counted = (
            after is not None
            and after.pos_ == "NOUN"
            and not (after.lemma_ == "year" and "old" in attr.sent.text)
        )
        return [] if counted else _age(attr)
    if attr.lower_ == "home" and subject is not None and (where := place(subject)):
        return [Reading("lives in", where, "location", st.negated, subject=USER)]  # "Portland is home now"
    if subject is not None and (about := _about_subject(subject, attr)) is not None:
        return about
    if attr.lower_ == "fan":
        liked = [t for _, o in preps(attr, "of") for t in things(o, plain=True)]
        return [
            Reading("dislikes" if st.negated and not st.ended else "likes", t, "preferences", st.ended)
            for t in liked
        ]
    called = _called_kind(attr)
    if called is not None and subject is not None and is_role(subject) and possessed(subject):
        return [  # "my dog is a golden retriever named Biscuit"
            Reading("named", called, "pets", subject=role_text(subject)),
            Reading("is a", phrase(attr), "pets", subject=called),
        ]
    if (
        attr.pos_ in ("PROPN", "PRON")
        or attr.lemma_ in _NOT_ROLES
        or any(c.lower_ == "the" for c in attr.children)
    ):
        return []  # "the best boss I've ever had" describes, it does not classify
    roles = [Reading("is a", t, "identity", st.negated) for t in things(attr, plain=True)]
    for _, obj in preps(attr, "at", "for", "with"):
        if (employer := org(obj)) is not None and attr.lemma_ == "student":
            return [Reading("studies at", employer, "work", st.negated)]  # "a student at MIT"
        if employer is not None:
            roles.append(Reading("works at", employer, "work", st.negated))
    return roles


def _about_subject(subject: Token, attr: Token) -> list[Reading] | None:
    """What "X is Y" says when X decides it: a name ("my name is Sam", "the cat is Mochi", "Jo is my
    sister") or a taste ("Mushrooms are the worst"); None when X leaves it to the attribute."""
    if subject.lower_ == "name":
        return _my_name(subject, attr)  # "my name is ..." is a name or nothing
    return _role_named(subject, attr) or _verdict(subject, attr) or None


_FAVOURITE = frozenset("pleasure favourite favorite jam weakness obsession".split())


def _verdict(subject: Token, attr: Token) -> list[Reading]:
    """ "Mushrooms are the worst" (disliked), "Murder mysteries are my guilty pleasure" (liked)."""
    if subject.pos_ != "NOUN" or is_role(subject) or any(c.dep_ in ("det", "poss") for c in subject.children):
        return []  # "the weather is the worst" is a complaint about now, not a taste
    if attr.lower_ == "worst":
        return [Reading("dislikes", t, "preferences", subject=USER) for t in things(subject, plain=True)]
    if attr.lower_ in _FAVOURITE and possessed(attr):
        return [Reading("likes", t, "preferences", subject=USER) for t in things(subject, plain=True)]
    return []


def _role_named(subject: Token, attr: Token) -> list[Reading]:
    """ "the cat is Mochi" (my cat named Mochi), "Jo is my sister" (my sister named Jo)."""
    plain = not any(c.dep_ == "det" for c in attr.children)  # not "is a Maine Coon"
    if _owned_role(subject) and plain and is_name(attr, beside_role=True):
        return [Reading("named", full_name(attr), _category(subject), subject=role_text(subject))]
    if is_role(attr) and possessed(attr) and is_name(subject):
        return [Reading("named", full_name(subject), "family", subject=role_text(attr))]
    return []


def _lasting(verb: Token) -> bool:
    """ "in Madrid now", "still in Leeds", "in Leeds these days": where someone is, not a visit."""
    words = {c.lower_ for c in verb.children if c.dep_ in ("advmod", "npadvmod")}
    days = any(c.lemma_ == "day" and any(d.lower_ == "these" for d in c.children) for c in verb.children)
    visit = any(c.dep_ == "prep" and c.lower_ in ("for", "on", "until") for c in verb.children)
    return (bool(words & {"now", "still", "currently", "nowadays"}) or days) and not visit


def _owned_role(token: Token) -> bool:
    """ "my cat", "our puppy", "the cat" (said of the user's own): a role the user has."""
    return is_role(token) and (possessed(token) or any(c.lower_ in ("the", "our") for c in token.children))


def _called_kind(noun: Token) -> str | None:
    for child in noun.children:
        if child.dep_ == "acl" and child.lemma_ in ("name", "call"):
            given = next((c for c in child.children if c.dep_ in ("oprd", "attr", "dobj")), None)
            if given is not None and given.text[:1].isupper():
                return full_name(given)
    return None


def _my_name(subject: Token, attr: Token) -> list[Reading]:
    """ "my name is Sam", "my sister's name is Jo"."""
    owner = next((c for c in subject.children if c.dep_ == "poss"), None)
    if owner is None or not (attr.pos_ == "PROPN" or attr.text[:1].isupper()):
        return []
    if owner.lower_ == "my":
        return [Reading("named", full_name(attr), "identity", subject=USER)]
    if is_role(owner) and possessed(owner):
        return [Reading("named", full_name(attr), "family", subject=role_text(owner))]
    return []


def _age(number: Token) -> list[Reading]:
    value = R.age_value(number.text)
    return [Reading("age", str(value), "identity")] if value is not None and 0 < value < 120 else []


def _acomp(verb: Token, adj: Token, st: Stance) -> list[Reading]:
    low = adj.lower_
    if low == "allergic":
        return [
            Reading("allergic to", t, "identity", st.negated) for _, o in preps(adj, "to") for t in things(o)
        ]
    if low == "fluent" and not st.negated:
        return [Reading("speaks", t, "identity") for _, o in preps(adj, "in") for t in things(o)]
    if low in ("married", "engaged"):
        role = "my spouse" if low == "married" else "my fiance"
        return [
            Reading("named", full_name(o), "family", subject=role) for _, o in preps(adj, "to") if is_name(o)
        ]
    if low in ("obsessed", "passionate", "crazy", "mad", "keen"):  # "obsessed with dinosaurs"
        liked = [t for _, o in preps(adj, "with", "about", "on") for t in things(o, plain=True)]
        return [Reading("dislikes" if st.negated else "likes", t, "preferences") for t in liked]
    if low in R.IDENTITY_ADJECTIVES or low in R.NATIONALITIES:
        return [Reading("is a", adj.text, "identity", st.negated)]
    return []


def _prep(verb: Token, prep: Token, st: Stance) -> list[Reading]:
    obj = next((c for c in prep.children if c.dep_ == "pobj"), None)
    if obj is None:
        return []
    word = prep.lower_
    if word == "from" and (where := place(obj)):
        return [Reading("is from", where, "location", st.negated)]
    if word == "in" and _lasting(verb) and (where := place(obj)):
        return [Reading("lives in", where, "location", st.negated)]  # "Ana's in Madrid now"
    if word == "into":
        things_liked = things(obj, plain=True)
        if st.ended:
            return [Reading("likes", t, "preferences", True) for t in things_liked]
        return [Reading("dislikes" if st.negated else "likes", t, "preferences") for t in things_liked]
    if word == "at" and (obj.ent_type_ == "ORG" or any(c.lemma_ == "call" for c in obj.children)):
        return [Reading("works at", employer, "work", st.negated)] if (employer := org(obj)) else []
    return []


def said_alone(adj: Token, st: Stance) -> list[Reading]:
    """ "so pescatarian I guess", "vegan now!": an identity adjective said without a subject or verb is
    said of the user; "I guess" hedges it."""
    if adj.dep_ != "ROOT" or adj.lower_ not in R.IDENTITY_ADJECTIVES or _has_subject(adj):
        return []
    hedged = any(c.lemma_ in ("guess", "think", "suppose", "reckon") for c in adj.children)
    return [Reading("is a", adj.text, "identity", st.negated, USER, HEDGED if hedged else None)]


_DULL = frozenset("boring dull tedious annoying overrated gross disgusting unbearable exhausting".split())
_FUN = frozenset("fascinating relaxing fun amazing brilliant therapeutic addictive".split())


def find(verb: Token, st: Stance) -> list[Reading]:
    """ "I find fantasy boring", "I find running relaxing" (however the parse splits the two words)."""
    if st.negated:
        return []
    for obj in (c for c in verb.children if c.dep_ in ("dobj", "ccomp", "xcomp", "oprd")):
        judged = (
            obj
            if obj.lower_ in _DULL | _FUN
            else next(
                (
                    c
                    for c in verb.children
                    if c.dep_ in ("oprd", "xcomp", "ccomp") and c.lower_ in _DULL | _FUN
                ),
                None,
            )
        )
        if judged is None:
            continue
        thing = [c for c in obj.children if c.dep_ in ("compound", "nsubj")] if judged is obj else [obj]
        predicate = "dislikes" if judged.lower_ in _DULL else "likes"
        return [Reading(predicate, phrase(t), "preferences") for t in thing[:1]]
    return []


def not_a_fan(noun: Token, st: Stance) -> list[Reading]:
    """ "Not a fan of crowds", "Big fan of jazz": a fragment that opens the message."""
    if noun.dep_ == "attr" or noun.left_edge.i != noun.sent.start:
        return []
    liked = [t for _, o in preps(noun, "of") for t in things(o, plain=True)]
    return [Reading("dislikes" if st.negated else "likes", t, "preferences", subject=USER) for t in liked]


def allergy(noun: Token, st: Stance) -> list[Reading]:
    """ "I've got a sesame allergy", "Penicillin allergy here", "my son has a nut allergy"."""
    if st.negated:
        return []
    what = [c for c in noun.lefts if c.dep_ == "compound"] or [o for _, o in preps(noun, "to")]
    if not what:
        return []
    owned = noun.dep_ == "dobj" and noun.head.lemma_ in ("have", "get", "develop")
    opens = noun.left_edge.i == noun.sent.start  # a fragment: "Penicillin allergy here"
    if not (owned or opens):
        return []
    return [Reading("allergic to", phrase(w), "identity", subject=None if owned else USER) for w in what[:1]]


def as_a(prep: Token, st: Stance) -> list[Reading]:
    """ "As a Muslim I don't drink": the user is one, whatever the clause then says."""
    obj = next((c for c in prep.children if c.dep_ == "pobj"), None)
    if prep.i != prep.sent.start or obj is None or not any(c.lower_ in ("a", "an") for c in obj.children):
        return []
    if USER not in (w.text for w in subjects(prep.head)):
        return []
    if obj.lemma_ == "speaker":  # "As a native Spanish speaker"
        return [
            Reading("speaks", c.text, "identity", subject=USER) for c in obj.lefts if c.text[:1].isupper()
        ]
    if not _kind_of_person(obj):
        return []  # "As a kid I ...", "As a result ..." say what someone was, or nothing
    return [Reading("is a", t, "identity", subject=USER) for t in things(obj, plain=True)]


def _kind_of_person(noun: Token) -> bool:
    """ "Muslim", "vegetarian", "teacher", "parent", "dentist": a belief, diet or trade, not a life stage."""
    low = noun.lower_
    return (
        noun.ent_type_ == "NORP"
        or low in R.IDENTITY_ADJECTIVES
        or low in R.NATIONALITIES
        or low.endswith(("er", "or", "ist", "ian", "ent", "ant"))
        and low not in ("teenager", "youngster", "beginner", "newcomer", "outsider", "member")
    )


_COPULA = {"attr": _attr, "acomp": _acomp, "prep": _prep}
BE_FRAMES: dict[str, Frame] = {
    "be": be,
    **dict.fromkeys(_LIKE | _HATE | {"stand"}, taste),
    **dict.fromkeys(_STOP, stop),
    "switch": switch,
    "speak": speak,
    "find": find,
}


def appositive_names(token: Token) -> list[Reading]:
    """ "my sister Jo", "my dog, Rex,", "Darnell, my supervisor,": the user's people and pets by name."""
    role = role_before(token) if is_name(token, beside_role=True) else None
    if role is not None:  # "my parrot Kiwi" with the name as the head
        return [Reading("named", full_name(token), _category(role), subject=role_text(role))]
    if not (is_role(token) and possessed(token)):
        return []
    before = name_before(token)
    if before is not None:  # "Milo, my labrador, is allergic to wheat"
        return [Reading("named", full_name(before), _category(token), subject=role_text(token))]
    for child in token.children:
        if (
            child.dep_ in ("appos", "compound", "npadvmod")
            and child.i > token.i
            and is_name(child, beside_role=True)
        ):
            return [Reading("named", full_name(child), _category(token), subject=role_text(token))]
    if token.dep_ == "appos" and is_name(token.head, beside_role=True):
        return [Reading("named", full_name(token.head), _category(token), subject=role_text(token))]
    return []


def _category(role: Token) -> str:
    low = role.lower_
    return (
        "pets" if low in R.PET_WORDS or low in R.ANIMAL_KINDS else "work" if low in R.WORK_ROLES else "family"
    )

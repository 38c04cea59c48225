"""Reading a correction against what is known: "he's at Microsoft" after "my husband works at Google".

A correction is elliptical. "Correction regarding my husband's employer: I mixed it up, he's at Microsoft",
"I got the town wrong when I told you about Edith's care home, it's in Poole", "oops, Eli's actually 8":
each names the new value and leaves the relation and the old value to what was said before, so no sentence
frame reads a fact from it. Read against the current facts it is plain: the message says that something
told before was wrong (a correction marker), it speaks of someone a fact is about, and it names a value of
the same kind as one of that someone's values. The new value takes the old one's subject and relation and
names the old one as the value it replaces; the verification gate and the store then supersede it as they
do any correction.

One mechanism for every relation, with two ways to tell that values are of one kind: relations whose
values have a kind spaCy's entities show (a place, an organisation, a name, a number, a language) take a
value of that kind; any other relation takes the value most like the old one by meaning (MiniLM), above a
floor. Whose value it is comes from the parse: the subject of the value's clause ("my friend now works at
Apple" is not the user's job). What the message calls the thing it corrects ("the wrong hospital", "about
Anika's job") names the old value, never a new one, and picks among the subject's facts.

A move told without a correction ("we're fully moved in now", "Priya's back in Bangalore for good") is
read the same way, for where someone lives only and only with a verb of settling (`_SETTLING`), "back
home", "back in/to" a place or "for good": "I'm in London now for a conference" moves no one.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from core.ports import ExtractedFact
from core.relations import RELATION_QUESTIONS, normalize
from memory.facts.matching import names_same_thing, object_key, same_object
from memory.facts.model import USER, StoredFact, subject_key

if TYPE_CHECKING:
    import numpy as np

    from core.nlp import SpacyPipeline

Embed = Callable[[Sequence[str]], "np.ndarray"]

# Words that say an earlier statement was wrong (lemmas or forms); "I meant", "mixed up" and "why I said
# that" are read from the parse.
_CORRECTION_WORDS = frozenset("correction misspeak misspoke typo oops autocorrect".split())
_SAYING = frozenset("say tell type write put".split())
# "wrong" of a statement ("the wrong town", "I got that wrong"), not of events ("what went wrong")
_GOT_WRONG = _SAYING | {"get", "have", "give", "remember"}
# Verbs that say a move is settled, not a visit ("moved in", "relocated to"; also "back home", "back in
# Dublin", "for good"); and the words of a stay with an end ("in London for a conference", "back in Paris
# for the weekend").
_SETTLING = frozenset("move relocate settle".split())
_SETTLED_PHRASES = ("for good",)
_STAYS = frozenset(
    """trip visit holiday holidays vacation conference weekend week wedding funeral break spend
    christmas""".split()
)
# Verbs that put one thing in another's place ("swapped Prime Video for NOW TV", "switched to giffgaff",
# "traded the Trek for a Brompton"). Not "instead": on real chat it was mostly an alternative in a story
# ("he hiked instead of flying"), 22 false replacements in 10,000 Topical-Chat utterances.
_REPLACING = frozenset("swap switch replace trade exchange upgrade ditch".split())
# A value added beside the old one, not instead of it.
_ADDITIVE = frozenset("too also additionally another second".split())
_FIRST_PERSON = frozenset("i me my mine myself we us our ours".split())
_THIRD_PERSON = frozenset("he she they him her them his hers their theirs".split())
_ANYONE = frozenset("it that this there which what who".split())  # "it's in Poole": the message says whose
THIRD_PARTY = "he/she/they"  # a value's speaker named by a pronoun only
# Nouns that name a slot or a statement, never a value ("the wrong one", "what I said").
_NOT_VALUES = frozenset(
    """thing one bit part stuff time earlier before what name job place town city country model number age
    language employer company work sport hobby pet correction mistake typo update lol haha idea""".split()
)
_KINDS = {
    "lives_in": "place",
    "born_in": "place",
    "works_at": "organisation",
    "studies_at": "organisation",
    "named": "name",
    "age": "number",
    "speaks": "language",
}
_ENTITY_KINDS = {
    "place": frozenset({"GPE", "LOC", "FAC"}),
    "organisation": frozenset(
        {"ORG", "FAC", "PERSON", "PRODUCT", "WORK_OF_ART"}
    ),  # spaCy: "Capgemini" PERSON
    "name": frozenset({"PERSON", "ORG", "PRODUCT", "NORP", "GPE", ""}),
    "language": frozenset({"NORP", "LANGUAGE"}),
}
_VALUE_LABELS = frozenset(
    {"GPE", "LOC", "FAC", "ORG", "PERSON", "NORP", "LANGUAGE", "PRODUCT", "WORK_OF_ART", "EVENT", "CARDINAL"}
)
MIN_LIKENESS = 0.3  # an untyped value at least this like the old one by meaning (MiniLM cosine)
MAX_AGE = 120


@dataclass(frozen=True)
class Value:
    """A value the message names: its text, spaCy's entity label (or ""), whether it is a proper name, and
    whose it is by its clause's subject: `USER`, `THIRD_PARTY`, "" (the message does not say) or a noun."""

    text: str
    label: str
    proper: bool
    speaker: str


@dataclass(frozen=True)
class Update:
    """The fact a correction replaces and the value that replaces it, with how well they fit."""

    old: StoredFact
    value: Value
    score: float


class UpdateReader:
    """Which current fact a correcting message replaces, and with what (`read`)."""

    def __init__(self, nlp: SpacyPipeline, embed: Embed, *, min_likeness: float = MIN_LIKENESS) -> None:
        self._nlp = nlp
        self._embed = embed
        self._min_likeness = min_likeness

    def read(self, message: str, known: Sequence[StoredFact]) -> list[ExtractedFact]:
        """The corrected fact `message` states about `known` (the current facts), naming the value it
        replaces; empty when the message corrects nothing known."""
        if not known or not message.strip():
            return []
        doc = self._nlp(message)
        correcting, replacing = is_correction(doc), is_replacement(doc)
        if not (correcting or replacing or is_settled_move(doc)) or _additive(doc):
            return []
        topics = _topics(doc)
        values = [v for v in _values(doc, topics) if not _known_value(v.text, known)]
        if not (correcting or replacing):  # a settled move changes where someone lives, not a birthplace
            known = [f for f in known if f.relation == "lives_in"]
        pairs = [(f, v) for v in values for f in _whose(v, message, known)]
        best = self._best(pairs, topics) if pairs else None
        if best is None:
            return []
        old, value = best.old, best.value
        return [
            ExtractedFact(
                subject=old.subject,
                predicate=old.relation,
                object=value.text,
                category=old.category,
                scope=old.scope,
                excerpt=message[:200],
                confidence=0.9,
                replaces=old.object,
            )
        ]

    def _best(self, pairs: Sequence[tuple[StoredFact, Value]], topics: Sequence[str]) -> Update | None:
        """The best (old fact, new value) pair: of the same kind, the value most like the old one, the fact
        most like what the message says it corrects."""
        facts = list({f.id: f for f, _ in pairs}.values())
        values = list({v.text: v for _, v in pairs}.values())
        texts = [v.text for v in values] + [f.object for f in facts] + list(topics)
        texts += [RELATION_QUESTIONS.get(f.relation, f.relation.replace("_", " ")) for f in facts]
        vectors = iter(self._embed(texts))  # in the order of `texts`
        at_value = {v.text: next(vectors) for v in values}
        at_fact = {f.id: next(vectors) for f in facts}
        topic_vecs = [next(vectors) for _ in topics]
        at_question = {f.id: next(vectors) for f in facts}
        best: Update | None = None
        for fact, value in pairs:
            if same_object(value.text, fact.object):
                continue
            likeness = float(at_value[value.text] @ at_fact[fact.id])
            kind = _KINDS.get(fact.relation)
            if kind is not None and not _of_kind(value, kind):
                continue
            if kind is None and (likeness < self._min_likeness or value.proper != _proper(fact.object)):
                continue
            about = 0.0  # how well the fact is what the message says it corrects
            for i, topic in enumerate(topics):
                named = names_same_thing(topic, fact.relation, fact.object)
                like = max(
                    float(topic_vecs[i] @ at_fact[fact.id]), float(topic_vecs[i] @ at_question[fact.id])
                )
                about = max(about, 1.0 if named else like)
            score = likeness + about + (1.0 if kind is not None else 0.0)
            if best is None or score > best.score:
                best = Update(fact, value, score)
        return best


def is_correction(doc: Any) -> bool:
    """Whether a parsed message says that something told before was wrong ("I got the town wrong",
    "sorry, I meant", "I mixed it up", "oops", "no idea why I said that"). Not "actually", "I mean" or "wrong"
    of events: in real chat they are emphasis, fillers and opinions far more often than corrections."""
    if doc.text.lstrip().startswith("*"):
        return True  # "*Houston": the chat convention for a fix
    return any(_marks_correction(token) for token in doc)


def _marks_correction(token: Any) -> bool:
    lemma, lower, doc = token.lemma_.lower(), token.lower_, token.doc
    if lemma in _CORRECTION_WORDS or lower in _CORRECTION_WORDS:
        return True
    if lower == "no":  # "wait no, piano and viola"; not "No, I haven't tried it" or "oh no"
        return token.i < 3 and any(t.lower_ == "wait" for t in doc[max(token.i - 1, 0) : token.i + 2])
    if (
        lower == "wrong"
    ):  # "I told you the wrong town", "I got that wrong"; not "what went wrong", "the wrong call"
        said = token.head.head if token.dep_ == "amod" and token.head.dep_ in ("dobj", "attr") else token.head
        return said.lemma_ in _GOT_WRONG
    if lemma == "mistake":  # "my mistake", "mistake: it's Poole"; not "I make mistakes"
        return token.i < 3 or any(c.lower_ == "my" for c in token.children)
    if lemma == "scratch":  # "scratch what I said"; not "from scratch"
        return token.dep_ != "pobj" and token.i < 3
    said_by_me = any(c.lower_ == "i" for c in token.children)
    if lemma == "mean":  # "sorry, I meant Tucson"; not "I mean, ..." (a filler)
        return said_by_me and token.tag_ in ("VBD", "VBN")
    if lemma == "mix":
        return any(c.dep_ == "prt" and c.lower_ == "up" for c in token.children)
    return lemma in _SAYING and said_by_me and any(c.lower_ == "why" for c in token.children)


def is_replacement(doc: Any) -> bool:
    """Whether a parsed message tells of the user putting one thing in another's place, as done: "swapped
    Prime Video for NOW TV", "I've switched to giffgaff", "we traded the Trek for a Brompton"; not a plan
    ("thinking of switching", "might swap"), someone else's ("he got traded") or a question."""
    if doc.text.rstrip().endswith("?"):
        return False
    return any(_replaced(token) for token in doc)


def _replaced(token: Any) -> bool:
    if token.lemma_.lower() not in _REPLACING or token.pos_ != "VERB" or token.tag_ not in ("VBD", "VBN"):
        return False
    subjects = [c for c in token.children if c.dep_ == "nsubj"]
    passive = any(c.dep_ in ("auxpass", "nsubjpass") for c in token.children)  # "he got replaced by…"
    planned = any(c.tag_ == "MD" for c in token.children) or token.dep_ in ("xcomp", "pcomp")
    return not (planned or passive) and all(s.lower_ in ("i", "we") for s in subjects)


def _dated(preposition: Any) -> bool:
    return preposition.pos_ == "ADP" and any(c.ent_type_ in ("DATE", "TIME") for c in preposition.subtree)


def is_settled_move(doc: Any) -> bool:
    """Whether a parsed message tells of a move that lasts ("back home in Dublin now", "moved in"), not a
    stay with an end ("I went back to Paris for a week", "in London for a conference, back on Sunday")."""
    text = f" {doc.text.lower()} "
    if any(f" {p} " in text for p in _SETTLED_PHRASES):
        return True
    bounded = any(t.lemma_.lower() in _STAYS for t in doc) or any(  # "for a week", "back on the 3rd"
        _dated(t) and (t.lower_ in ("for", "until", "till") or t.i > 0 and doc[t.i - 1].lower_ == "back")
        for t in doc
    )
    return not bounded and any(_moved(t) or _back_to_a_place(t) for t in doc)


def _moved(token: Any) -> bool:
    """ "we moved", "has relocated", "we're moved in"; not "moving next month", "should have moved"."""
    if token.lemma_.lower() not in _SETTLING or token.tag_ not in ("VBD", "VBN"):
        return False
    return not any(c.tag_ == "MD" for c in token.children)


def _back_to_a_place(token: Any) -> bool:
    """ "back home", "back in Bangalore", "came back to Ottawa"; not "back in the 60s", "back to Hilary"."""
    if token.lower_ != "back" or token.i + 1 >= len(token.doc):
        return False
    after = token.doc[token.i + 1]
    if after.lower_ == "home":  # "back home in Dublin now"
        return True
    return after.lower_ in ("in", "to") and any(t.ent_type_ in ("GPE", "LOC") for t in after.subtree)


def _additive(doc: Any) -> bool:
    return any(token.lower_ in _ADDITIVE for token in doc) or "as well" in doc.text.lower()


def _whose(value: Value, message: str, known: Sequence[StoredFact]) -> list[StoredFact]:
    """The current facts the value may replace: those of its clause's subject; when the clause does not
    say, of someone the message names, else the user's when it speaks in the first person and anyone's
    when it says "he", "she" or "they"."""
    others = [f for f in known if subject_key(f.subject) != USER]
    mine = [f for f in known if subject_key(f.subject) == USER]
    if value.speaker == USER:
        return mine
    if value.speaker and value.speaker != THIRD_PARTY:  # a noun: someone known by that name or role
        said = f" {normalize(value.speaker)} "
        return [f for f in others if _mentions(said, f.subject)]
    said = f" {normalize(message)} "
    named = [f for f in others if _mentions(said, f.subject)]
    if named:
        return named
    words = set(said.split())
    theirs = _the_users_people(known)  # "he", "they" named by no one in the message: someone of the user's
    if value.speaker == THIRD_PARTY:
        return theirs
    if not words & (_FIRST_PERSON | _THIRD_PERSON):  # "*Houston, sorry": the kind of value says whose
        return mine + theirs
    return (mine if words & _FIRST_PERSON else []) + (theirs if words & _THIRD_PERSON else [])


def _the_users_people(known: Sequence[StoredFact]) -> list[StoredFact]:
    """The facts of the user's people: a role of theirs ("my parents") or whom a role names ("Anika")."""
    names = {
        subject_key(f.object)
        for f in known
        if f.relation == "named" and subject_key(f.subject).startswith("my ")
    }
    return [f for f in known if (key := subject_key(f.subject)).startswith("my ") or key in names]


def _mentions(said: str, subject: str) -> bool:
    key = subject_key(subject)
    if f" {key} " in said:
        return True
    noun = key.removeprefix("my ").split()[-1:] if key.startswith("my ") else []
    return bool(noun) and f" {noun[0]} " in said


def _speaker(token: Any) -> str:
    """Whose the value at `token` is, by the subject of its clause ("it's Norwegian we speak": "we")."""
    head = token.head
    cleft = token.dep_ == "attr" and any(c.dep_ == "nsubj" and c.lower_ in _ANYONE for c in head.children)
    for child in token.children if cleft else ():  # a cleft's clause: "it's squash I play"
        if child.dep_ == "relcl":
            subject = next((c for c in child.children if c.dep_ in ("nsubj", "nsubjpass")), None)
            if subject is not None:
                return _person(subject)
    owner = next((c for c in token.children if c.dep_ == "poss" and c.pos_ == "PROPN"), None)
    if owner is not None:  # "Tom's 10", parsed as a possessive
        return owner.text
    node = token
    while True:  # up to the value's own clause, never past it or out of a fragment ("*Houston, sorry")
        subject = next((c for c in node.children if c.dep_ in ("nsubj", "nsubjpass")), None)
        if subject is not None and subject.i != token.i:
            return _person(subject)
        if node.pos_ in ("VERB", "AUX") or node.dep_ in ("npadvmod", "appos") or node.head.i == node.i:
            return ""
        node = node.head


def _person(subject: Any) -> str:
    word = subject.lower_
    if word in _FIRST_PERSON:
        return USER
    if word in _THIRD_PERSON:
        return THIRD_PARTY
    if word in _ANYONE or subject.pos_ == "PRON":
        return ""
    owner = next((c for c in subject.children if c.dep_ == "poss"), None)
    if owner is not None and owner.lower_ in _FIRST_PERSON:
        return f"my {subject.lower_}"  # "my husband": a role
    return subject.text


def _topics(doc: Any) -> list[str]:
    """What the message calls the thing it corrects: a noun called wrong ("the wrong hospital", "got the
    town wrong"), or the object of "about"/"regarding" ("about Anika's job"), or "the X thing"."""
    found: list[str] = []
    for token in doc:
        if token.pos_ not in ("NOUN", "PROPN"):
            continue
        wrong = any(c.lower_ == "wrong" for c in token.children) or (
            token.dep_ == "dobj" and any(c.lower_ == "wrong" for c in token.head.children)
        )
        about = token.dep_ == "pobj" and token.head.lower_ in ("about", "regarding", "re", "on")
        if token.lower_ == "thing" and token.i > 0 and doc[token.i - 1].pos_ in ("NOUN", "PROPN"):
            token, about = doc[token.i - 1], True
        if wrong or about:
            found.append(token.lower_)
    return found


def _values(doc: Any, topics: Sequence[str]) -> list[Value]:
    """The values the message names: its entities, noun phrases and numbers, each once;
    not pronouns, not slot words, not what it calls the corrected thing."""
    values: list[Value] = []
    seen: set[str] = set()

    def add(text: str, label: str, proper: bool, root: Any) -> None:
        key = object_key(text)
        if root.dep_ in ("nsubj", "nsubjpass") or root.sent.text.rstrip().endswith("?") or _negated(root):
            return  # what a clause is about, a question, or "not a hygienist" names no new value
        if root.dep_ == "dobj" and root.head.lemma_.lower() in _REPLACING:
            return  # "swapped Prime Video for NOW TV": what was put away is the old value
        text = text.strip(" *\"'.,!?;:()[]-—–")
        text = " ".join(w for w in text.split() if any(c.isalnum() for c in w))  # "*Peppa 🙈" -> "Peppa"
        if key and key not in seen and key not in _NOT_VALUES and key not in topics:
            seen.add(key)
            values.append(Value(text, label, proper, _speaker(root)))

    for ent in doc.ents:
        if ent.label_ in _VALUE_LABELS:
            span = ent[1:] if ent[0].lower_ == "the" and len(ent) > 1 else ent
            add(span.text, ent.label_, ent.root.pos_ == "PROPN", ent.root)
    for chunk in doc.noun_chunks:
        root = chunk.root
        numbered = root.like_num and root.i > chunk.start and doc[root.i - 1].pos_ == "PROPN"  # "a Mazda 6"
        yours = any(t.lower_ in ("you", "your", "yours") for t in chunk)  # the listener's, not the user's
        if root.pos_ == "PRON" or (root.like_num and not numbered) or root.lower_ in topics or yours:
            continue
        after = next((t.i + 1 for t in reversed(chunk) if t.text == ":"), chunk.start)  # "Correction: X"
        words = [
            t
            for t in chunk
            if t.i >= after and t.dep_ not in ("det", "poss", "predet", "case") and t.pos_ != "PRON"
        ]
        if words:
            add(doc[words[0].i : root.i + 1].text, "", root.pos_ == "PROPN" or numbered, root)
    for token in doc:  # a bare number ("Priya's 8")
        if token.text.isdigit():
            add(token.text, "CARDINAL", False, token)
    # "a Mazda 6" names the car; "Mazda" alone (spaCy's entity) does not
    return [v for v in values if not any(_inside(v.text, w.text) for w in values)]


def _negated(token: Any) -> bool:
    """ "not a hygienist", "not Dutch": the value a correction replaces, never the new one."""
    if any(c.dep_ == "neg" and c.i < token.i for c in token.children):  # not "Capgemini, not Accenture"
        return True
    before = token.doc[max(token.i - 3, 0) : token.i]
    return any(t.lower_ == "not" for t in before) and not any(t.pos_ in ("VERB", "AUX") for t in before)


def _inside(short: str, long: str) -> bool:
    a, b = normalize(short), normalize(long)
    return a != b and f" {a} " in f" {b} " and len(b.split()) <= 3 and not any(c in long for c in ".!?")


def _known_value(text: str, known: Sequence[StoredFact]) -> bool:
    """Whether a value is already a subject or value of a current fact (not a new value)."""
    key = object_key(text)
    return any(key in (object_key(f.object), subject_key(f.subject)) for f in known)


def _of_kind(value: Value, kind: str) -> bool:
    if kind == "number":
        return value.text.isdigit() and 0 < int(value.text) <= MAX_AGE
    if kind == "name":
        return value.proper and len(value.text.split()) <= 3 and value.label in _ENTITY_KINDS["name"]
    if kind == "organisation" and value.proper and not value.label:
        return True  # the small model leaves many organisations unlabelled ("the Royal Free")
    return value.label in _ENTITY_KINDS[kind]


def _proper(text: str) -> bool:
    return text[:1].isupper()

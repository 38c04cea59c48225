"""Grounded recall for the embedded model: a question about the user's past answered from memory, quoted.

SmolLM2-135M cannot use retrieved memories (asked "Where do I work?" with the right memory first in its
prompt, it answers about someone's daughter), so when it is the answering model a recall question
(`factual_recall`/`temporal_recall`, about the user) never reaches it. Instead:

1. The question is read with spaCy: its type (who / where / when / what / name / how many) and its content
   words (lemmas, with a few synonyms folded: job -> work, kid -> child, favorite -> favourite).
2. Every sentence the user said in a recalled conversation memory (their own lines only; questions
   skipped), every line of a recalled document passage and every current profile fact is a candidate
   (a current fact of the relation the question means goes first: it is the truth after a correction).
   Its evidence score weighs how many of the question's content words it contains (`overlap`, the
   decisive part: a sentence about a daughter does not answer a question about a sister), whether it
   holds a span of the question's type (`fit`: a place for where, a date or a time expression for when, a
   name after "named/called" for name...) and the retrieval relevance of its memory.
3. The best candidate at or above `threshold` is the answer: one sentence that states it in the user's
   second person, with its date and its citation marker from the prompt ("You told me on 3 Dec: you
   work as a sound engineer at a studio called Bluefin Audio. [M2]"; the output boundary numbers it [1]).
   A relative time in it is resolved against the memory's date ("yesterday" said on 8 May 2023 -> 7 May
   2023). Below the threshold the reply says plainly that it is not in memory.

The threshold was calibrated on the LoCoMo dev questions (`bench answers`) and the scenario of issue 19;
the README reports the figures. spaCy comes in through `nlp` (the process's one pipeline).
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator, Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from core.addressed import addresses_the_assistant
from core.events import Done, RunEvent, TextDelta
from core.generation.attribution import AttributionChecked
from core.own_name import names_user, user_names
from core.ports import FactView, RecalledMemory, conversation_id
from core.prompt.assembly import AssembledPrompt
from core.prompt.builder import citation_map
from core.prompt.sources import DOCUMENT_COLLECTIONS
from core.relations import (
    RELATION_QUESTIONS,
    RELATION_TOPICS,
    ROLES,
    USER_ID,
    fact_sentence,
    fact_to_user,
    normalize,
    second_person,
)
from core.temporal import TimeWindow, absolute_windows, asks_for_time, relative_windows, weekday_named
from core.turn_context import IMAGE_CAPTION, TurnContext
from core.types import Message

if TYPE_CHECKING:
    from core.orchestrator import Agent

EXTRACTIVE_MODEL = "daemon-memory (extractive)"  # the `model` of a reply the extractive answerer wrote
RECALL_INTENTS = frozenset({"factual_recall", "temporal_recall"})
GENERAL_INTENT = "general"  # the analyzer's intent for a question it could not place
_NOT_PEOPLE = frozenset(
    {"GPE", "LOC", "NORP", "ORG", "LANGUAGE", "EVENT", "PRODUCT", "WORK_OF_ART", "DATE", "TIME", "LAW"}
)
# a question asking for a value (not a request: "Can you write about Oliver?"), "what's" and "who's" included
_WH_QUESTION = re.compile(r"\s*(?:what|where|when|who|whom|whose|which|how)\b", re.I)
DEFAULT_THRESHOLD = 0.5
# A question means a relation when MiniLM puts it this near the relation's description and within the margin
# of the nearest one. Read off paraphrases of job, employer, home and likes questions (0.44-0.59 to their
# own relation, at most 0.37 to the next) and general-knowledge questions (at most 0.17 to any).
MEANT_AT = 0.4
MEANT_MARGIN = 0.05
MEANT_OVERLAP = 1.0  # the word overlap a fact of the relation a question means counts as (all of it)

_SPEAKER_LINE = re.compile(r"^([A-Z][\w.'-]*(?: [A-Z][\w.'-]*){0,2}): ", re.MULTILINE)
_ASSISTANT = "Assistant"
_FIRST_PERSON = re.compile(r"\b(?:I|me|my|mine|myself|we|us|our|ours)\b|\bI'", re.I)
_PREAMBLE = re.compile(
    r"^\s*(?:(?:hey|hi|ok|okay|so|and|but|please|daemon)\b[,\s]*)*(?:(?:do|did|can|could) you (?:still )?"
    r"(?:remember|recall|know|tell me)|(?:tell|remind) me|i (?:forgot|forget|wonder))\b[,\s]*",
    re.I,
)
# content words that say what kind of answer is wanted, not what it is about
_TYPE_WORDS = frozenset({"name", "call", "remember", "recall", "know", "tell", "say", "mention", "remind"})
_LIGHT = frozenset({"be", "do", "have", "get", "make", "thing", "something", "anything", "kind", "one"})
_FOLD = {
    "job": "work",
    "occupation": "work",
    "career": "work",
    "profession": "work",
    "employ": "work",
    "workplace": "work",
    "employer": "work",
    "kid": "child",
    "children": "child",
    "favorite": "favourite",
    "fave": "favourite",
    "vacation": "trip",
    "holiday": "trip",
    "journey": "trip",
    "travel": "trip",
    "reside": "live",
    "home": "live",
    "hometown": "live",
    "meal": "dish",
    "food": "dish",
}
# what an evidence word also stands for (a parrot is a pet; a daughter is a child)
_BROADER = {
    "daughter": "child",
    "son": "child",
    "dog": "pet",
    "cat": "pet",
    "parrot": "pet",
    "bird": "pet",
    "hamster": "pet",
    "rabbit": "pet",
    "fish": "pet",
    "puppy": "pet",
    "kitten": "pet",
    "wife": "partner",
    "husband": "partner",
    "girlfriend": "partner",
    "boyfriend": "partner",
    "go": "trip",
    "visit": "trip",
    "fly": "trip",
    "move": "live",
    "cook": "dish",
    "eat": "dish",
    "love": "favourite",
}
_PLACE_PREPS = frozenset({"in", "at", "to", "from", "near", "for", "into", "outside"})
_NAME_VERBS = frozenset({"name", "call", "named", "called"})


@dataclass(frozen=True)
class Question:
    """What a recall question asks: its type, its content words (weight per lemma) and its topic phrase."""

    text: str
    kind: str  # who | where | when | count | name | what
    words: Mapping[str, float]
    topic: str  # "your sister's name": what the not-in-memory reply says was not found
    about_user: bool = True  # asked in the first person ("Where do I work?"), not about someone else
    meant: frozenset[str] = frozenset()  # relations whose facts answer it, by meaning (RELATION_QUESTIONS)
    names: frozenset[str] = (
        frozenset()
    )  # its words that name whom it asks about ("sam" in "Where does Sam live?")
    # the user's person or animal it asks about ("grandmother" in "What's my grandmother's name?"): then
    # the user's own facts do not answer it, whatever relation it means
    owner: str = ""


@dataclass(frozen=True)
class Evidence:
    """One candidate answer: a sentence of the user's (or a fact), the span in it, and where it came from."""

    sentence: str
    span: str
    score: float
    overlap: float
    fit: float
    source: str  # memory or fact id
    kind: str  # "memory" | "fact" | "document"
    speaker: str = "User"
    marker: str = ""  # "[M2]": the prompt's citation marker for the memory
    at: float | None = None  # when it was said
    resolved: str = ""  # a relative time in the sentence, resolved against `at` ("7 May 2023")

    @property
    def answer(self) -> str:
        """The answer proper: the resolved time when there is one, else the span."""
        return self.resolved or self.span


@dataclass(frozen=True)
class RecallAnswer:
    """The reply, the evidence it rests on (None: not in memory) and the best score seen."""

    text: str
    evidence: Evidence | None
    best_score: float

    @property
    def found(self) -> bool:
        return self.evidence is not None


class ExtractiveAnswerer:
    """Answers recall questions from the user's own words and facts (see the module docstring).

    Args:
        nlp: parses a text into a spaCy `Doc` (the process's `SpacyPipeline`).
        threshold: the evidence score below which the reply says the answer is not in memory.
    """

    def __init__(
        self,
        nlp: Callable[[str], Any],
        *,
        threshold: float = DEFAULT_THRESHOLD,
        meaning: Callable[[Sequence[str]], Any] | None = None,
    ) -> None:
        """`meaning` embeds texts as L2-normalised vectors (MiniLM's `embed`): with it, a question also
        meets the facts whose relation it asks about in other words ("What do I do for a living?" -> the
        user is a pharmacist). Without it, only shared words count."""
        self._nlp = nlp
        self.threshold = threshold
        self._meaning = meaning
        self._relation_vectors: Any = None

    @staticmethod
    def applies(question: str, intent: str | None, user_names: Collection[str] = ()) -> bool:
        """True for a recall question about the user (a recall intent and first-person words, or the user's
        own name): answered from memory, or plainly not in it. A recall question about someone or something
        else is answered from memory only when memory holds the answer (`ExtractiveRecall`)."""
        return intent in RECALL_INTENTS and asks_about_user(question, user_names)

    def read_question(self, text: str, user_names: Collection[str] = ()) -> Question:
        """The question's type, weighted content words and topic phrase. `user_names` are the user's own
        names: a question that names the user ("What does Dana play?" to Dana) is asked about them."""
        core = _PREAMBLE.sub("", text).strip() or text
        doc = self._nlp(core)
        kind = _question_kind(core, doc)
        own = {_fold_word(w) for name in user_names for w in re.findall(r"[a-z]+", name.lower())}
        names = frozenset(_fold(t) for t in doc if t.ent_type_ == "PERSON" or _fold(t) in own)
        words: dict[str, float] = {}
        for token in doc:
            lemma = _fold(token)
            if (
                token.is_stop
                or token.is_punct
                or token.pos_ in ("PRON", "DET", "AUX", "ADP", "PART")
                or lemma in _TYPE_WORDS
                or lemma in own  # the user's own name says whom, as "I" does: the user's lines never hold it
                or lemma in _LIGHT
                or token.tag_ in ("WDT", "WP", "WP$", "WRB")
                or not lemma.strip()
            ):
                continue
            weight = 1.0 if token.pos_ in ("NOUN", "PROPN", "NUM") else 0.6
            words[lemma] = max(words.get(lemma, 0.0), weight)
        about_user = asks_about_user(text, user_names)
        meant, nearest = self._relations_meant(core)
        owner = _owner(doc)
        topic = _topic(doc, own)
        if nearest in RELATION_TOPICS and about_user and not owner and not topic.startswith("your "):
            topic = RELATION_TOPICS[nearest]  # "What do I do for a living?" -> your work, not "a living"
        return Question(text, kind, words, topic, about_user, meant, names, owner)

    def people_named(self, text: str) -> list[str]:
        """The names of people (and of animals named as people are) in `text`, as written: its runs of
        proper nouns but those spaCy reads as a place, a group or a thing ("How old is Isla?" -> Isla;
        "Who was Oliver Cromwell?" -> Oliver Cromwell; "What is the capital of France?" -> none)."""
        names: list[list[str]] = [[]]
        for token in self._nlp(text):
            if token.pos_ == "PROPN" and token.text[:1].isupper() and token.ent_type_ not in _NOT_PEOPLE:
                names[-1].append(token.text)  # a run of them is one name: "Oliver Cromwell"
            elif names[-1]:
                names.append([])
        return [" ".join(name) for name in names if name]

    def _relations_meant(self, question: str) -> tuple[frozenset[str], str]:
        """The relations whose description is nearest the question: at least `MEANT_AT` similar and within
        `MEANT_MARGIN` of the best (a question about where someone works is not one about their home);
        and the nearest of them ("" for none)."""
        if self._meaning is None:
            return frozenset(), ""
        if self._relation_vectors is None:
            self._relation_vectors = self._meaning(list(RELATION_QUESTIONS.values()))
        similarity = self._relation_vectors @ self._meaning([question])[0]
        best = float(similarity.max())
        meant = [
            (float(value), relation)
            for relation, value in zip(RELATION_QUESTIONS, similarity, strict=True)
            if value >= MEANT_AT and value >= best - MEANT_MARGIN
        ]
        return frozenset(relation for _, relation in meant), max(meant, default=(0.0, ""))[1]

    def answer(
        self,
        question: str,
        memories: Sequence[RecalledMemory] = (),
        facts: Sequence[FactView] = (),
        markers: Mapping[str, str] | None = None,
        *,
        user_only: bool = True,
        answering: Mapping[str, str] | None = None,
    ) -> RecallAnswer:
        """The extractive reply to `question` from `memories` (conversation records) and current `facts`.

        `markers` maps a memory id to its citation marker in the prompt ("[M2]"); `user_only` keeps the
        user's own lines (False: every speaker's, as in the LoCoMo benchmark where both are people);
        `answering` maps a conversation memory's id to the question the user's message answered (asked at
        the end of the reply before it).
        """
        asked = self.read_question(question, user_names(facts))
        best = self.best_evidence(
            asked, memories, facts, markers or {}, user_only=user_only, answering=answering or {}
        )
        score = best.score if best else 0.0
        if best is None or best.score < self.threshold:
            return RecallAnswer(not_in_memory(asked), None, score)
        return RecallAnswer(phrase(best), best, score)

    def best_evidence(
        self,
        asked: Question,
        memories: Sequence[RecalledMemory],
        facts: Sequence[FactView],
        markers: Mapping[str, str],
        *,
        user_only: bool = True,
        answering: Mapping[str, str] | None = None,
    ) -> Evidence | None:
        """The highest-scoring candidate sentence or fact (None when nothing shares a content word and no
        fact is of the relation the question means: "What's my name?" has no content word but means one)."""
        if not asked.words and not asked.meant:
            return None
        by_id = {m.id: m for m in memories}
        candidates = list(self._from_memories(asked, memories, markers, user_only, answering or {}))
        candidates += self._from_documents(asked, memories)
        candidates += self._from_facts(asked, facts, by_id, markers)
        asked_kinds = _kinds(asked.words)
        if asked_kinds:  # "my dog's name" is not answered by a cat's
            candidates = [e for e in candidates if not _other_kind(asked_kinds, e, facts)]
        # A current fact of the relation the question means is the verified truth now: it answers before
        # any sentence, which may state what was true before a correction ("I live in Gothenburg").
        meant = [
            e
            for e in candidates
            if e.kind == "fact" and e.overlap >= MEANT_OVERLAP and e.score >= self.threshold
        ]
        return max(meant or candidates, key=lambda e: (e.score, e.kind == "fact"), default=None)

    def _from_memories(
        self,
        asked: Question,
        memories: Sequence[RecalledMemory],
        markers: Mapping[str, str],
        user_only: bool,
        answering: Mapping[str, str],
    ) -> Iterable[Evidence]:
        for memory in memories:
            if memory.collection != "conversations" or memory.superseded:
                continue
            # The message's first sentence answers the question asked just before it, and means what it
            # asked: "Researching adoption agencies." after "What are your plans for the summer?"
            question = answering.get(memory.id, "")
            context = {_fold(t) for t in self._nlp(question)} if question else set()
            for n, (speaker, said) in enumerate(utterances(memory.text)):
                if speaker == _ASSISTANT or (user_only and speaker != "User"):
                    continue
                doc = self._nlp(said)
                for i, sent in enumerate(doc.sents):
                    if sent.text.strip().endswith("?") or len(sent) < 3:
                        continue
                    answers = context if n == 0 and i == 0 else set()
                    found = self._judge(
                        asked, sent, extra=speaker.lower(), at=memory.created_at, answers=answers
                    )
                    if found is None:
                        continue
                    overlap, fit, span, resolved = found
                    relevance = max(0.0, min(1.0, memory.score))
                    yield Evidence(
                        sent.text.strip(),
                        span,
                        _score(overlap, fit, relevance),
                        overlap,
                        fit,
                        memory.id,
                        "memory",
                        speaker,
                        markers.get(memory.id, ""),
                        memory.created_at,
                        resolved,
                    )

    def _from_documents(self, asked: Question, memories: Sequence[RecalledMemory]) -> Iterable[Evidence]:
        """Each line or sentence of the document passages recalled (a recipe's "250 g plain flour" is a
        line, not a sentence); the document's name counts as its words ("the recipe" -> recipe.md). No
        prompt marker: the reply cites the line it answered from, not the whole passage, whose other
        lines may be anything (a line written to the assistant is never an answer, nor quoted)."""
        for memory in memories:
            if memory.collection not in DOCUMENT_COLLECTIONS:
                continue
            name = re.sub(r"[_\-.]+", " ", memory.source)
            for line in memory.text.splitlines():
                if not line.strip():
                    continue
                for sent in self._nlp(line.strip(" #*-\t")).sents:
                    if len(sent) < 2 or addresses_the_assistant(sent):  # an order to Daemon is no answer
                        continue
                    found = self._judge(asked, sent, about=name)
                    if found is None:
                        continue
                    overlap, fit, span, resolved = found
                    yield Evidence(
                        sent.text.strip(),
                        span,
                        _score(overlap, fit, max(0.0, min(1.0, memory.score))),
                        overlap,
                        fit,
                        memory.id,
                        "document",
                        memory.source or "a document",
                    )

    def _from_facts(
        self,
        asked: Question,
        facts: Sequence[FactView],
        memories: Mapping[str, RecalledMemory],
        markers: Mapping[str, str],
    ) -> Iterable[Evidence]:
        for fact in facts:
            if fact.status != "current":
                continue
            sentence = fact_sentence(fact.subject, fact.predicate, fact.object)
            doc = self._nlp(sentence)
            found = self._judge(asked, doc[:], extra=fact.category, object_text=fact.object)
            if self._meant(asked, fact) and (found is None or found[0] < MEANT_OVERLAP):
                # asked about in other words: as good as sharing every word of the question
                fit, span, resolved = self._span(asked, doc[:], None, fact.object)
                found = (MEANT_OVERLAP, fit, span, resolved)
            if found is None:
                continue
            overlap, fit, span, resolved = found
            # the turn it was told in, if recalled
            source = memories.get(conversation_id(fact.source_turn_id))
            at = source.created_at if source else fact.told_at
            # the turn's marker (it carries the date), else the profile line's own: a recalled turn may
            # still be left out of the prompt by its budget, and then has no marker
            marker = (markers.get(source.id, "") if source else "") or markers.get(fact.id, "")
            yield Evidence(
                sentence,
                span,
                _score(overlap, fit, min(1.0, fact.truth)),
                overlap,
                fit,
                fact.id,
                "fact",
                "User",
                marker,
                at,
                resolved,
            )

    @staticmethod
    def _meant(asked: Question, fact: FactView) -> bool:
        """Whether the question asks, by meaning, for this fact: its relation is the one asked about, and
        its subject is who is asked about (the user, or someone the question names)."""
        if fact.predicate not in asked.meant:
            return False
        if fact.subject == USER_ID:
            return asked.about_user and not asked.owner
        return any(_fold_word(word) in asked.words for word in re.findall(r"[a-z]+", fact.subject.lower()))

    def _judge(
        self,
        asked: Question,
        sent: Any,
        *,
        extra: str = "",
        at: float | None = None,
        object_text: str = "",
        about: str = "",
        answers: Collection[str] = (),
    ) -> tuple[float, float, str, str] | None:
        """(overlap, type fit, answer span, resolved time) of one sentence; None when it shares no word.
        `extra` words count half ("who said it"), and so do the lemmas of the question the sentence
        `answers`; `about` words (a document's name: what every line of it is about) count fully, but never
        alone."""
        lemmas = {_fold(t) for t in sent} | {_BROADER.get(_fold(t), "") for t in sent}
        extra_words = {w for w in re.findall(r"[a-z]+", extra.lower())} | set(answers)
        about_words = {_fold_word(w) for w in re.findall(r"[a-z]+", about.lower())} - lemmas
        total = sum(asked.words.values())
        own = sum(
            w if lemma in lemmas else (0.5 * w if lemma in extra_words else 0.0)
            for lemma, w in asked.words.items()
        )
        matched = own + sum(w for lemma, w in asked.words.items() if lemma in about_words)
        shared = [lemma for lemma in asked.words if lemma in lemmas or lemma in answers]
        if own <= 0 or all(lemma in asked.names for lemma in shared):
            return None  # nothing in common, or only the name of whom it asks about: not what it asks
        overlap = matched / total
        fit, span, resolved = self._span(asked, sent, at, object_text)
        return overlap, fit, span, resolved

    def _span(self, asked: Question, sent: Any, at: float | None, object_text: str) -> tuple[float, str, str]:
        """The best span of the question's type in `sent`: (fit 0-1, span text, resolved time)."""
        if asked.kind == "when":
            return _time_span(sent, at)
        if object_text and asked.kind != "count":
            # a fact's object is its answer; the parse only says whether it is of the asked type
            fit = max((_fit(asked.kind, c) for c in _candidates(sent) if object_text in c.text), default=0.5)
            return fit, object_text, ""
        best: tuple[float, str] = (0.0, "")
        anchors = [t.i for t in sent if _fold(t) in asked.words]
        for cand in _candidates(sent):
            content = [t for t in cand if not (t.is_stop or t.is_punct or t.pos_ == "PRON")]
            if not content or all(_fold(t) in asked.words for t in content):
                continue
            fit = _fit(asked.kind, cand)
            if fit <= 0:
                continue
            after = bool(anchors) and cand.start > min(anchors)
            distance = min((abs(cand.start - a) for a in anchors), default=10)
            rank = fit + (0.05 if after else 0.0) - 0.005 * distance
            if rank > best[0]:
                best = (rank, _trim(cand))
        return min(1.0, max(0.0, best[0])), best[1], ""


# the kinds of animal and person a question may ask about, by the class they share ("dog" and "cat": pets)
_KIND_CLASSES = frozenset({"pet", "child", "partner"})


def _kinds(words: Iterable[str]) -> set[str]:
    """The animal and person kinds among `words` ("dog", "daughter"): those with a class in `_BROADER`."""
    return {_singular(w) for w in words if _BROADER.get(_singular(w)) in _KIND_CLASSES}


def _singular(word: str) -> str:
    return word[:-1] if word.endswith("s") and word[:-1] in _BROADER else word


def _other_kind(asked: set[str], evidence: Evidence, facts: Sequence[FactView]) -> bool:
    """Whether `evidence` is about another kind of the same class than the one asked about: it names a cat
    (or its answer is known to be a cat) and not a dog, when the dog was asked about."""
    said = re.findall(r"[a-z]+", evidence.sentence.lower())
    answer = normalize(evidence.span)
    said += [
        word
        for fact in facts
        if fact.status == "current" and fact.predicate == "is_a" and normalize(fact.subject) == answer
        for word in re.findall(r"[a-z]+", fact.object.lower())
    ]
    known = _kinds(said)
    classes = {_BROADER[k] for k in asked}
    return bool(known) and not known & asked and any(_BROADER[k] in classes for k in known)


def asks_about_user(question: str, user_names: Collection[str] = ()) -> bool:
    """Whether a question is asked about the user: in the first person, or by the user's own name."""
    return bool(_FIRST_PERSON.search(question.replace("\u2019", "'"))) or names_user(question, user_names)


def _beings(facts: Sequence[FactView]) -> list[str]:
    """The names of the people and animals of the user's current facts: what someone of theirs is called
    ("my dog is named Oliver"), a pet's name, and whoever a fact is about by name ("Jo lives in Boston")."""
    out: list[str] = []
    for fact in facts:
        if fact.status != "current":
            continue
        if fact.predicate == "has_pet" or (fact.predicate == "named" and fact.subject != USER_ID):
            out.append(fact.object)
        if fact.subject != USER_ID and fact.subject[:1].isupper():
            out.append(fact.subject)
    return list(dict.fromkeys(name for name in out if name[:1].isupper()))


def _fold_word(word: str) -> str:
    return _FOLD.get(word, word)


def _score(overlap: float, fit: float, relevance: float) -> float:
    return round(0.55 * overlap + 0.3 * fit + 0.15 * relevance, 4)


def utterances(text: str) -> list[tuple[str, str]]:
    """(speaker, words) of a stored conversation record ("User: ...\\nAssistant: ..."; "Caroline: ...")."""
    marks = list(_SPEAKER_LINE.finditer(text))
    if not marks:
        return [("User", IMAGE_CAPTION.sub("", text).strip())]
    # Everything after "Assistant:" is the reply, whatever it contains: a model that writes "User: I have
    # a dog" in its reply has not made the user say so.
    reply = next((i for i, mark in enumerate(marks) if mark.group(1) == _ASSISTANT), None)
    marks = marks if reply is None else marks[: reply + 1]
    out = []
    for i, mark in enumerate(marks):
        end = marks[i + 1].start() if i + 1 < len(marks) else len(text)
        said = IMAGE_CAPTION.sub("", text[mark.end() : end]).strip()
        if said:
            out.append((mark.group(1), said))
    return out


def _fold(token: Any) -> str:
    lemma = (token.lemma_ or token.text).lower()
    return _FOLD.get(lemma, _FOLD.get(token.text.lower(), lemma))


def _question_kind(text: str, doc: Any) -> str:
    lower = text.lower()
    if asks_for_time(lower) or re.match(r"\s*(?:in )?(?:what|which) (?:year|month|day|date|time)\b", lower):
        return "when"
    if re.match(r"\s*how (?:many|much|often)\b", lower):
        return "count"
    first = next((t.lower_ for t in doc if t.tag_ in ("WDT", "WP", "WP$", "WRB")), "")
    if first in ("who", "whom", "whose"):
        return "who"
    if first == "where":
        return "where"
    if first == "when":
        return "when"
    if any(t.lemma_.lower() in _NAME_VERBS for t in doc):
        return "name"
    return "what"


_PEOPLE_NOUNS = frozenset({noun for nouns in ROLES.values() for noun in nouns} | set(_BROADER))


def _owner(doc: Any) -> str:
    """The user's person or animal a question asks about: the noun "my"/"our" belongs to, when it names a
    person or an animal ("my dog's name", "What does my sister do?"); "" when it asks about the user."""
    for token in doc:
        if token.lower_ in ("my", "our") and token.head.pos_ == "NOUN":
            noun = token.head.lemma_.lower()
            together = any(c.lower_ in ("i", "me") for c in token.head.conjuncts)  # "my wife and I"
            kind = _BROADER.get(noun)  # a role noun has none; "dog" is a pet, "trip" no one
            if noun in _PEOPLE_NOUNS and (kind is None or kind in _KIND_CLASSES) and not together:
                return noun
    return ""


def _topic(doc: Any, own: Collection[str] = ()) -> str:
    """The noun phrase the question is about, in the second person ("your sister's name"); never the user's
    own name (`own`, folded: "How long has Dana been painting?" to Dana is not about someone called Dana)."""
    for chunk in doc.noun_chunks:
        if any(t.lower_ in ("my", "our") for t in chunk):
            text = chunk.text
            following = doc[chunk.end : chunk.end + 2]
            if len(following) == 2 and following[0].tag_ == "POS":
                text = f"{text}'s {following[1].text}"
            return second_person(text)
        if len(chunk) > 2 and _fold(chunk[0]) in own and chunk[1].tag_ == "POS":  # "Dana's bowl" to Dana
            return "your " + chunk[2:].text
    # else a noun phrase as written ("a dog", "Sam", "your city" for "What city"); never loose words,
    # which make no phrase ("city live")
    for chunk in doc.noun_chunks:
        first, root = chunk[0], chunk.root
        if root.pos_ == "PRON" or root.tag_ in ("WP", "WDT") or _fold(root) in own:
            continue
        if first.tag_ in ("WDT", "WP") and len(chunk) > 1:
            return "your " + chunk[1:].text if asks_about_user(doc.text) else "that"
        if first.lower_ in ("a", "an", "the", "any", "some") or root.pos_ == "PROPN":
            return second_person(chunk.text)
    return "that"


def _candidates(sent: Any) -> list[Any]:
    """Entities, noun chunks and runs of proper nouns of a sentence (spans of its doc)."""
    doc = sent.doc
    spans = [e for e in sent.ents] + [
        c for c in doc.noun_chunks if c.start >= sent.start and c.end <= sent.end
    ]
    run: list[int] = []
    for token in [*sent, None]:
        if token is not None and token.pos_ == "PROPN":
            run.append(token.i)
            continue
        if run:
            spans.append(doc[run[0] : run[-1] + 1])
            run = []
    return spans


def _fit(kind: str, span: Any) -> float:
    """How well a span fits the question's type (0-1), from its entity label and its place in the parse."""
    label = span.label_ if span.label_ else ""
    root = span.root
    head = root.head
    after_prep = root.dep_ == "pobj" and head.lower_ in _PLACE_PREPS
    named = head.lemma_.lower() in _NAME_VERBS or (head.dep_ == "acl" and head.lemma_.lower() in _NAME_VERBS)
    named = named or any(
        t.lemma_.lower() in _NAME_VERBS for t in span.doc[max(0, span.start - 2) : span.start]
    )
    proper = all(t.pos_ == "PROPN" for t in span if not t.is_punct)
    if kind == "where":
        if label in ("GPE", "LOC", "FAC"):
            return 1.0
        if label == "ORG" or (proper and (after_prep or named)):
            return 0.9
        return 0.6 if after_prep else (0.4 if proper else 0.0)
    if kind in ("who", "name"):
        if named and (proper or label):
            return 1.0
        if label == "PERSON":
            return 0.95
        if proper:
            return 0.8 if kind == "name" else 0.7
        if kind == "name" and named:
            return 0.7
        return 0.3 if kind == "who" and root.pos_ == "NOUN" else 0.0
    if kind == "count":
        return 1.0 if label in ("CARDINAL", "QUANTITY") or any(t.like_num for t in span) else 0.0
    # what / which: the thing the sentence says, ideally the complement of its verb
    if label in ("DATE", "TIME", "CARDINAL", "ORDINAL"):
        return 0.3
    if root.dep_ in ("attr", "dobj", "pobj", "appos", "oprd", "conj", "acomp"):
        return 0.8
    return 0.5 if label or root.pos_ in ("NOUN", "PROPN") else 0.0


def _trim(span: Any) -> str:
    """A span without leading determiners and possessives ("a sound engineer" -> "sound engineer")."""
    tokens = list(span)
    while tokens and (tokens[0].pos_ in ("DET", "PRON") or tokens[0].tag_ == "PRP$"):
        tokens = tokens[1:]
    return span.doc[tokens[0].i : tokens[-1].i + 1].text if tokens else span.text


def _time_span(sent: Any, at: float | None) -> tuple[float, str, str]:
    """The time a sentence names, resolved against when it was said; else the day it was said."""
    said = datetime.fromtimestamp(at) if at else None
    text = sent.text
    if said is not None:
        relative = relative_windows(text, said)
        if relative:
            window = relative[0]
            return 1.0, window.expression, resolve(window, said)
        absolute = absolute_windows(text, said)
        if absolute:
            return 1.0, absolute[0].expression, ""
    dates = [e for e in sent.ents if e.label_ in ("DATE", "TIME")]
    if dates:
        return 0.9, dates[0].text, ""
    if said is not None:
        return 0.5, "", day_text(said)
    return 0.0, "", ""


def resolve(window: TimeWindow, said: datetime) -> str:
    """A relative time as people write it: one day -> "7 May 2023"; a week, weekend or weekday before the
    day it was said -> "the week before 9 June 2023"; a month -> "May 2023"; a year -> "2022"."""
    days = (window.end - window.start).days
    expression = window.expression.lower()
    if days <= 1:
        weekday = weekday_named(expression)
        if weekday and "next" not in expression:
            return f"the {weekday} before {day_text(said)}"
        return day_text(window.start)
    if "weekend" in expression:
        return f"the weekend before {day_text(said)}"
    if days <= 7:
        return f"the week before {day_text(said)}"
    if days <= 31 and window.start.day == 1:
        return f"{window.start:%B} {window.start.year}"
    if days >= 365 and window.start.month == 1 and window.start.day == 1:
        return str(window.start.year)
    last = window.end - timedelta(days=1)
    return f"{day_text(window.start)} to {day_text(last)}"


def day_text(moment: datetime, *, now: datetime | None = None) -> str:
    """The day as "7 May 2023", or "3 Dec" when `now` is in the same year."""
    if now is not None and now.year == moment.year:
        return f"{moment.day} {moment:%b}"
    return f"{moment.day} {moment:%B} {moment.year}"


def phrase(evidence: Evidence, *, now: datetime | None = None) -> str:
    """The reply: one sentence stating the evidence in the second person, its date and its marker."""
    now = now or datetime.now()
    sentence = " ".join(evidence.sentence.split()).rstrip(".!;:, ")
    if evidence.kind == "document":
        marker = f" {evidence.marker}" if evidence.marker else ""
        return f"Your document \u201c{evidence.speaker}\u201d says: \u201c{sentence}.\u201d{marker}"
    if evidence.kind == "fact":
        stated = fact_to_user(sentence)
    elif evidence.speaker == "User":
        stated = second_person(sentence)
        stated = stated[:1].lower() + stated[1:] if not stated[:2].isupper() else stated
    else:
        stated = f"\u201c{sentence}\u201d"
    when = f" on {day_text(datetime.fromtimestamp(evidence.at), now=now)}" if evidence.at else ""
    who = "You told me" if evidence.speaker == "User" else f"{evidence.speaker} said"
    lead = ""
    resolved = evidence.resolved
    if resolved and resolved.lower() not in stated.lower():
        lead = f"{resolved[:1].upper()}{resolved[1:]} \u2014 "
        who = "you told me" if evidence.speaker == "User" else who
    marker = f" {evidence.marker}" if evidence.marker else ""
    return f"{lead}{who}{when}: {stated}.{marker}"


REMEMBER_IT = "If you tell me, I'll remember it."


def not_in_memory(asked: Question) -> str:
    """The plain reply when nothing remembered answers the question."""
    return f"That's not in my memory: I found nothing you told me about {asked.topic}. {REMEMBER_IT}"


class ExtractiveRecall:
    """The orchestrator's hook for a model that cannot use retrieved memories (the embedded one): a recall
    question gets the extractive reply instead of the model's, and the model's own replies are checked for
    facts of someone else handed to the user (`core/generation/attribution.py`)."""

    def __init__(self, answerer: ExtractiveAnswerer) -> None:
        self._answerer = answerer

    def agent_for(self, context: TurnContext, prompt: AssembledPrompt, agent: Agent) -> Agent:
        """The agent for this turn: one that gives the extractive reply, or `agent` with its reply checked."""
        done = self.answered(context, prompt)
        return AnsweredAgent(done) if done is not None else self.checked(context, prompt, agent)

    def answered(self, context: TurnContext, prompt: AssembledPrompt) -> Done | None:
        """The extractive reply when the turn is a recall question memory answers, or one about the user
        (then "not in my memory" when it does not), or a question of another intent that a document or the
        user's words about someone they named answer; None when the model is to answer."""
        intent = context.analysis.intent if context.analysis else None
        names = user_names(context.profile)
        # a question that names the user by their own name asks about them, whatever the analyzer (which
        # does not know the name) made of it: "What does Omar repair?" to Omar
        by_name = context.text.rstrip().endswith("?") and names_user(context.text, names)
        if intent not in RECALL_INTENTS and not by_name:
            return self._from_a_document(context, prompt) or self._of_someone_told(context, prompt)
        reply = self._extractive(context, prompt)
        if reply.found or by_name or self._answerer.applies(context.text, intent, names):
            return _recall_done(reply)
        # not about the user and not in memory: general knowledge, the model's to answer, unless it asks
        # about someone of the user's whom the model would make things up about
        return _not_told(self._answerer.people_named(context.text), context.profile, reply)

    def _from_a_document(self, context: TurnContext, prompt: AssembledPrompt) -> Done | None:
        """A question of another intent ("How much flour does the recipe need?") answered from a document
        passage recalled for it, when one answers it; None: the model's."""
        asking = context.text.rstrip().endswith("?")
        if not asking or not any(m.collection in DOCUMENT_COLLECTIONS for m in context.read_evidence):
            return None
        reply = self._extractive(context, prompt)
        if reply.evidence is None or reply.evidence.kind != "document":
            return None
        return _recall_done(reply)

    def _of_someone_told(self, context: TurnContext, prompt: AssembledPrompt) -> Done | None:
        """A question the analyzer read as general that asks about someone the user has talked about by
        name ("Where did Oliver hide his bone once?", Oliver the user's dog): answered from memory when
        memory holds the answer. None otherwise: the model's, as a question about a person may well be
        general knowledge ("Who was Oliver Cromwell?" to a user who never said that name)."""
        intent = context.analysis.intent if context.analysis else None
        if intent != GENERAL_INTENT or not _WH_QUESTION.match(context.text):
            return None
        people = self._answerer.people_named(context.text)
        said = [
            line
            for memory in context.read_evidence
            if memory.collection == "conversations"
            for speaker, line in utterances(memory.text)
            if speaker == "User"
        ]
        if not any(re.search(rf"\b{re.escape(name)}\b", line) for name in people for line in said):
            return None
        reply = self._extractive(context, prompt)
        return _recall_done(reply) if reply.found else _not_told(people, context.profile, reply)

    def checked(self, context: TurnContext, prompt: AssembledPrompt, agent: Agent) -> Agent:
        """`agent` with its reply held back and checked for someone else's facts handed to the user."""

        def answer_or_none() -> str | None:
            reply = self._extractive(context, prompt)
            return reply.text if reply.found else None

        return AttributionChecked(agent, context.profile, answer_or_none)

    def _extractive(self, context: TurnContext, prompt: AssembledPrompt) -> RecallAnswer:
        markers = prompt_markers(prompt)
        return self._answerer.answer(
            context.text, context.read_evidence, context.profile, markers, answering=context.answering
        )


def prompt_markers(prompt: AssembledPrompt) -> dict[str, str]:
    """Item id -> its citation marker in the prompt ("fact_1" -> "[F1]")."""
    return {item.id: f"[{marker}]" for marker, item in citation_map(prompt).items() if item.id}


def _recall_done(reply: RecallAnswer) -> Done:
    """The extractive reply as a finished run. Evidence the prompt had no room for has no marker to cite:
    the reply then names it as its one source itself, "[1]", with a label people can read."""
    evidence = reply.evidence
    if evidence is None or evidence.marker:
        return Done(answer=reply.text, model=EXTRACTIVE_MODEL, extra=_explained(reply))
    source = {
        "marker": "1",
        "id": evidence.source,
        "text": evidence.sentence,
        "label": source_label(evidence),
    }
    return Done(
        answer=f"{reply.text} [1]", model=EXTRACTIVE_MODEL, citations=(source,), extra=_explained(reply)
    )


def _not_told(people: Collection[str], profile: Sequence[FactView], reply: RecallAnswer) -> Done | None:
    """For a question naming `people` of whom one is someone of the user's (a person or animal their facts
    name: "What's Oliver's favourite toy?" after "my dog Oliver…") that memory does not answer, the plain
    reply that it was not told, rather than the model's invention; None for anyone else."""
    known = [name for name in _beings(profile) if name in people]
    if not known:
        return None
    text = f"You've told me about {known[0]}, but nothing that answers this. " + REMEMBER_IT
    return _recall_done(RecallAnswer(text, None, reply.best_score))


def source_label(evidence: Evidence) -> str:
    """Where the evidence came from, for a sources list: a document and its line, the user's words and
    day, or the fact as told."""
    if evidence.kind == "document":
        return f"{evidence.speaker}: \u201c{evidence.sentence}\u201d"
    if evidence.kind == "fact":
        return f"You told me: {fact_to_user(evidence.sentence)}"
    day = f" on {day_text(datetime.fromtimestamp(evidence.at))}" if evidence.at else ""
    who = "You said" if evidence.speaker == "User" else f"{evidence.speaker} said"
    return f"{who}{day}: \u201c{evidence.sentence}\u201d"


def _explained(reply: RecallAnswer) -> dict[str, Any]:
    extra: dict[str, Any] = {
        "mode": "extractive_recall",
        "answered_by": "memory",
        "evidence_score": round(reply.best_score, 3),
    }
    if reply.evidence is not None:
        extra["evidence"] = {
            "source": reply.evidence.source,
            "kind": reply.evidence.kind,
            "span": reply.evidence.span,
            "marker": reply.evidence.marker,
        }
    return extra


class AnsweredAgent:
    """An agent whose answer is already known: it yields it as one text delta and its `Done`."""

    def __init__(self, done: Done) -> None:
        self._done = done

    async def run(
        self, messages: list[Message], *, cancel: asyncio.Event | None = None, max_tokens: int | None = None
    ) -> AsyncIterator[RunEvent]:
        """The known answer, whatever the messages (the orchestrator built them for the model it replaces)."""
        yield TextDelta(self._done.answer)
        yield self._done

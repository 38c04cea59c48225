"""Sentences and clauses for the fact extractor: splitting, normalising, and what a clause implies.

A sentence is split into clauses ("I live in X and work at Y" -> two, the second given its subject back);
questions, hypotheticals ("if I lived...", "I wish...") and reported speech ("my friend said...") are
dropped. `prepare` normalises a clause for the rules and records what its wording implied: hedged
("I think", "maybe"), passing ("right now"), negated ("I no longer...", "I used to...") or a correction
("Denver, not Boston").
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from memory.facts import extraction_rules as R
from memory.facts.extraction_objects import is_object, trim

DIRECT = 0.9  # an explicit statement
HEDGED = 0.65  # "I think", "maybe", "probably"
MAX_EXCERPT = 200

_SENTENCE = re.compile(r"(?<=[.!?])[\"')\]]*\s+|\s*\n+\s*")
_ABBREV = re.compile(r"\b(?:dr|mr|mrs|ms|st|prof|jr|sr|vs|etc|e\.g|i\.e|u\.s|mt|ft|no|[A-Z])\.$", re.I)
_LOWER_I = re.compile(r"(?<![\w'])i(?=$|[\s,.!?;:']|’)")
_IM = re.compile(r"\b(?:im|I\s+am)\b", re.I)
_IVE = re.compile(r"\bive\b", re.I)
_GOT = re.compile(r"\bI(?:'ve|\s+have)\s+got\b", re.I)
_BEEN = re.compile(r"\bI(?:'ve|\s+have)\s+been\s+(?!to\b|there\b|here\b)", re.I)
_WE_ARE = re.compile(r"^(?:we're|we\s+are)\b", re.I)
_OUR = re.compile(r"^our\b", re.I)
_HYPO_START = re.compile(r"^(?:if|unless|suppose|imagine|what if|hypothetically|in theory)\b", re.I)
_CLAUSE = re.compile(
    r"\s*;\s*|\s+-+\s+|\s*[—–]\s*|,\s+(?=(?i:like|please|so|if|which|hence|mostly|honestly|anyway|"
    r"where|when|though|although|because|since|just|still|that's|it's|its|especially|except|even|"
    r"lol|haha|thanks|after|before|as|but|plus|keep|let|tell|any|and\s+(?:it|the|that|this|she|he|they|so)|"
    r"(?:now\s+)?(?:live|living|based|working|moved|been)\s+(?:in|at|to|for|as)|now\s+in|born|raised|"
    r"grew\s+up|what|how|why|can|could|should|would|do|does|did|now\s+I)\b)"
    r"|,?\s+(?i:and also|and|but|so|because|since|although|though|while|whereas|plus|"
    r"cause)\s+(?:(?i:now|then|also|actually|still|these\s+days|nowadays)\s+)?"
    r"(?=(?:I\b|I'|[Mm]y\b|[Oo]ur\b|[Ww]e\b|[Ss]he\b|"
    r"[Hh]e\b|[Tt]hey\b|(?i:if|unless)\b))|,\s+(?=I\b|I'|(?i:we|she|he|they)\b)"
)
_CONTINUE = re.compile(
    r",?\s+(?i:and|but)\s+(?:(?i:also)\s+)?(?=(?i:live|lives|work|works|love|loves|like|likes|hate|hates|"
    r"enjoy|enjoys|own|owns|have|has|speak|speaks|study|studies|want|wants|plan|plans|drive|drives|"
    r"prefer|prefers|moved|raised|started|joined|is|am|can't|cannot|don't)\b)"
)
_EMOJI = re.compile("[\U0001f000-\U0001faff\u2600-\u27bf\ufe0f\u200d]+")
_ROLE_IS = re.compile(r"\b((?i:my|our)\s+[\w-]+)'s\s+(?=(?:a|an|not|from|in|at|still|now|\d+)\s)")
_CLAUSE_REST = r"[^.!?,]*?(?=\s+(?:but|and|so)\s|[,.!?]|$)"
_POLITE_IF = re.compile(
    r",?\s*\b(?:if|in case)\s+(?:that|it|this)\s+(?:helps|matters|makes\s+sense|is\s+relevant)\b"
    + _CLAUSE_REST
    + r"|,?\s*\bif\s+you\s+(?:need|needed|want|were\s+wondering|care|must\s+know|ask\s+me)\b"
    + _CLAUSE_REST
    + r"|,?\s*\bin\s+case\s+you\s+(?:need|needed|want|were\s+wondering)\b"
    + _CLAUSE_REST,
    re.I,
)
_LABEL = re.compile(r"^[\w ]{1,30}:\s+(?=I\b|I'|[Mm]y\b)")
_TOGETHER = re.compile(
    r"^(?P<who>(?i:my|our)\s+[\w-]+(?:\s+[A-Z][\w'-]+)?)\s+and\s+I\s+"
    r"(?P<rest>(?i:(?:just\s+|recently\s+)?(?:live|lived|moved|relocated|work|worked|own|have|speak|love|"
    r"like|hate|adopted|bought))\b.*)$"
)
_ASKS = re.compile(
    r"^(?:(?:so|and|but|also|ok|okay|hey|hi)\s+)?(?:do|does|did|is|are|am|was|were|can|could|would|should|"
    r"will|have|has|what|where|who|when|why|how|which)\b",
    re.I,
)
# An age or a role after a comma, or after "I'm 31 and".
_INTRO_ITEM = re.compile(r"(?:,\s*(?:and\s+)?|(?<=\d)\s+and\s+)(?=\d{1,3}\b|(?:a|an)\s)")
_PRONOUN = re.compile(r"^(?:he|she)(?:\s+|(?='s\s))", re.I)
_MORE_PETS = re.compile(rf",?\s+and\s+(?=(?:a|an)\s+(?:{R.KIN})\s+(?:named|called)\b)", re.I)
_SUBJECT = re.compile(
    r"^(?P<s>.+?)\s+(?:is|are|was|lives?|works?|loves?|likes?|hates?|enjoys?|owns?|has|have|speaks?|"
    r"stud(?:y|ies)|wants?|plans?|drives?|prefers?|moved)\b",
    re.I,
)


@dataclass(frozen=True)
class Clause:
    """One normalised clause and what applies to every fact read from it."""

    text: str
    sentence: str
    cased: bool  # capitals in the message mark names (False for all-lower-case messages)
    confidence: float = DIRECT
    ephemeral: bool = False
    negated: bool = False
    replaces: str | None = None


def split_sentences(text: str) -> list[str]:
    """Sentences of `text` (line breaks and . ! ? end one; "Dr." and "St." do not)."""
    out: list[str] = []
    for piece in _SENTENCE.split(text.replace("\r", "")):
        piece = piece.strip()
        if not piece:
            continue
        if out and _ABBREV.search(out[-1]):
            out[-1] = f"{out[-1]} {piece}"
        else:
            out.append(piece)
    return out


def is_cased(sentence: str) -> bool:
    """Whether capitals are informative: some capital besides the pronoun I and the first letter."""
    body = re.sub(r"\bI\b", "", sentence.lstrip(" \"'([-*")[1:])
    return any(ch.isupper() for ch in body)


def normalise(text: str) -> str:
    """Straight quotes, the pronoun capitalised, "I am"/"Im" -> "I'm", "I've got" -> "I have"."""
    text = text.replace("’", "'").replace("‘", "'").replace("“", '"').replace("”", '"')
    text = _LOWER_I.sub("I", text)
    text = _IM.sub("I'm", text)
    text = _IVE.sub("I've", text)
    text = _GOT.sub("I have", text)
    text = _BEEN.sub("I'm ", text)  # "I've been vegan for years" reads as "I'm vegan"
    text = _LABEL.sub("", text.strip())  # "quick intro: I'm Priya"
    text = _EMOJI.sub(" ", text)
    text = _POLITE_IF.sub("", text)  # "teal, if that helps": not a hypothetical
    text = _ROLE_IS.sub(r"\1 is ", text)  # "my mum's a teacher" (not "my mum's car")
    return " ".join(text.split())


def split_clauses(sentence: str) -> list[str]:
    """Clauses of a normalised sentence; "I live in X and work at Y" -> ["I live in X", "I work at Y"]."""
    clauses: list[str] = []
    previous: str | None = None
    for part in _CLAUSE.split(sentence):
        pronoun = _PRONOUN.match(part)
        if pronoun and previous and previous.lower().startswith(("my ", "our ")):
            rest = re.sub(r"^'s\s+", "is ", part[pronoun.end() :])  # "and she's a vet"
            part = f"{previous} {rest}"  # "my wife Ana is a doctor and she loves tennis"
        previous = _subject_of(part)
        pieces = _MORE_PETS.split(part)
        for k, piece in enumerate(pieces):
            if k:
                piece = f"I have {piece}"
            subject = None
            for j, chunk in enumerate(_CONTINUE.split(piece)):
                if j == 0:
                    subject = _subject_of(chunk)
                elif subject:
                    chunk = f"{subject} {chunk}"
                chunk = chunk.strip(" ,.!;:")
                if chunk:
                    clauses.extend(_intro_items(chunk))
    return clauses + _partner_too(sentence)


def _partner_too(clause: str) -> list[str]:
    """ "My wife and I live in Sacramento": the same fact about the wife (the user's clause is split off
    by `_CLAUSE` as usual)."""
    together = _TOGETHER.match(clause)
    return [f"{together.group('who')} {together.group('rest')}"] if together else []


def _intro_items(clause: str) -> list[str]:
    """ "I'm Priya, 29, and a software engineer" -> "I'm Priya", "I'm 29", "I'm a software engineer"."""
    lead = R.LEAD.match(clause)
    body = clause[lead.end() :] if lead else clause
    if not body.startswith("I'm "):
        return [clause]
    items = _INTRO_ITEM.split(body)
    return [items[0], *(f"I'm {item}" for item in items[1:])]


def _subject_of(clause: str) -> str | None:
    if re.match(r"^(?:I\b|I')", clause):
        return "I"
    named = R.F_IS_MY.match(clause) or R.F_NAME_IS.match(clause)
    if named:
        return f"my {named.group('role')}"
    match = _SUBJECT.match(clause)
    return match.group("s") if match else None


def clause_texts(sentence: str) -> list[str]:
    """The normalised clauses of a sentence that may state facts (not questions, hypotheticals, hearsay)."""
    norm = normalise(sentence)
    if _HYPO_START.match(norm):
        return []
    clauses = split_clauses(norm)
    if sentence.rstrip(" \"')").endswith("?"):
        # "I have a bearded dragon named Spike, what temperature should his tank be?": the last clause asks;
        # a sentence that opens with a question ("Do I live in Paris, or ...?") states nothing.
        if not clauses or R.QUESTION_START.search(clauses[0]) or _ASKS.match(clauses[0]):
            return []
        clauses = clauses[:-1]
    return [
        text
        for text in clauses
        if not (_HYPO_START.match(text) or R.HYPOTHETICAL.search(text) or R.REPORTED.search(text))
        and not R.QUESTION_START.search(text)
    ]


def prepare(text: str, sentence: str, cased: bool) -> Clause | None:
    """Strip openers, hedges, negation and a trailing correction; remember what they implied."""
    confidence = HEDGED if R.HEDGE.search(text) else DIRECT
    ephemeral = bool(R.EPHEMERAL.search(text))
    text = text.strip(" .!,;:")
    for _ in range(2):
        text = R.HEDGE_LEAD.sub("", R.LEAD.sub("", text))
    text = R.HEDGE_INNER.sub("", text)
    text = _OUR.sub("my", _WE_ARE.sub("I'm", R.WE.sub("I", text)))
    text = _GOT.sub("I have", _subject_back(text))
    while (adverb := R.ADVERB.match(text)) is not None:
        text = f"{adverb.group(1)} {text[adverb.end() :]}"
    text, replaces = _correction(text)
    text, negated = _negation(text)
    text = R.ANYMORE.sub("", text).strip(" .!,;:")
    if not text:
        return None
    return Clause(text, sentence, cased, confidence, ephemeral, negated, replaces)


def _subject_back(text: str) -> str:
    """A clause chat drops its subject from: "Just got hired by Spotify", "Living in Lima these days"."""
    match = R.SUBJECTLESS.match(text)
    if match is None:
        return text
    verb = match.group("verb").lower()
    if verb == "born":
        return f"I was {text}"
    if verb == "been":  # "been vegan since 2019"
        return f"I'm {text[match.start('verb') + len('been') :].strip()}"
    return f"I'm {text}" if verb.endswith("ing") or verb in R.SUBJECTLESS_STATES else f"I {text}"


def _correction(text: str) -> tuple[str, str | None]:
    match = R.CORRECTION.match(text)
    if match is None:
        return text, None
    old = R.ARTICLE.sub("", trim(match.group("old")))
    return (match.group("head"), old) if is_object(old) else (text, None)


_NEGATIONS = (
    (R.QUIT_JOB, "I work at "),
    (R.MOVED_AWAY, "I live in "),
    (R.SOLD, "I own "),
    (R.USED_TO, "I "),
    (R.NEG_BE, "I'm "),
    (R.NEG_VERB, "I "),
)


def _negation(text: str) -> tuple[str, bool]:
    for pattern, replacement in _NEGATIONS:
        match = pattern.match(text)
        if match:
            return replacement + text[match.end() :], True
    return text, False

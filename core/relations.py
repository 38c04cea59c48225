"""The vocabulary of facts and the graph: text normalisation, entity ids, entity types, relation names.

Everything here is pure and immutable, shared by the knowledge graph (resolver, ingestion) and the fact
store in memory (which must agree with the graph on what "moved to" and "lives in" mean). Names
and phrases are compared case- and punctuation-insensitively ("Jo's" -> "jo", "New-York!" -> "new york").
Role relations read "X <role>_of Y" = "X is Y's <role>": `jo -sister_of-> user` means Jo is the user's
sister; "has a sister" and "sister" as predicates are the same relation with subject and object swapped.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from datetime import datetime
from types import MappingProxyType

USER_ID = "user"
ENTITY_TYPES = ("person", "pet", "place", "organization", "project", "thing", "event", "concept", "other")
VAGUE_TYPES = frozenset({"thing", "other", "concept"})  # a more specific type learned later replaces these

_TOKEN = re.compile(r"[^\W_]+(?:['’][^\W_]+)*")

# Role relations and the nouns that name them ("my sister", "has a sister", "sister of").
ROLES: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {
        "sister_of": ("sister",),
        "brother_of": ("brother",),
        "sibling_of": ("sibling",),
        "mother_of": ("mother", "mom", "mum"),
        "father_of": ("father", "dad"),
        "parent_of": ("parent",),
        "child_of": ("child", "kid", "son", "daughter", "baby"),
        "spouse_of": ("spouse", "wife", "husband", "partner", "hubby", "missus", "other half"),
        "friend_of": ("friend", "best friend"),
        "boss_of": ("boss", "manager", "team lead"),
        "colleague_of": ("colleague", "coworker", "co worker"),
        "roommate_of": ("roommate", "flatmate"),
        "aunt_of": ("aunt",),
        "uncle_of": ("uncle",),
        "cousin_of": ("cousin",),
        "grandmother_of": ("grandmother", "grandma"),
        "grandfather_of": ("grandfather", "grandpa"),
        "doctor_of": ("doctor",),
        "therapist_of": ("therapist",),
        "boyfriend_of": ("boyfriend",),
        "girlfriend_of": ("girlfriend",),
        "fiance_of": ("fiance", "fiancé", "fiancee", "fiancée"),
        "niece_of": ("niece",),
        "nephew_of": ("nephew",),
        "grandchild_of": ("grandchild", "grandson", "granddaughter"),
        "stepmother_of": ("stepmother", "stepmom", "stepmum"),
        "stepfather_of": ("stepfather", "stepdad"),
        "stepchild_of": ("stepchild", "stepson", "stepdaughter"),
    }
)

# canonical relation: the predicate phrasings that mean it (normalised: lower case, no punctuation)
_SYNONYM_TEXT = """
lives_in: lives in | live in | lives at | living in | moved to | resides in | based in | relocated to
works_at: works at | work at | works for | employed by | employed at | job at | working at
works_on: works on | working on | is building | builds
studies_at: studies at | study at | student at | attends | goes to school at
born_in: born in | was born in | from | comes from | is from
named: name | named | is named | called | is called | name is | goes by
is_a: is a | is an | is | type | kind of | instance of | species | breed
likes: likes | like | loves | love | enjoys | enjoy | is into | fan of
dislikes: dislikes | dislike | hates | hate | doesnt like | does not like
owns: owns | own | has | have
has_pet: has pet | has a pet | pet | pet is | has dog | has a dog | has cat | has a cat
has_pet: owns a dog | owns a cat | owns dog | owns cat
spouse_of: married to | is married to
friend_of: friends with | is friends with
part_of: part of | member of | belongs to | is part of
speaks: speaks | speak
interested_in: interested in | is interested in | curious about
skilled_at: skilled at | good at | expert in | is good at
wants: wants to | wants | plans to | wants to be
created: created | made | wrote | founded | built
knows: knows | met
"""


def _parse_synonyms(text: str) -> Mapping[str, str]:
    table: dict[str, str] = {}
    for line in text.strip().splitlines():
        relation, _, phrases = line.partition(":")
        table.update(dict.fromkeys((p.strip() for p in phrases.split("|")), relation.strip()))
    return MappingProxyType(table)


_SYNONYMS = _parse_synonyms(_SYNONYM_TEXT)

# One current value per source: a new value supersedes the old edge (kept, marked, valid_to set).
FUNCTIONAL_RELATIONS = frozenset({"lives_in", "works_at", "named", "born_in", "studies_at"})

# relation -> the questions a fact of it answers, in plain words: a question is matched to a relation by
# meaning (MiniLM similarity to these lines, `core/generation/extractive.py`), whatever its phrasing.
RELATION_QUESTIONS: Mapping[str, str] = MappingProxyType(
    {
        "is_a": "a question about what someone does for work: their job, occupation, profession, role, "
        "what they do for a living",
        "works_at": "a question about where someone works: their employer, workplace, company, office",
        "works_on": "a question about what someone is working on or building: their project",
        "studies_at": "a question about where someone studies: their school, college, university, course",
        "lives_in": "a question about where someone lives: their home, city, town, country, address",
        "born_in": "a question about where someone was born or comes from: their hometown, birthplace",
        "named": "a question about what someone or something is called: its name",
        "likes": "a question about what someone likes, loves or enjoys: their favourite things",
        "dislikes": "a question about what someone dislikes, hates or cannot stand",
        "has_pet": "a question about someone's pet: their dog, cat or other animal",
        "spouse_of": "a question about who someone is married to: their husband or wife",
        "speaks": "a question about which languages someone speaks",
        "interested_in": "a question about what someone is interested in or curious about",
        "skilled_at": "a question about what someone is good at: their skills",
        "wants": "a question about what someone wants or plans to do: their goals",
    }
)

# relation -> what a question about the user's own fact of it asks about, as the not-in-memory reply names it
RELATION_TOPICS: Mapping[str, str] = MappingProxyType(
    {
        "is_a": "your work",
        "works_at": "where you work",
        "works_on": "what you are working on",
        "studies_at": "where you study",
        "lives_in": "where you live",
        "born_in": "where you come from",
        "named": "your name",
        "likes": "what you like",
        "dislikes": "what you dislike",
        "has_pet": "your pets",
        "spouse_of": "your partner",
        "speaks": "the languages you speak",
        "interested_in": "your interests",
        "skilled_at": "your skills",
        "wants": "your plans",
    }
)

# relation -> (subject type, object type) to type entities first seen through it; None = no evidence.
RELATION_TYPES: Mapping[str, tuple[str | None, str | None]] = MappingProxyType(
    {
        "lives_in": (None, "place"),
        "born_in": ("person", "place"),
        "works_at": ("person", "organization"),
        "studies_at": ("person", "organization"),
        "works_on": (None, "project"),
        "has_pet": (None, "pet"),
        "speaks": ("person", "concept"),
        "is_a": (None, "concept"),
        **{role: ("person", "person") for role in ROLES},
    }
)


def norm_token(token: str) -> str:
    """Lower-case; drop a possessive `'s` and inner apostrophes ("Jo's" -> "jo", "don't" -> "dont")."""
    token = token.lower().replace("’", "'")
    if token.endswith("'s"):
        token = token[:-2]
    return token.replace("'", "")


def token_spans(text: str) -> list[tuple[str, int, int]]:
    """Normalised word tokens of `text` with their character spans; punctuation and case are ignored."""
    out: list[tuple[str, int, int]] = []
    for match in _TOKEN.finditer(text):
        token = norm_token(match.group())
        if token:
            out.append((token, match.start(), match.end()))
    return out


def normalize(text: str) -> str:
    """Case- and punctuation-insensitive form of a name or phrase: its tokens joined by single spaces."""
    return " ".join(token for token, _, _ in token_spans(text))


def make_entity_id(name: str) -> str:
    """The node id for a name: normalised tokens joined by underscores (`New York!` -> `new_york`)."""
    return "_".join(normalize(name).split())


def canonical_relation(predicate: str) -> tuple[str, bool]:
    """The canonical relation for a predicate and whether subject and object must be swapped.

    "lives in"/"moved to" -> (`lives_in`, False); "sister of" -> (`sister_of`, False); "sister"/"has a
    sister" (the subject has a sister who is the object) -> (`sister_of`, True). Unknown predicates pass
    through as snake_case.
    """
    phrase = normalize(predicate)
    if phrase in _SYNONYMS:
        return _SYNONYMS[phrase], False
    bare = re.sub(r"^(?:is |was )?(?:the |a |an |my |their )?", "", phrase)
    for relation, nouns in ROLES.items():
        for noun in nouns:
            if bare in (f"{noun} of", f"{noun} to", relation.replace("_", " ")):
                return relation, False
            if bare in (noun, f"has {noun}", f"has a {noun}", f"{noun} is", f"s {noun}"):
                return relation, True
    return "_".join(phrase.split()) or "related_to", False


def to_epoch(value: float | int | datetime | str | None, default: float) -> float:
    """Epoch seconds from a number, a datetime or an ISO-8601 string; `default` for None or junk."""
    if value is None or isinstance(value, bool):
        return default
    if isinstance(value, int | float):
        return float(value) if math.isfinite(value) else default
    if isinstance(value, datetime):
        return value.timestamp()
    try:
        return datetime.fromisoformat(str(value).strip().replace("Z", "+00:00")).timestamp()
    except ValueError:
        return default


_PHRASES: Mapping[str, str] = MappingProxyType(
    {
        "named": "is named",
        "is_a": "is",
        "has_pet": "has a pet named",
        "wants": "wants",
        "interested_in": "is interested in",
        "skilled_at": "is good at",
        "part_of": "is part of",
        "born_in": "was born in",
    }
)


# A change kept as a fact ("no_longer_plays cello"), and an ending whose verb names no relation ("cancelled
# Netflix", "put Biscuit down"): it ends whatever current fact names the same thing (memory/facts/changes.py).
NO_LONGER = "no_longer_"
_COUNT = "number_of_"
ENDS_WHAT_IT_NAMES = "ended"
ALL_WORK = "work"  # what an ending names when it is of work itself ("Retired at last!"): every work fact
# A correction that names values only ("sorry, I meant Tucson"): the fact service finds the fact it corrects.
REPLACES_VALUE = "replaces_value"


def fact_sentence(subject: str, relation: str, obj: str) -> str:
    """A fact as a plain sentence for people and prompts: ("jo", "sister_of", "user") -> "Jo is the user's
    sister."; ("user", "lives_in", "Denver") -> "The user lives in Denver."; ("my dog", "named", "Rex") ->
    "My dog is named Rex."."""
    user = {"user", "i", "me"}
    who = "the user" if normalize(subject) in user else subject
    what = "the user" if normalize(obj) in user else obj
    nouns = ROLES.get(relation)
    if nouns and what == "the user":
        text = f"{who} is the user's {nouns[0]}."
    else:
        ended = relation.startswith(NO_LONGER)  # a change: "no_longer_plays" -> "no longer plays"
        relation = relation.removeprefix(NO_LONGER)
        verb = _PHRASES.get(relation, relation.replace("_", " "))
        if relation.startswith(_COUNT) and not ended:  # "number_of_sisters" 1 -> "has 1 sister"
            noun = relation.removeprefix(_COUNT).replace("_", " ")
            noun = noun.removesuffix("s") if what.strip() in ("1", "one") else noun
            verb, what = "has", f"{what} {noun}"
        if relation == "is_a" and not re.match(r"(?i)(a|an|the)\s", what):
            verb = "is " + ("an" if what[:1].lower() in "aeiou" else "a")
        elif relation == "wants" and not re.match(r"(?i)(a|an|the|to)\s", what):
            verb = "wants to"
        if ended:
            head, _, rest = verb.partition(" ")
            verb = f"{head} no longer {rest}" if head == "is" and rest else f"no longer {verb}"
        text = f"{who} {verb} {what}."
    return text[:1].upper() + text[1:]


_SECOND_PERSON = (
    (r"\bI'm\b", "you're"),
    (r"\bI am\b", "you are"),
    (r"\bI was\b", "you were"),
    (r"\bI've\b", "you've"),
    (r"\bI'd\b", "you'd"),
    (r"\bI'll\b", "you'll"),
    (r"\bI\b", "you"),
    (r"\bmyself\b", "yourself"),
    (r"\bmine\b", "yours"),
    (r"\bmy\b", "your"),
    (r"\bme\b", "you"),
    (r"\bam\b", "are"),
    # the plural the user speaks in for their family or household ("our pets", "we're moving"): "we're",
    # "we've" follow from "we"
    (r"\bourselves\b", "yourselves"),
    (r"\bours\b", "yours"),
    (r"\bour\b", "your"),
    (r"\bwe\b", "you"),
    (r"\bus\b", "you"),
)
# matched as written: "I" is only the pronoun capitalised, "us" only in lower case ("the US" is a country)
_CASE_SENSITIVE = frozenset({r"\bI\b", r"\bus\b"})


def second_person(text: str) -> str:
    """The user's first-person words addressed back to them ("I work at X" -> "you work at X", "our dog
    loves us" -> "your dog loves you")."""
    out = text
    for pattern, replacement in _SECOND_PERSON:
        flags = 0 if pattern in _CASE_SENSITIVE else re.IGNORECASE
        out = re.sub(pattern, replacement, out, flags=flags)
    return out


def fact_to_user(sentence: str) -> str:
    """A fact sentence about "the user" as said to them ("The user is a sound engineer." -> "you are a
    sound engineer.")."""
    replaced = re.sub(r"^The user's\b", "your", sentence)
    replaced = re.sub(r"\bthe user's\b", "your", replaced)
    match = re.match(r"^The user (is|has|was|\w+s)\b", replaced)
    if match:
        verb = match.group(1)
        base = {"is": "are", "has": "have", "was": "were"}.get(verb)
        if base is None:
            base = verb[:-2] if verb.endswith(("ches", "shes", "sses", "xes", "oes")) else verb[:-1]
        replaced = f"you {base}{replaced[match.end() :]}"
    replaced = re.sub(r"\bthe user\b", "you", replaced)
    replaced = re.sub(r"^you are named\b", "your name is", replaced)
    if re.match(r"(?:The|My|Your|You)\b", replaced):  # a name stays capitalised ("Jo is a dentist")
        replaced = replaced[:1].lower() + replaced[1:]
    return second_person(replaced)

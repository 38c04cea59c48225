"""Entity resolution: find the graph's entities in a text by an alias table over n-grams.

The text is tokenised case- and punctuation-insensitively ("Jo's" -> "jo"), then looked up as n-grams from
the longest down (trigrams, bigrams, unigrams; longer when an alias is longer), non-overlapping, so "New
York" resolves as one entity before "York" could match anything. The table holds every entity's name and
aliases (space-joined, the same normalisation as the text: the original joined ids with underscores and
never resolved a multi-word entity), a person's first name, and possessive aliases derived from the user's
current relations: "my sister" -> whoever is the user's sister, "my dog" -> the user's pet that is a dog,
"my job" -> where the user works. The index is rebuilt when the graph's revision changes.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from types import MappingProxyType

from core.relations import ROLES, USER_ID, normalize, token_spans
from knowledge.graph import KnowledgeGraph

_STOPWORD_TEXT = """
a about above after again against all also am an and any are as at be because been before being below
between both but by can could did do does doing down during each few for from further had has have having
he her here hers herself him himself his how i if in into is it its itself just me more most my myself no
nor not now of off on once only or other our ours ourselves out over own same she should so some such than
that the their theirs them themselves then there these they this those through to too under until up very
was we were what when where which while who whom why will with would you your yours yourself yourselves
may might must shall let yes no yeah ok okay hi hello hey thanks please really well still even ever
one two three today tomorrow yesterday thing things stuff something anything everything nothing someone
anyone everyone people person time day week month year way lot lots bit kind sort
"""
STOPWORDS = frozenset(_STOPWORD_TEXT.split())
# Words before a name that do not make a first name on their own ("Aunt May" is not "aunt").
_TITLE_TEXT = "aunt uncle dr doctor mr mrs ms miss mx prof professor sir lady lord saint st"
TITLES = frozenset(_TITLE_TEXT.split())
_PET_TEXT = """dog puppy pup cat kitten kitty bird parrot budgie fish goldfish hamster rabbit bunny horse pony
turtle tortoise snake lizard gecko ferret chinchilla rat mouse"""
PET_KINDS = frozenset([*_PET_TEXT.split(), "guinea pig"])
# How the user refers to the target of their own outgoing relations: "my job" -> works_at target.
OWN_RELATION_NOUNS: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {
        "works_at": ("job", "work", "company", "employer", "workplace", "office"),
        "lives_in": ("city", "town", "hometown", "home town"),
        "studies_at": ("school", "university", "college", "uni"),
        "has_pet": ("pet",),
        "works_on": ("project",),
    }
)
USER_WORDS = frozenset({"i", "me", "my", "myself", "mine", "user", "the user"})
_POSSESSORS = ("my", "our", "user", "the user", "users")


@dataclass(frozen=True)
class Mention:
    """One resolved span: `text[start:end]` refers to `entity_id` through the normalised `alias`."""

    entity_id: str
    start: int
    end: int
    text: str
    alias: str
    possessive: bool = False


@dataclass(frozen=True)
class _Entry:
    ids: tuple[str, ...]
    possessive: bool


class EntityResolver:
    """Resolves entity mentions in texts against one graph; cheap to keep and reuse across turns."""

    def __init__(self, graph: KnowledgeGraph, *, max_ngram: int = 3, max_alias_words: int = 6) -> None:
        self.graph = graph
        self._max_ngram = max_ngram
        self._max_alias_words = max_alias_words
        self._index: dict[str, _Entry] = {}
        self._longest = 1
        self._starts: frozenset[str] = frozenset()  # first words of all aliases
        self._built_at = -1

    def resolve(
        self, text: str, *, include_user: bool = False, only: Collection[str] | None = None
    ) -> list[Mention]:
        """Entity mentions in `text`, longest n-grams first, non-overlapping, in text order.

        `include_user` also resolves "I"/"me"/"my" to the user node; `only` keeps the mentions of these ids
        (resolution itself is unchanged: "New York" is never read as "York" because only York is wanted).
        """
        index = self._current_index()
        spans = token_spans(text)
        tokens = [token for token, _, _ in spans]
        starts = self._starts if not include_user else self._starts | USER_WORDS
        claimed = [False] * len(tokens)
        found: list[Mention] = []
        for n in range(min(self._longest, len(tokens)), 0, -1):
            for i in range(len(tokens) - n + 1):
                if tokens[i] not in starts or any(claimed[i : i + n]):
                    continue  # most tokens start no alias: skip them before building n-grams
                gram = " ".join(tokens[i : i + n])
                ids = self._lookup(index, gram, include_user)
                if not ids:
                    continue
                claimed[i : i + n] = [True] * n
                start, end = spans[i][1], spans[i + n - 1][2]
                possessive = index[gram].possessive if gram in index else False
                found.extend(
                    Mention(eid, start, end, text[start:end], gram, possessive)
                    for eid in ids
                    if only is None or eid in only
                )
        return sorted(found, key=lambda m: (m.start, m.entity_id))

    def resolve_ids(
        self, text: str, *, include_user: bool = False, only: Collection[str] | None = None
    ) -> list[str]:
        """Distinct entity ids mentioned in `text`, in order of first mention."""
        mentions = self.resolve(text, include_user=include_user, only=only)
        return list(dict.fromkeys(m.entity_id for m in mentions))

    def aliases(self) -> Mapping[str, tuple[str, ...]]:
        """The current alias table: normalised alias -> entity ids."""
        return MappingProxyType({alias: entry.ids for alias, entry in self._current_index().items()})

    def _lookup(self, index: Mapping[str, _Entry], gram: str, include_user: bool) -> tuple[str, ...]:
        if include_user and gram in USER_WORDS and USER_ID in self.graph:
            return (USER_ID,)
        entry = index.get(gram)
        if entry is None or (" " not in gram and gram in STOPWORDS):
            return ()
        return entry.ids

    def _current_index(self) -> dict[str, _Entry]:
        if self._built_at != self.graph.revision:
            self._index = build_alias_index(self.graph, self._max_alias_words)
            longest = max((alias.count(" ") + 1 for alias in self._index), default=1)
            self._longest = max(self._max_ngram, longest)
            self._starts = frozenset(alias.split(" ", 1)[0] for alias in self._index)
            self._built_at = self.graph.revision
        return self._index


def build_alias_index(graph: KnowledgeGraph, max_words: int = 6) -> dict[str, _Entry]:
    """Alias -> entry for every entity name, alias, person first name and possessive phrase.

    Names win over derived first names; where two entities share a name, the more mentioned one wins.
    """
    named: _Candidates = {}
    for entity in graph.entities():
        if entity.id == USER_ID:
            continue
        for alias in {entity.name, *entity.aliases}:
            _offer(named, normalize(alias), (2, entity.mentions, entity.id), max_words)
        first = _first_name(entity.name) if entity.type == "person" else None
        if first:
            _offer(named, first, (1, entity.mentions, entity.id), max_words)
    index = {alias: _Entry((max(cands)[2],), False) for alias, cands in named.items()}
    for alias, ids in possessive_aliases(graph).items():
        index[alias] = _Entry(tuple(ids), True)
    return index


_Candidates = dict[str, list[tuple[int, int, str]]]  # alias -> [(priority, mentions, entity id)]


def _offer(table: _Candidates, alias: str, cand: tuple[int, int, str], cap: int) -> None:
    if not alias or alias.count(" ") + 1 > cap or (" " not in alias and alias in STOPWORDS):
        return
    table.setdefault(alias, []).append(cand)


def _first_name(name: str) -> str | None:
    words = normalize(name).split()
    if len(words) < 2 or words[0] in TITLES or words[0] in STOPWORDS or len(words[0]) < 2:
        return None
    return words[0]


def possessive_aliases(graph: KnowledgeGraph) -> dict[str, list[str]]:
    """ "my sister" -> the user's sisters, "my dog" -> the user's dogs, "my job" -> the user's workplace."""
    if USER_ID not in graph:
        return {}
    nouns: dict[str, list[str]] = {}
    for edge in graph.edges(target=USER_ID):
        for noun in ROLES.get(edge.relation, ()):
            nouns.setdefault(noun, []).append(edge.source)
    for edge in graph.edges(USER_ID):
        for noun in OWN_RELATION_NOUNS.get(edge.relation, ()):
            nouns.setdefault(noun, []).append(edge.target)
        if edge.relation == "has_pet":
            for kind in pet_kinds(graph, edge.target):
                nouns.setdefault(kind, []).append(edge.target)
    out: dict[str, list[str]] = {}
    for noun, ids in nouns.items():
        for owner in _POSSESSORS:
            out[f"{owner} {normalize(noun)}"] = list(dict.fromkeys(ids))
    return out


def pet_kinds(graph: KnowledgeGraph, pet_id: str) -> list[str]:
    """What kind of animal a pet is ("dog"), from its `is_a` edges or its `species` attribute."""
    kinds = [normalize(k.name) for e in graph.edges(pet_id, "is_a") if (k := graph.entity(e.target))]
    entity = graph.entity(pet_id)
    species = entity.attributes.get("species") if entity else None
    if isinstance(species, str):
        kinds.append(normalize(species))
    return [k for k in dict.fromkeys(kinds) if k]

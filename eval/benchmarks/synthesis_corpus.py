"""A generated corpus for `bench synthesis`: memories and documents in seven domains, a knowledge graph,
and planted candidates the filter must stop.

Memories are built from one table: each row is a structural pattern ("needs small, regular feeding to
stay alive") and, per domain, the thing that shows it in that domain's own words. A pattern shared by
two domains is what a genuine cross-domain connection is made of; the same table also gives every domain
plain, pattern-free memories. Documents are background knowledge (what the user could read anywhere).

Planted candidates, each labelled with its kind:
- restatement: a memory and the document on its subject, "linked" by a rewording of what both say
  (obvious: one domain, and nearly one meaning);
- known_link: a cross-domain link that a background document already makes, reworded, between the two
  memories it names (not new: the external-novelty stage must stop it);
- same_domain: two memories of one domain and a plausible bridge (obvious: domain crossing must stop it);
- word_salad: a bridge of shuffled words: corpus words, a corpus sentence, or both sides' own words with a
  verb (nonsense that names both sides: text sanity must stop it).
Everything is deterministic for a seed.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from knowledge.synthesis.candidate import Candidate, Endpoint

# pattern -> (relation, concept, {domain: (the thing that shows it, the memory in that domain's words)})
PATTERNS: dict[str, tuple[str, str, dict[str, tuple[str, str]]]] = {
    "feeding": (
        "needs",
        "small regular feeding",
        {
            "food and cooking": (
                "sourdough starter",
                "my sourdough starter only stays alive if I feed it flour and water every day",
            ),
            "money and finance": (
                "savings account",
                "my savings only keep growing if I put a small amount into the account every week",
            ),
            "gardening and plants": (
                "tomato seedlings",
                "the tomato seedlings wilt unless I water them a little every morning",
            ),
            "music": (
                "guitar technique",
                "my guitar technique fades unless I practise scales for ten minutes a day",
            ),
            "software and computing": (
                "test suite",
                "the test suite rots unless someone fixes one flaky test every sprint",
            ),
        },
    ),
    "slow_then_sudden": (
        "shows",
        "slow growth then a sudden surge",
        {
            "money and finance": (
                "index fund",
                "compound interest on my index fund grew slowly for years and then suddenly accelerated",
            ),
            "gardening and plants": (
                "bamboo",
                "the bamboo in the garden did nothing for two years and then shot up in a month",
            ),
            "sport and fitness": (
                "running pace",
                "my running pace barely improved all winter and then suddenly jumped in spring",
            ),
            "music": (
                "piano playing",
                "my piano playing felt stuck for months and then suddenly the hard passage clicked",
            ),
        },
    ),
    "rest": (
        "needs",
        "rest before performing",
        {
            "food and cooking": (
                "bread dough",
                "bread dough has to rest in the fridge overnight before it bakes well",
            ),
            "sport and fitness": (
                "long runs",
                "my legs only got faster once I took proper rest days between long runs",
            ),
            "software and computing": (
                "database cache",
                "the new database settings only behaved once the caches had warmed up overnight",
            ),
            "astronomy and space": (
                "telescope mirror",
                "the telescope mirror must cool down for an hour before the stars look sharp",
            ),
        },
    ),
    "pushed_too_fast": (
        "breaks when",
        "pushed too hard too fast",
        {
            "food and cooking": ("caramel", "the caramel burns whenever I turn the heat up to hurry it"),
            "sport and fitness": (
                "weekly mileage",
                "I got shin splints when I increased my weekly mileage too quickly",
            ),
            "software and computing": (
                "server",
                "the server crashed when we pushed all the traffic to it at once",
            ),
            "gardening and plants": ("lawn", "the lawn scorched when I added too much fertiliser in one go"),
        },
    ),
    "small_batches": (
        "works best in",
        "small frequent batches",
        {
            "software and computing": (
                "pull requests",
                "small pull requests get reviewed and merged faster than one huge change",
            ),
            "food and cooking": (
                "mushrooms",
                "frying the mushrooms in small batches browns them instead of steaming them",
            ),
            "money and finance": (
                "credit card",
                "paying the credit card in small frequent amounts kept me out of debt",
            ),
            "music": (
                "new song",
                "learning the song four bars at a time worked better than playing it start to finish",
            ),
        },
    ),
    "cold_still": (
        "is clearest in",
        "cold still conditions",
        {
            "astronomy and space": (
                "planets",
                "the planets look steadiest on cold, still nights when the air is calm",
            ),
            "gardening and plants": (
                "frost damage",
                "frost damage only shows on the leaves after a cold, still night",
            ),
            "sport and fitness": ("best times", "I run my best times on cold, still mornings with no wind"),
        },
    ),
}

PLAIN: dict[str, tuple[str, ...]] = {
    "food and cooking": (
        "I cooked a lentil curry with cumin and coriander for dinner",
        "My favourite restaurant serves handmade pasta with brown butter",
        "I bought a cast iron pan to sear steaks in the oven",
    ),
    "money and finance": (
        "I moved my pension into a low-cost index fund",
        "Our mortgage rate resets next spring so I am comparing banks",
        "I track every expense in a budgeting spreadsheet",
    ),
    "astronomy and space": (
        "I saw the rings of Saturn through my telescope last autumn",
        "The Perseid meteor shower peaks in the middle of August",
        "I want to photograph the Andromeda galaxy from a dark site",
    ),
    "gardening and plants": (
        "I planted garlic cloves in the raised bed in October",
        "The compost heap needs turning with a fork every few weeks",
        "My apple tree needs pruning before the buds open",
    ),
    "music": (
        "I play bass in a small jazz band on Thursdays",
        "I am learning the chord changes of an old blues standard",
        "My violin needs new strings before the concert",
    ),
    "software and computing": (
        "I am rewriting our billing service in Python",
        "The nightly build broke because of a missing database migration",
        "I set up a cache in front of the slow search API",
    ),
    "sport and fitness": (
        "I am training for a half marathon in May",
        "I swim two kilometres at the pool on Saturday mornings",
        "My cycling club rides sixty kilometres every Sunday",
    ),
}

# Background knowledge, and for each a rewording a planted candidate uses as its bridge.
DOCUMENTS: tuple[tuple[str, str, str], ...] = (
    (
        "food and cooking",
        "A sourdough starter is a culture of wild yeast and bacteria kept alive by regular feedings of "
        "flour and water.",
        "A sourdough starter is a culture of wild yeast and bacteria that is kept alive by feeding it "
        "flour and water regularly.",
    ),
    (
        "money and finance",
        "Compound interest makes savings grow slowly at first and then faster and faster as interest "
        "earns interest.",
        "With compound interest, savings grow slowly at first and then ever faster, because the "
        "interest itself earns interest.",
    ),
    (
        "sport and fitness",
        "Muscles grow stronger during the rest days after training, not during the workout itself.",
        "Muscles get stronger on the rest days after training rather than during the workout itself.",
    ),
    (
        "astronomy and space",
        "Astronomers prefer cold, still nights because turbulent air blurs the view through a telescope.",
        "Astronomers like cold and still nights, since turbulent air blurs what a telescope shows.",
    ),
    (
        "software and computing",
        "Small, frequent code changes are easier to review and less likely to break production than "
        "large releases.",
        "Small and frequent code changes are easier to review and less likely to break production than "
        "big releases.",
    ),
    (
        "gardening and plants",
        "Too much fertiliser at once burns plant roots, so gardeners feed little and often.",
        "Too much fertiliser at once will burn the roots of plants, which is why gardeners feed little "
        "and often.",
    ),
    (
        "music",
        "Musicians learn difficult passages by practising them slowly in short sections before playing "
        "them at tempo.",
        "Musicians learn hard passages by practising them slowly in short sections before they play "
        "them at tempo.",
    ),
)


# Well-known cross-domain comparisons (background documents): (domain, memory id, domain, memory id, the
# document, a candidate's rewording of it). A candidate that only restates one is not new.
KNOWN_LINKS: tuple[tuple[str, str, str, str, str, str], ...] = (
    (
        "money and finance",
        "mem-slow_then_sudden-money",
        "gardening and plants",
        "mem-slow_then_sudden-gardening",
        "Compound interest in an index fund is like bamboo in a garden: both grow slowly for years and then "
        "suddenly surge.",
        "An index fund and garden bamboo follow one curve: years of slow growth, then a sudden surge.",
    ),
    (
        "sport and fitness",
        "mem-rest-sport",
        "food and cooking",
        "mem-rest-food",
        "Runners and bakers know the same rule: legs get faster on rest days, and bread dough bakes better "
        "after resting overnight.",
        "Rest days make a runner's legs faster the way an overnight rest makes bread dough bake better.",
    ),
    (
        "software and computing",
        "mem-small_batches-software",
        "food and cooking",
        "mem-small_batches-food",
        "Small pull requests are like frying mushrooms in small batches: small frequent batches work better "
        "than one huge load.",
        "Pull requests, like mushrooms in a frying pan, do better in small, frequent batches than in one big "
        "load.",
    ),
)


@dataclass(frozen=True)
class CorpusText:
    """One memory or document with its domain label."""

    id: str
    collection: str
    text: str
    domain: str


@dataclass
class SynthesisCorpus:
    """The generated corpus: texts, graph triples, and planted candidates with their kinds."""

    texts: list[CorpusText] = field(default_factory=list)
    triples: list[tuple[str, str, str, str]] = field(
        default_factory=list
    )  # (subject, relation, object, fact id)
    planted: list[tuple[str, Candidate]] = field(default_factory=list)

    @property
    def domains(self) -> list[str]:
        return sorted({t.domain for t in self.texts})


def build_corpus(seed: int = 7, salad: int = 12) -> SynthesisCorpus:
    """The corpus for `seed` (deterministic)."""
    rng = random.Random(seed)
    corpus = SynthesisCorpus()
    for pattern, (relation, concept, shown) in PATTERNS.items():
        for domain, (subject, text) in shown.items():
            text_id = f"mem-{pattern}-{domain.split()[0]}"
            corpus.texts.append(CorpusText(text_id, "obsidian_notes", _sentence(text), domain))
            corpus.triples.append((subject, relation, concept, text_id))
    for domain, lines in PLAIN.items():
        for index, text in enumerate(lines):
            corpus.texts.append(
                CorpusText(
                    f"mem-plain-{domain.split()[0]}-{index}", "obsidian_notes", _sentence(text), domain
                )
            )
    for index, (domain, text, _) in enumerate(DOCUMENTS):
        corpus.texts.append(CorpusText(f"doc-{index}", "reference_docs", text, domain))
    for index, (domain, _, _, _, text, _) in enumerate(KNOWN_LINKS):
        corpus.texts.append(CorpusText(f"doc-link-{index}", "reference_docs", text, domain))
    corpus.planted = _planted(corpus, rng, salad)
    return corpus


def _sentence(text: str) -> str:
    return text[:1].upper() + text[1:] + "."


def _by_domain(corpus: SynthesisCorpus) -> dict[str, list[CorpusText]]:
    out: dict[str, list[CorpusText]] = {}
    for text in corpus.texts:
        if text.collection == "obsidian_notes":
            out.setdefault(text.domain, []).append(text)
    return out


def _end(text: CorpusText) -> Endpoint:
    return Endpoint(text.text, text.id, text.collection)


def _planted(corpus: SynthesisCorpus, rng: random.Random, salad: int) -> list[tuple[str, Candidate]]:
    by_domain = _by_domain(corpus)
    domains = sorted(by_domain)
    planted: list[tuple[str, Candidate]] = []
    texts = {t.id: t for t in corpus.texts}
    for index, (domain, _, reworded) in enumerate(DOCUMENTS):
        # a memory and the document on its subject, "linked" by what both say
        left = _nearest_memory(by_domain[domain], texts[f"doc-{index}"].text)
        planted.append(
            ("restatement", Candidate(_end(left), _end(texts[f"doc-{index}"]), reworded, "planted"))
        )
    for _, left_id, _, right_id, _, reworded in KNOWN_LINKS:
        # a cross-domain link that is already known (a background document says it)
        candidate = Candidate(_end(texts[left_id]), _end(texts[right_id]), reworded, "planted")
        planted.append(("known_link", candidate))
    for domain in domains:
        left, right = rng.sample(by_domain[domain], 2)
        bridge = (
            f"{_clause(left.text)} and {_clause(right.text)}, so both are part of the same hobby and one "
            "helps with the other."
        )
        planted.append(("same_domain", Candidate(_end(left), _end(right), bridge, "planted")))
    vocabulary = sorted({w.strip(".,").lower() for t in corpus.texts for w in t.text.split() if len(w) > 3})
    for index in range(salad):
        left, right = (rng.choice(by_domain[d]) for d in rng.sample(domains, 2))
        if index % 3 == 0:
            words = rng.sample(vocabulary, rng.randint(10, 16))  # content words only
        elif index % 3 == 1:
            words = rng.choice(corpus.texts).text.rstrip(".").lower().split()  # a real sentence, shuffled
        else:  # both sides' own words and a linking phrase, shuffled: it names both and has a verb
            words = [
                *left.text.rstrip(".").split()[:7],
                "and",
                "both",
                "have",
                *right.text.rstrip(".").split()[:7],
            ]
        rng.shuffle(words)
        bridge = " ".join(words).capitalize() + "."
        planted.append(("word_salad", Candidate(_end(left), _end(right), bridge, "planted")))
    return planted


def _nearest_memory(memories: list[CorpusText], text: str) -> CorpusText:
    """The memory sharing the most words with `text` (the one a document restates)."""
    words = set(text.lower().split())
    return max(memories, key=lambda m: (len(words & set(m.text.lower().split())), m.id))


def _clause(text: str) -> str:
    return text.rstrip(".")


def random_pairs(corpus: SynthesisCorpus, rng: random.Random, n: int) -> list[Candidate]:
    """The baseline: random pairs of memories with a generic bridge, as a generator with no method would
    propose them."""
    memories = [t for t in corpus.texts if t.collection == "obsidian_notes"]
    out = []
    for _ in range(n):
        left, right = rng.sample(memories, 2)
        bridge = (
            f'"{_clause(left.text)}" and "{_clause(right.text)}" are connected, because both show the same '
            "underlying pattern."
        )
        out.append(Candidate(_end(left), _end(right), bridge, "random"))
    return out

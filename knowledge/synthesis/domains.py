"""Which broad domain a text belongs to, read by meaning against a fixed map of domains.

A connection is only worth a person's attention when it crosses domains ("sourdough starters and savings
habits"), so the filter needs a domain for each endpoint. Each domain is described by a few plain
sentences; a text's domain is the one whose description it is closest to (MiniLM cosine, the same embedder
as memory). A text close to no description, or as close to two (within `margin`), is left unassigned
rather than guessed: the domain-crossing stage then rejects the candidate, which is the cheap mistake.
`bench synthesis` measures this reading on labelled texts (`domain_accuracy`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

UNASSIGNED = "unassigned"

# Domain -> sentences that describe it. Broad on purpose: a finer map makes neighbouring topics (baking and
# cooking) count as a crossing, which is exactly the obvious connection the filter must stop.
DOMAINS: dict[str, tuple[str, ...]] = {
    "food and cooking": (
        "cooking, baking, recipes, ingredients, kitchen, bread, dough, sourdough, fermentation, flavour",
        "meals, spices, ovens, restaurants, coffee, tea, wine and food",
    ),
    "gardening and plants": (
        "gardening, plants, seeds, soil, compost, pruning, roots, flowers, vegetables in the garden",
        "growing tomatoes, watering, greenhouse, trees, leaves and weeds",
    ),
    "music": (
        "music, songs, melody, rhythm, chords, practising an instrument, guitar, piano, violin",
        "concerts, bands, composing, harmony, scales and tempo",
    ),
    "astronomy and space": (
        "astronomy, stars, planets, telescopes, galaxies, orbits, the night sky, moon, comets",
        "space exploration, rockets, satellites and observing the sky",
    ),
    "physics and chemistry": (
        "physics, energy, forces, particles, quantum mechanics, thermodynamics, electricity",
        "chemistry, molecules, reactions, atoms, heat and pressure",
    ),
    "health and medicine": (
        "health, medicine, doctors, illness, symptoms, immune system, sleep, nutrition, the body",
        "hospitals, treatment, vaccines, injuries and recovery",
    ),
    "sport and fitness": (
        "running, training, marathon, exercise, the gym, muscles, endurance, swimming, cycling",
        "sports, football, matches, coaching, races and athletic performance",
    ),
    "money and finance": (
        "money, saving, budget, investing, compound interest, loans, mortgage, taxes, spending",
        "banks, stocks, retirement funds, debt and personal finance",
    ),
    "software and computing": (
        "programming, software, code, bugs, databases, servers, algorithms, computers, caching",
        "writing Python, deploying apps, networks, version control and testing code",
    ),
    "history and politics": (
        "history, ancient empires, wars, kings, revolutions, centuries past, archaeology",
        "politics, governments, elections, laws and historical events",
    ),
    "books and writing": (
        "books, novels, reading, writing stories, poetry, authors, editing drafts, literature",
        "characters, plots, chapters and publishing",
    ),
    "art and design": (
        "painting, drawing, sculpture, colour, design, photography, museums, illustration",
        "sketching, composition, typography and visual art",
    ),
    "travel and places": (
        "travel, trips, flights, hotels, cities, countries, holidays, maps, tourism",
        "visiting places abroad, packing luggage and sightseeing",
    ),
    "family and relationships": (
        "family, parents, children, siblings, partner, friends, relationships, marriage",
        "birthdays, parenting, arguments and spending time with loved ones",
    ),
    "work and career": (
        "job, career, office, manager, colleagues, meetings, deadlines, promotion, interviews",
        "projects at work, salaries, hiring and teams",
    ),
    "mind and psychology": (
        "psychology, emotions, habits, motivation, memory, learning, attention, stress, anxiety",
        "the brain, behaviour, mindfulness and decision making",
    ),
    "nature and ecology": (
        "nature, ecosystems, animals, forests, rivers, weather, climate, birds, oceans",
        "wildlife, evolution, species and the environment",
    ),
    "building and engineering": (
        "engineering, bridges, buildings, machines, construction, materials, mechanics, tools",
        "architecture, repairs, woodworking and electronics hardware",
    ),
}


@dataclass(frozen=True)
class DomainReading:
    """A text's domain (or UNASSIGNED), its similarity to that domain and to the next closest one."""

    domain: str
    similarity: float
    runner_up: float


class DomainReader:
    """Reads texts' domains against `DOMAINS` with `embed` (unit vectors, one row per text)."""

    def __init__(
        self,
        embed: Callable[[Sequence[str]], np.ndarray],
        *,
        min_similarity: float = 0.25,
        margin: float = 0.02,
        top: int = 3,
        domains: dict[str, tuple[str, ...]] | None = None,
    ) -> None:
        self._embed = embed
        self._min = min_similarity
        self._margin = margin
        self._top = top
        self._domains = domains or DOMAINS
        self._names = list(self._domains)
        self._terms: tuple[np.ndarray, np.ndarray] | None = None

    def _loaded(self) -> tuple[np.ndarray, np.ndarray]:
        """Every term of every description embedded on its own, and the domain index of each term."""
        if self._terms is None:
            terms, owners = [], []
            for index, name in enumerate(self._names):
                for sentence in self._domains[name]:
                    for term in (t.strip() for t in sentence.replace(" and ", ", ").split(",")):
                        if term:
                            terms.append(term)
                            owners.append(index)
            self._terms = (np.asarray(self._embed(terms), dtype=np.float32), np.asarray(owners))
        return self._terms

    def read(self, texts: Sequence[str]) -> list[DomainReading]:
        """One reading per text, in order."""
        if not texts:
            return []
        vectors = np.asarray(self._embed(list(texts)), dtype=np.float32)
        return self.read_vectors(vectors)

    def read_vectors(self, vectors: np.ndarray) -> list[DomainReading]:
        """Readings of already embedded texts (unit vectors): a domain's score is the mean similarity of
        its `top` closest terms (one strong term can be a pun; several agreeing ones are a subject)."""
        terms, owners = self._loaded()
        sims = np.asarray(vectors, dtype=np.float32) @ terms.T
        readings, domains = [], range(len(self._names))
        for row in sims:
            scores = np.array([np.sort(row[owners == d])[-self._top :].mean() for d in domains])
            order = np.argsort(-scores)
            best, second = float(scores[order[0]]), float(scores[order[1]])
            clear = best >= self._min and best - second >= self._margin
            readings.append(DomainReading(self._names[order[0]] if clear else UNASSIGNED, best, second))
        return readings

"""Lexical retrieval: a tokenizer (lowercase, stopwords, Porter stemming) and an incremental Okapi BM25 index.

Pure Python with no heavy imports: the index is an inverted list of term -> {doc index: term frequency}, so a
query touches only the postings of its own terms. Documents can be added at any time (corpus statistics are
kept as running totals), and a query can be scored over all documents or over a candidate subset.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from typing import Any

_STOPWORD_TEXT = """
a about above after again against all am an and any are aren as at be because been before being
below between both but by can cannot could couldn did didn do does doesn doing don down during
each few for from further had hadn has hasn have haven having he her here hers herself him
himself his how i if in into is isn it its itself just let ll me more most mustn my myself no
nor not now of off on once only or other ought our ours ourselves out over own re s same shan
she should shouldn so some such t than that the their theirs them themselves then there these
they this those through to too under until up ve very was wasn we were weren what when where
which while who whom why will with won would wouldn you your yours yourself yourselves also
really yeah yes oh hey hi wow got get gets getting thanks thank much lot lots
"""
STOPWORDS = frozenset(_STOPWORD_TEXT.split())

_WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")
_CONTRACTION = re.compile(r"'(?:s|t|re|ve|ll|d|m)$")

Tokenizer = Callable[[str], list[str]]


# --- Porter stemmer (M. F. Porter, 1980), the classic rule set --------------------------------------------
def _cons(word: str, i: int) -> bool:
    ch = word[i]
    if ch in "aeiou":
        return False
    if ch == "y":
        return i == 0 or not _cons(word, i - 1)
    return True


def _measure(stem: str) -> int:
    """Number of vowel-consonant sequences (the m of Porter's paper)."""
    forms = "".join("c" if _cons(stem, i) else "v" for i in range(len(stem)))
    return len(re.findall(r"v+c+", forms))


def _has_vowel(stem: str) -> bool:
    return any(not _cons(stem, i) for i in range(len(stem)))


def _double_cons(word: str) -> bool:
    return len(word) >= 2 and word[-1] == word[-2] and _cons(word, len(word) - 1)


def _cvc(word: str) -> bool:
    if len(word) < 3 or word[-1] in "wxy":
        return False
    return _cons(word, len(word) - 3) and not _cons(word, len(word) - 2) and _cons(word, len(word) - 1)


def _step1(word: str) -> str:
    if word.endswith("sses") or word.endswith("ies"):
        word = word[:-2]
    elif word.endswith("s") and not word.endswith("ss"):
        word = word[:-1]
    if word.endswith("eed"):
        return word[:-1] if _measure(word[:-3]) > 0 else word
    for suffix in ("ed", "ing"):
        if word.endswith(suffix) and _has_vowel(word[: -len(suffix)]):
            word = word[: -len(suffix)]
            if word.endswith(("at", "bl", "iz")):
                return word + "e"
            if _double_cons(word) and word[-1] not in "lsz":
                return word[:-1]
            if _measure(word) == 1 and _cvc(word):
                return word + "e"
            return word
    return word


_STEP2 = (
    ("ational", "ate"),
    ("tional", "tion"),
    ("enci", "ence"),
    ("anci", "ance"),
    ("izer", "ize"),
    ("abli", "able"),
    ("alli", "al"),
    ("entli", "ent"),
    ("eli", "e"),
    ("ousli", "ous"),
    ("ization", "ize"),
    ("ation", "ate"),
    ("ator", "ate"),
    ("alism", "al"),
    ("iveness", "ive"),
    ("fulness", "ful"),
    ("ousness", "ous"),
    ("aliti", "al"),
    ("iviti", "ive"),
    ("biliti", "ble"),
)
_STEP3 = (
    ("icate", "ic"),
    ("ative", ""),
    ("alize", "al"),
    ("iciti", "ic"),
    ("ical", "ic"),
    ("ful", ""),
    ("ness", ""),
)
_STEP4 = (
    "al",
    "ance",
    "ence",
    "er",
    "ic",
    "able",
    "ible",
    "ant",
    "ement",
    "ment",
    "ent",
    "ion",
    "ou",
    "ism",
    "ate",
    "iti",
    "ous",
    "ive",
    "ize",
)


def _replace(word: str, rules: Iterable[tuple[str, str]], min_measure: int) -> str:
    for suffix, repl in rules:
        if word.endswith(suffix):
            stem = word[: -len(suffix)]
            return stem + repl if _measure(stem) > min_measure else word
    return word


def _step4(word: str) -> str:
    for suffix in sorted(_STEP4, key=len, reverse=True):
        if word.endswith(suffix):
            stem = word[: -len(suffix)]
            if _measure(stem) > 1 and (suffix != "ion" or stem.endswith(("s", "t"))):
                return stem
            return word
    return word


def porter_stem(word: str) -> str:
    """Stem one lowercase word with Porter's algorithm (`adoption` -> `adopt`, `hiking` -> `hike`)."""
    if len(word) <= 2 or not word.isalpha():
        return word
    word = _step1(word)
    if word.endswith("y") and _has_vowel(word[:-1]):
        word = word[:-1] + "i"
    word = _replace(word, _STEP2, 0)
    word = _replace(word, _STEP3, 0)
    word = _step4(word)
    if word.endswith("e"):
        stem = word[:-1]
        if _measure(stem) > 1 or (_measure(stem) == 1 and not _cvc(stem)):
            word = stem
    if word.endswith("ll") and _measure(word) > 1:
        word = word[:-1]
    return word


def tokenize(text: str, *, stem: bool = True, stopwords: frozenset[str] = STOPWORDS) -> list[str]:
    """Lowercase word tokens without contractions or stopwords, Porter-stemmed unless `stem` is false."""
    out: list[str] = []
    for raw in _WORD.findall(text.lower().replace("\u2019", "'")):
        word = _CONTRACTION.sub("", raw).replace("'", "")
        if not word or word in stopwords:
            continue
        out.append(porter_stem(word) if stem else word)
    return out


class CachedTokenizer:
    """`tokenize` with a memo of stems: the pure-Python stemmer costs ~19 µs a word, a dict hit ~0.1 µs, and
    a vocabulary repeats (Zipf), so rebuilding an index from the store is several times faster."""

    def __init__(self, max_entries: int = 200_000) -> None:
        self._stems: dict[str, str] = {}
        self._max = max_entries

    def __call__(self, text: str) -> list[str]:
        stems = self._stems
        out: list[str] = []
        for word in tokenize(text, stem=False):
            stem = stems.get(word)
            if stem is None:
                stem = porter_stem(word)
                if len(stems) < self._max:  # bounded: a flood of unique tokens must not grow it forever
                    stems[word] = stem
            out.append(stem)
        return out


class _Base:
    """Documents loaded in bulk (start-up), as term-major arrays: scoring slices them, nothing is rebuilt.

    Slot `i` of the index is base document `i`; a base document replaced or removed later is only marked
    dead here (its new text, if any, lives in the index's incremental postings under the same slot)."""

    def __init__(self, vocab: Sequence[str], docs: Sequence[Any]) -> None:
        import numpy as np

        count = len(docs)
        self.vocab = vocab
        lengths = np.fromiter((len(d) for d in docs), np.int64, count)
        self.token_offsets = np.concatenate(([0], np.cumsum(lengths)))
        self.tokens = np.concatenate(docs).astype(np.int64) if count else np.zeros(0, np.int64)
        doc_of = np.repeat(np.arange(count, dtype=np.int64), lengths)
        # one key per (term, document): unique() sorts term-major and counts the term frequency
        keys, tfs = np.unique(self.tokens * max(count, 1) + doc_of, return_counts=True)
        terms = keys // max(count, 1)
        self.docs = keys % max(count, 1)
        self.tfs = tfs.astype(np.float64)
        present, starts = np.unique(terms, return_index=True)
        self.row_of = {vocab[t]: row for row, t in enumerate(present.tolist())}
        self.offsets = np.concatenate((starts, [len(terms)]))
        self.alive = np.ones(count, dtype=bool)
        self.lengths = lengths

    def postings(self, term: str) -> tuple[Any, Any] | None:
        row = self.row_of.get(term)
        if row is None:
            return None
        start, end = int(self.offsets[row]), int(self.offsets[row + 1])
        docs, tfs = self.docs[start:end], self.tfs[start:end]
        alive = self.alive[docs]
        return (docs, tfs) if alive.all() else (docs[alive], tfs[alive])

    def terms_of(self, slot: int) -> dict[str, int]:
        ids = self.tokens[int(self.token_offsets[slot]) : int(self.token_offsets[slot + 1])]
        return dict(Counter(self.vocab[i] for i in ids.tolist()))


class BM25Index:
    """An incremental Okapi BM25 index over documents with string ids (insertion order = doc index).

    Documents loaded with `load()` sit in compact arrays; later writes go to dict postings; both are read
    together, so scores do not depend on which way a document arrived."""

    def __init__(self, *, k1: float = 1.2, b: float = 0.75, tokenizer: Tokenizer = tokenize) -> None:
        self.k1 = k1
        self.b = b
        self._tokenize = tokenizer
        self._ids: list[str | None] = []  # slot -> id; None once removed
        self._index_of: dict[str, int] = {}
        self._lengths: list[int] = []
        self._total_length = 0
        self._postings: dict[str, dict[int, int]] = {}
        self._doc_terms: dict[int, dict[str, int]] = {}  # incremental documents only (base: `_base`)
        self._base: _Base | None = None
        # numpy views of postings and lengths, built on first search and dropped when a write touches them:
        # scoring then runs in C instead of a Python loop over every posting of a frequent term.
        self._arrays: dict[str, tuple[Any, Any]] = {}
        self._length_array: Any = None

    def __len__(self) -> int:
        return len(self._index_of)

    @property
    def ids(self) -> list[str]:
        """Document ids in insertion order (a copy)."""
        return [doc for doc in self._ids if doc is not None]

    def __contains__(self, doc_id: object) -> bool:
        return doc_id in self._index_of

    def tokenize(self, text: str) -> list[str]:
        """The index's own tokenizer (callers that persist tokens use it, so reloads score the same)."""
        return self._tokenize(text)

    def load(self, vocab: Sequence[str], docs: Sequence[tuple[str, Any]]) -> None:
        """Index `(doc_id, token-id array)` pairs in bulk, token ids indexing `vocab`: start-up from a
        persisted index, vectorised (no per-token Python). Only an empty index can load."""
        if self._ids:
            raise ValueError("load() needs an empty index")
        base = _Base(vocab, [tokens for _, tokens in docs])
        self._base = base
        self._ids = [doc_id for doc_id, _ in docs]
        self._index_of = {doc_id: slot for slot, (doc_id, _) in enumerate(docs)}
        if len(self._index_of) != len(self._ids):
            raise ValueError("load() got a document id twice")
        self._lengths = base.lengths.tolist()
        self._total_length = int(base.lengths.sum())
        self._arrays.clear()
        self._length_array = None

    def add(self, doc_id: str, text: str) -> None:
        """Index one document; re-adding a known id raises, so stored counts never drift."""
        if doc_id in self._index_of:
            raise ValueError(f"document {doc_id!r} is already indexed")
        self.upsert_tokens(doc_id, self._tokenize(text))

    def upsert(self, doc_id: str, text: str) -> None:
        """Index a document, replacing its earlier text if the id is known (writes are idempotent)."""
        self.upsert_tokens(doc_id, self._tokenize(text))

    def upsert_tokens(self, doc_id: str, tokens: Sequence[str]) -> None:
        """`upsert` with the text already tokenised; a replaced document keeps its slot (tie order)."""
        index = self._index_of.get(doc_id)
        if index is None:
            index = len(self._ids)
            self._ids.append(doc_id)
            self._index_of[doc_id] = index
            self._lengths.append(0)
        else:
            self._forget(index)
        terms = Counter(tokens)
        length = sum(terms.values())
        self._total_length += length
        self._lengths[index] = length
        self._doc_terms[index] = dict(terms)
        self._length_array = None
        for term, tf in terms.items():
            self._postings.setdefault(term, {})[index] = tf
            self._arrays.pop(term, None)

    def remove(self, doc_id: str) -> bool:
        """Drop a document (a purge); returns whether it was indexed. Its slot stays empty."""
        index = self._index_of.pop(doc_id, None)
        if index is None:
            return False
        self._forget(index)
        self._ids[index] = None
        self._length_array = None
        return True

    def _forget(self, index: int) -> None:
        """Take a slot's current text out of the postings and the length total."""
        base = self._base
        if index in self._doc_terms:
            for term in self._doc_terms.pop(index):
                postings = self._postings[term]
                del postings[index]
                self._arrays.pop(term, None)
                if not postings:
                    del self._postings[term]
        elif base is not None and index < len(base.alive) and base.alive[index]:
            base.alive[index] = False
            for term in base.terms_of(index):
                self._arrays.pop(term, None)
        self._total_length -= self._lengths[index]
        self._lengths[index] = 0

    def add_many(self, docs: Iterable[tuple[str, str]]) -> None:
        """Index several `(doc_id, text)` pairs."""
        for doc_id, text in docs:
            self.add(doc_id, text)

    def idf(self, term: str) -> float:
        """Okapi IDF with the +1 inside the log (never negative): log(1 + (N - df + 0.5) / (df + 0.5))."""
        df = len(self._term_arrays(term)[0])
        return self._idf(df)

    def _idf(self, df: int) -> float:
        return math.log(1.0 + (len(self._index_of) - df + 0.5) / (df + 0.5))

    def _term_arrays(self, term: str) -> tuple[Any, Any]:
        import numpy as np

        arrays = self._arrays.get(term)
        if arrays is None:
            parts = []
            if self._base is not None and (found := self._base.postings(term)) is not None:
                parts.append(found)
            postings = self._postings.get(term)
            if postings:
                parts.append(
                    (
                        np.fromiter(postings.keys(), np.int64, len(postings)),
                        np.fromiter(postings.values(), np.float64, len(postings)),
                    )
                )
            if not parts:
                return np.zeros(0, np.int64), np.zeros(0)
            if len(parts) == 1:
                arrays = parts[0]
            else:
                arrays = (np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts]))
            self._arrays[term] = arrays
        return arrays

    def _accumulate(self, query: str | Sequence[str], subset: Iterable[str] | None) -> tuple[Any, Any]:
        """(document indices, scores) of the documents sharing a term with the query, vectorised per term."""
        import numpy as np

        if not self._index_of:
            return np.zeros(0, dtype=np.int64), np.zeros(0)
        if self._length_array is None:
            self._length_array = np.asarray(self._lengths, dtype=np.float64)
        avg = self._total_length / len(self._index_of) or 1.0
        totals = np.zeros(len(self._ids))
        touched = np.zeros(len(self._ids), dtype=bool)
        terms = Counter(self._tokenize(query) if isinstance(query, str) else query)
        for term, qtf in terms.items():
            index, tf = self._term_arrays(term)
            if not len(index):
                continue
            norms = self.k1 * (1.0 - self.b + self.b * self._length_array[index] / avg)
            totals[index] += self._idf(len(index)) * qtf * tf * (self.k1 + 1.0) / (tf + norms)
            touched[index] = True
        if subset is not None:
            allowed = np.zeros(len(self._ids), dtype=bool)
            allowed[[self._index_of[d] for d in subset if d in self._index_of]] = True
            touched &= allowed
        hits = np.flatnonzero(touched)
        return hits, totals[hits]

    def scores(self, query: str | Sequence[str], subset: Iterable[str] | None = None) -> list[float]:
        """BM25 score of every document (insertion order); with `subset`, other documents score 0.

        `query` is raw text or already-tokenised terms (a repeated term counts again, which lets query
        expansion weight terms by repetition).
        """
        hits, values = self._accumulate(query, subset)
        by_slot = dict(zip(hits.tolist(), values.tolist(), strict=True))
        return [by_slot.get(slot, 0.0) for slot, doc in enumerate(self._ids) if doc is not None]

    def score_map(self, query: str | Sequence[str], subset: Iterable[str] | None = None) -> dict[str, float]:
        """`{doc_id: score}` for the documents sharing a term with the query: cheap on a large index."""
        hits, values = self._accumulate(query, subset)
        return {self._ids[i]: s for i, s in zip(hits.tolist(), values.tolist(), strict=True)}

    def search(
        self, query: str | Sequence[str], k: int = 10, subset: Iterable[str] | None = None
    ) -> list[tuple[str, float]]:
        """The best `k` `(doc_id, score)` pairs with a positive score, best first (ties: insertion order)."""
        import numpy as np

        hits, values = self._accumulate(query, subset)
        positive = values > 0.0
        hits, values = hits[positive], values[positive]
        if k <= 0 or not len(hits):
            return []
        if len(hits) > k:
            keep = np.argpartition(-values, k - 1)[:k]
            hits, values = hits[keep], values[keep]
        # best first; ties in insertion order
        order = np.lexsort((hits, -values))
        return [
            (self._ids[i], float(values[j]))
            for j, i in zip(order.tolist(), hits[order].tolist(), strict=True)
        ]

    def terms_of(self, doc_id: str) -> Counter[str]:
        """The indexed terms of a document with their frequencies (for pseudo-relevance feedback)."""
        index = self._index_of[doc_id]
        if index in self._doc_terms:
            return Counter(self._doc_terms[index])
        assert self._base is not None  # a slot without incremental terms was loaded in bulk
        return Counter(self._base.terms_of(index))

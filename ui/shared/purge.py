"""`purge`: what the user asks to destroy, removed for good from every store, then checked on disk.

Soft deletion (hiding) stays the default everywhere else; this is the one way to destroy. A session takes
its turns, the facts learned from them (with their history, claims and the graph relations only they
supported), every memory record of the session (its turns, summaries, reflections, threads), its state and
its session-end records, the review proposals about any of them, and the synthesis candidates built on them
(with an accepted one's record). A fact takes itself alike; the turn
it was told in stays (purge the session for that). Each database is then rewritten without free pages,
the memory store scrubbed of its log and index residue, and every file of the data folder scanned for the
purged words: the report names any file that still holds them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from core.errors import UserInputError
from core.relations import USER_ID, normalize
from memory.collections import COLLECTION_NAMES, CONVERSATIONS
from memory.documents import REFERENCE_DOCS as DOCUMENTS
from memory.facts.service import FACTS_COLLECTION as FACTS
from memory.synthesis_sources import RESULTS as SYNTHESIS_RESULTS
from memory.turn_index import turn_record
from memory.visual.store import VISUAL as IMAGES

if TYPE_CHECKING:
    from knowledge.graph_store import GraphStore
    from knowledge.synthesis.book import SynthesisBook
    from memory.facts.claims import ClaimIndex
    from memory.facts.model import StoredFact
    from memory.facts.store import FactStore
    from memory.journal import Journal
    from memory.review import ReviewQueue
    from memory.service import MemoryService
    from memory.session_state_store import SessionStateDB
    from memory.shutdown.jobs import JobTable
    from memory.vector_store import Record


@dataclass
class PurgeStores:
    """The data dir's stores, opened by the caller who holds the data dir's lock."""

    journal: Journal
    facts: FactStore
    claims: ClaimIndex
    states: SessionStateDB
    session_jobs: JobTable
    review: ReviewQueue
    memory: MemoryService
    graph: GraphStore
    synthesis: SynthesisBook | None = None  # candidates quote memories: a purge takes those with it


@dataclass
class PurgeReport:
    """What a purge removed, the words it looked for afterwards, and the files that still held them."""

    what: str
    turns: int = 0
    facts: int = 0
    records: int = 0
    relations: int = 0
    record_ids: list[str] = field(default_factory=list)
    files: list[str] = field(default_factory=list)  # the data folder's own copies removed (uploads)
    words: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)  # what stays (other sessions, other facts): not looked for
    still_holding: list[str] = field(default_factory=list)  # filled by the check on disk


def purge_session(stores: PurgeStores, session_id: str) -> PurgeReport:
    """Remove one session and everything that came from it."""
    turns = stores.journal.turns(session_id)
    if not turns:
        raise UserInputError(f"no session {session_id!r} with turns; `history` lists the sessions")
    facts = stores.facts.of_turns([t.turn_id for t in turns])
    ids = {CONVERSATIONS: [turn_record(t).id for t in turns]}
    for name in COLLECTION_NAMES:
        found = stores.memory.store.get(name, where={"session_id": session_id})
        ids[name] = sorted({*ids.get(name, []), *(r.id for r in found)})
    told_in = {t.turn_id for t in turns}  # every relation the session's turns made, fact or not
    report = _purge_facts(stores, facts, f"session {session_id}", ids, told_in=told_in)
    stores.states.purge(session_id)
    stores.session_jobs.purge(session_id)
    report.turns = len(stores.journal.purge_session(session_id))
    report.words += [t.user for t in turns] + [t.assistant for t in turns if t.assistant]
    _purge_synthesis(stores, report)
    report.kept = _kept(stores)
    return report


def purge_fact(stores: PurgeStores, fact_id: str) -> PurgeReport:
    """Remove one fact with its history (the turn it was told in stays)."""
    fact = stores.facts.get(fact_id)
    if fact is None:
        raise UserInputError(f"no fact {fact_id!r}; `facts list --json` shows their ids")
    report = _purge_facts(stores, [fact], f"fact {fact_id}", {}, only_this=True)
    _purge_synthesis(stores, report)
    report.kept = _kept(stores)
    return report


def purge_document(stores: PurgeStores, document_id: str, data_dir: Path) -> PurgeReport:
    """Remove a document for good: every version's passages, the claims and proposals about them, and its
    uploaded copy when it lives in the data folder (a file elsewhere is the user's own and stays)."""
    found = stores.memory.store.get(DOCUMENTS, where={"document_id": document_id})
    if not found:
        raise UserInputError(f"no document {document_id!r}; `docs list` shows their ids")
    return _purge_records(stores, DOCUMENTS, found, f"document {document_id}", "file_path", data_dir)


def purge_image(stores: PurgeStores, image_id: str, data_dir: Path) -> PurgeReport:
    """Remove an image for good: its record (caption, tags, your words) and its file when the data folder
    holds it (a photo of yours elsewhere stays). Its vector in the image index is dropped when the index
    is next opened (it is repaired from the records)."""
    found = [r for r in stores.memory.store.get(IMAGES) if image_id in (r.id, r.metadata.get("image_hash"))]
    if not found:
        raise UserInputError(f"no image {image_id!r}; `image list` shows their ids")
    return _purge_records(stores, IMAGES, found, f"image {image_id}", "image_path", data_dir)


def _purge_records(
    stores: PurgeStores, collection: str, found: Sequence[Record], what: str, path_key: str, data_dir: Path
) -> PurgeReport:
    """Remove records of one collection, the claims and proposals about them, and the files they name that
    the data folder holds (in metadata `path_key`)."""
    report = PurgeReport(what, records=len(found), record_ids=[r.id for r in found])
    stores.memory.delete(collection, report.record_ids)
    stores.claims.purge([], report.record_ids)
    stores.review.purge_records(report.record_ids)
    for path in {str(r.metadata.get(path_key, "")) for r in found}:
        copy = Path(path)
        if path and copy.is_file() and copy.resolve().is_relative_to(data_dir.resolve()):
            copy.unlink()
            report.files.append(copy.name)
    report.words = [r.text for r in found]
    _purge_synthesis(stores, report)
    report.kept = _kept(stores)
    return report


def _purge_synthesis(stores: PurgeStores, report: PurgeReport) -> None:
    """Synthesis candidates built on what was purged (by record id, or quoting its words), and the
    accepted ones' records in `synthesis_results`."""
    if stores.synthesis is None:
        return
    removed = stores.synthesis.purge(set(report.record_ids), report.words)
    if removed:
        stores.memory.delete(SYNTHESIS_RESULTS, removed)
        report.records += len(removed)
        report.record_ids += removed


def _kept(stores: PurgeStores) -> list[str]:
    """Everything said and known that stays: words of it found on disk are no sign of a failed purge."""
    said = [f"{t.user}\n{t.assistant}" for t in stores.journal.turns()]
    return said + [f"{f.excerpt}\n{f.object}\n{f.subject}" for f in stores.facts.facts()]


def _purge_facts(
    stores: PurgeStores,
    facts: Sequence[StoredFact],
    what: str,
    ids: dict[str, list[str]],
    *,
    only_this: bool = False,
    told_in: set[str] | None = None,
) -> PurgeReport:
    """Remove facts, their records, claims, proposals and graph relations. The graph's relations name the
    turn they were told in (`told_in`: these turns; default the facts' own); `only_this`: of those, only
    the ones saying this fact (its relation and value), since the same turn may have told others that stay."""
    fact_ids = [f.id for f in facts]
    ids[FACTS] = sorted({*ids.get(FACTS, []), *fact_ids})
    report = PurgeReport(what)
    for collection, record_ids in ids.items():
        if record_ids:
            stores.memory.delete(collection, record_ids)
            report.records += len(record_ids)
            report.record_ids += record_ids
    stores.claims.purge(fact_ids, report.record_ids)
    stores.review.purge_records(report.record_ids)
    report.facts = stores.facts.purge(fact_ids)
    graph = stores.graph.load()
    said = {(f.relation, normalize(f.object)) for f in facts} if only_this else None
    told = told_in if told_in is not None else {f.turn_id for f in facts}
    report.relations = graph.purge_facts(told, keep=[USER_ID], saying=said)
    for _ in range(2):  # twice: the backup beside the file must not keep the purged version either
        stores.graph.save(graph)
    report.words += [f.excerpt for f in facts] + [f.object for f in facts]
    if only_this:
        report.words = [f.object for f in facts]  # the turn it was told in stays, with its words
    return report


def check_on_disk(report: PurgeReport, data_dir: Path) -> PurgeReport:
    """Scan every file of the data folder for the purged words (after the stores are closed and scrubbed)."""
    from memory.chroma_scrub import files_holding

    report.still_holding = files_holding(data_dir, report.words, report.kept)
    return report


def purge_everything(data_dir: Path, keep: Sequence[str]) -> list[str]:
    """Delete every file and folder of the data dir except those named in `keep` (the lock it holds); the
    names removed."""
    import shutil

    removed = []
    for path in sorted(data_dir.iterdir()):
        if path.name in keep:
            continue
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        else:
            path.unlink()
        removed.append(path.name)
    return removed

"""`sync obsidian`: the user's vault into `obsidian_notes`, its wikilinks and tags into the knowledge graph.

Incremental by mtime: a note whose mtime and size equal the ledger's is not opened; one whose text hashes
the same is not re-embedded. A changed note's sections replace its records (ids from the note's path and
the section's position, so a re-sync overwrites rather than adds); records it no longer fills, and every
record of a note that is gone, are tombstoned (`deleted_at` set: kept in the store, never searched). A
renamed note is a deleted one plus a new one. Dot-folders (`.obsidian/`, `.trash/`), non-Markdown files
(attachments), the configured exclusions, notes over the size limit and text that is not UTF-8 are not
read; the last two are named in the report.

Graph: each note is an entity `note:<path without .md>` (type `thing`, named by its title); `[[Other]]`
gives `note -links_to-> note:other` (the note of that name in the vault, else a placeholder named so), a
`#tag` gives `note -tagged-> tag:<tag>` (type `concept`). A note's edges follow its text: a link it drops
is ended (kept as history), a deleted note's edges all end.

A sync is a job (knowledge/source_sync.py): one item per note that is new, changed or gone. A note's
records, then its graph edges (saved), then its ledger row with the item's done mark: a cancel between
notes leaves each note whole, and a crash mid-note only makes the resumed job redo that note, under the
same ids and to the same edges.
"""

from __future__ import annotations

import fnmatch
import hashlib
import os
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

from core.errors import UserInputError
from knowledge.jobs import ItemOutcome, JobItem
from knowledge.obsidian_markdown import SECTION_SEPARATOR, ParsedNote, parse_note
from knowledge.source_sync import (
    GraphEditor,
    ProgressFn,
    RecordSink,
    SourceRecord,
    SyncPlan,
    SyncReport,
    record_id,
    run_sync,
)
from knowledge.sync_ledger import NoteEntry, SyncLedger

if TYPE_CHECKING:
    from knowledge.graph import KnowledgeGraph

OBSIDIAN_NOTES = "obsidian_notes"
LINKS_TO = "links_to"
TAGGED = "tagged"
SYNC_OBSIDIAN = "sync-obsidian"  # the job kind
_SUFFIX = ".md"


@dataclass(frozen=True)
class NoteFile:
    """A note found in the vault: its vault-relative POSIX path, where it is, its mtime and size."""

    rel: str
    path: Path
    mtime: float
    size: int


@dataclass(frozen=True)
class _GraphUpdate:
    """A note's edges as its current text says (none when the note is gone)."""

    node: str
    title: str
    rel: str
    links: tuple[tuple[str, str], ...] = ()  # (node id, name) of each linked note
    tags: tuple[str, ...] = ()
    deleted: bool = False


def scan_vault(vault: Path, exclude: Sequence[str] = ()) -> tuple[list[NoteFile], int]:
    """The vault's notes (sorted by path) and how many other files (attachments) were passed over.

    Dot-folders and dot-files are never entered, links are not followed (a symlinked note pointing out of
    the vault is left out), and a path matching one of the `exclude` globs is left out."""
    root = vault.resolve()
    notes: list[NoteFile] = []
    attachments = 0
    for folder, dirs, files in os.walk(root, followlinks=False):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(files):
            path = Path(folder) / name
            rel = path.relative_to(root).as_posix()
            if name.startswith(".") or _excluded(rel, exclude):
                continue
            if not name.lower().endswith(_SUFFIX):
                attachments += 1
                continue
            found = _note_file(root, path, rel)
            if found is not None:
                notes.append(found)
    return notes, attachments


def _excluded(rel: str, patterns: Sequence[str]) -> bool:
    return any(fnmatch.fnmatch(rel, p) or fnmatch.fnmatch(rel, p.rstrip("/") + "/*") for p in patterns)


def _note_file(root: Path, path: Path, rel: str) -> NoteFile | None:
    try:
        if path.is_symlink() and not path.resolve().is_relative_to(root):
            return None
        stat = path.stat()
    except OSError:
        return None
    return NoteFile(rel, path, stat.st_mtime, stat.st_size) if path.is_file() else None


class ObsidianSync:
    """One vault's sync as a job (`knowledge.source_sync.SyncSource`): one item per note to read or
    tombstone; `run()` runs it in this thread and may be called again (it resumes, then goes on)."""

    name = "obsidian"
    kind = SYNC_OBSIDIAN

    def __init__(
        self,
        vault: Path,
        sink: RecordSink,
        ledger: SyncLedger,
        graph: GraphEditor | None = None,
        *,
        exclude: Sequence[str] = (),
        max_note_bytes: int = 2 * 2**20,
        chunk_chars: int = 900,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.vault = vault.expanduser()
        self._sink = sink
        self._ledger = ledger
        self._graph = graph
        self._exclude = tuple(exclude)
        self._max_bytes = max_note_bytes
        self._chunk_chars = chunk_chars
        self._clock = clock

    def run(self, progress: ProgressFn | None = None, cancel: threading.Event | None = None) -> SyncReport:
        """Bring the store, the graph and the ledger in step with the vault; the report says what changed."""
        return run_sync(self, self._ledger.jobs, progress=progress, cancel=cancel)

    def identity(self) -> dict[str, Any]:
        """The vault: a job recorded for another vault is not resumed."""
        return {"vault": str(self.vault.resolve())}

    def _check(self) -> None:
        if not self.vault.is_dir():
            raise UserInputError(f"the Obsidian vault {self.vault} is not a folder (obsidian.vault)")

    def plan(self) -> SyncPlan:
        """The notes new or changed since the ledger's mtime and size, then the notes gone from the vault."""
        self._check()
        files, attachments = scan_vault(self.vault, self._exclude)
        known = self._ledger.notes()
        present = {f.rel for f in files}
        todo = [
            JobItem(f.rel, f.size)
            for f in files
            if (entry := known.get(f.rel)) is None
            or entry.deleted_at is not None
            or (entry.mtime, entry.size) != (f.mtime, f.size)
        ]
        gone = [
            JobItem(rel) for rel, e in sorted(known.items()) if e.deleted_at is None and rel not in present
        ]
        meta = {"notes": len(files), "attachments": attachments, "unchanged": len(files) - len(todo)}
        return SyncPlan(todo + gone, meta)

    def processor(
        self, job_id: str, meta: Mapping[str, Any], rows: Sequence[Mapping[str, Any]]
    ) -> Callable[[JobItem], ItemOutcome]:
        """Each note of the job as the vault has it now (a note gone since the plan is tombstoned)."""
        self._check()
        files, _ = scan_vault(self.vault, self._exclude)
        by_rel = {f.rel: f for f in files}
        names = _name_index(by_rel)

        def process(item: JobItem) -> ItemOutcome:
            entry = self._ledger.note(item.key)
            note = by_rel.get(item.key)
            if note is not None:
                note = _note_file(self.vault.resolve(), note.path, note.rel)  # its mtime now
            if note is None:
                return self._tombstone_note(item.key, entry)
            return self._sync_note(note, entry, names)

        return process

    def describe(
        self, report: SyncReport, meta: Mapping[str, Any], done: Sequence[Mapping[str, Any]]
    ) -> None:
        """The vault, its notes and attachments, once per report."""
        if not report.details:
            report.details.append(
                {
                    "vault": str(self.vault),
                    "notes": meta.get("notes", 0),
                    "attachments": meta.get("attachments", 0),
                }
            )

    # --- one note -----------------------------------------------------------------------------------------
    def _sync_note(self, note: NoteFile, entry: NoteEntry | None, names: Mapping[str, str]) -> ItemOutcome:
        """Write a note's sections and edges; its ledger row goes with the item's done mark."""
        live = entry is not None and entry.deleted_at is None
        base = {"path": note.rel}
        if live and entry is not None and (entry.mtime, entry.size) == (note.mtime, note.size):
            return ItemOutcome(entry.content_hash, {**base, "action": "unchanged"})
        text, reason = self._read(note)
        if text is None:
            return ItemOutcome("", {**base, "action": "skipped", "reason": reason})
        digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
        if live and entry is not None and entry.content_hash == digest:  # touched, not changed
            row = replace(entry, mtime=note.mtime, size=note.size)
            return ItemOutcome(digest, {**base, "action": "unchanged"}, tuple(SyncLedger.note_rows([row])))
        parsed = parse_note(text, self._chunk_chars)
        title = PurePosixPath(note.rel).stem
        records = self._records(note, title, digest, parsed)
        ids = tuple(r.id for r in records)
        self._sink.upsert(OBSIDIAN_NOTES, records)
        self._tombstone_records(set(entry.record_ids if entry else ()) - set(ids))
        links = tuple((_link_node(t, names), t.rsplit("/", 1)[-1]) for t in parsed.links)
        added, ended = self._edit_graph(_GraphUpdate(_node_id(note.rel), title, note.rel, links, parsed.tags))
        row = NoteEntry(note.rel, note.mtime, note.size, digest, ids, title, None)
        detail = {
            **base,
            "action": "updated" if live else "added",
            "records": len(records),
            "edges_added": added,
            "edges_ended": ended,
        }
        return ItemOutcome(digest, detail, tuple(SyncLedger.note_rows([row])))

    def _read(self, note: NoteFile) -> tuple[str | None, str]:
        """The note's text, or None and why it is left out."""
        if note.size > self._max_bytes:
            return None, f"larger than {self._max_bytes // 1024} KB (obsidian.max_note_kb)"
        try:
            raw = note.path.read_bytes()
        except OSError as error:
            return None, f"cannot be read: {error.strerror or error}"
        try:
            return raw.decode("utf-8-sig").replace("\r\n", "\n"), ""
        except UnicodeDecodeError as error:
            where = f"byte 0x{raw[error.start]:02x} at offset {error.start}"
            return None, f"not UTF-8 text ({where}); save it as UTF-8 to have it read"

    def _records(self, note: NoteFile, title: str, digest: str, parsed: ParsedNote) -> list[SourceRecord]:
        now = self._clock()
        path_key = hashlib.sha256(note.rel.encode("utf-8")).hexdigest()
        total = len(parsed.sections)
        out = []
        for index, section in enumerate(parsed.sections):
            head = f"{title}{SECTION_SEPARATOR}{section.heading}" if section.heading else title
            meta = {
                "created_at": note.mtime,
                "updated_at": now,
                "source": "obsidian",
                "external_id": note.rel,
                "file_path": note.rel,
                "title": title,
                "section": section.heading,
                "chunk_index": index,
                "total_chunks": total,
                "content_hash": digest,
                "file_mtime": note.mtime,
                "note_tags": list(parsed.tags),
                "related_notes": list(parsed.links),
            }
            out.append(
                SourceRecord(
                    record_id("note", OBSIDIAN_NOTES, path_key, index), f"{head}\n{section.text}", meta
                )
            )
        return out

    # --- deletions ----------------------------------------------------------------------------------------
    def _tombstone_records(self, ids: Iterable[str]) -> None:
        at = self._clock()
        updates = {rid: {"deleted_at": at} for rid in sorted(ids)}
        if updates:
            self._sink.mark(OBSIDIAN_NOTES, updates)

    def _tombstone_note(self, rel: str, entry: NoteEntry | None) -> ItemOutcome:
        """A note gone from the vault: its records and edges are kept, marked deleted."""
        if entry is None or entry.deleted_at is not None:
            return ItemOutcome("", {"path": rel, "action": "unchanged"})
        at = self._clock()
        self._tombstone_records(entry.record_ids)
        _, ended = self._edit_graph(_GraphUpdate(_node_id(rel), entry.title, rel, deleted=True))
        rows = SyncLedger.note_rows([replace(entry, deleted_at=at)])
        return ItemOutcome(
            entry.content_hash, {"path": rel, "action": "deleted", "edges_ended": ended}, tuple(rows)
        )

    # --- graph --------------------------------------------------------------------------------------------
    def _edit_graph(self, update: _GraphUpdate) -> tuple[int, int]:
        """Make the note's edges what its text says (saved now, before the note is marked done)."""
        if self._graph is None:
            return 0, 0
        at = self._clock()
        return self._graph.edit(lambda graph: _apply(graph, update, at))


def _node_id(rel: str) -> str:
    stem = rel[: -len(_SUFFIX)] if rel.lower().endswith(_SUFFIX) else rel
    return f"note:{stem.casefold()}"


def _name_index(rels: Iterable[str]) -> dict[str, str]:
    """Link text (casefolded) -> note path: by bare name (the shortest path wins, as in Obsidian) and by
    path without `.md`."""
    index: dict[str, str] = {}
    for rel in sorted(rels, key=lambda r: (r.count("/"), r)):
        stem = rel[: -len(_SUFFIX)]
        index.setdefault(PurePosixPath(stem).name.casefold(), rel)
        index.setdefault(stem.casefold(), rel)
    return index


def _link_node(target: str, names: Mapping[str, str]) -> str:
    found = names.get(target.casefold())
    return _node_id(found) if found is not None else f"note:{target.casefold()}"


def _apply(graph: KnowledgeGraph, update: _GraphUpdate, at: float) -> tuple[int, int]:
    """Make the note's current links_to/tagged edges what its text says; returns (added, ended)."""
    node = _ensure(graph, update.node, update.title, "thing")
    desired: set[tuple[str, str]] = set()
    for target, name in update.links:
        if target != node:
            desired.add((LINKS_TO, _ensure(graph, target, name, "thing")))
    for tag in update.tags:
        desired.add((TAGGED, _ensure(graph, f"tag:{tag}", f"#{tag}", "concept")))
    current = [e for e in graph.edges(node) if e.relation in (LINKS_TO, TAGGED)]
    stale = [e for e in current if (e.relation, e.target) not in desired]
    for edge in stale:
        graph.end_relation(edge, at=at)
    missing = sorted(desired - {(e.relation, e.target) for e in current})
    for relation, target in missing:  # no fact id: an ended edge must never be matched and revived as is
        graph.add_relation(node, relation, target, truth=1.0, at=at)
    entity = graph.entity(node)
    attributes = dict(entity.attributes) if entity is not None else {}
    wanted = {"path": update.rel, "deleted_at": at if update.deleted else None}
    for key, value in wanted.items():
        if attributes.get(key) != value and not (value is None and key not in attributes):
            graph.set_attribute(node, key, value, at=at)
    return len(missing), len(stale)


def _ensure(graph: KnowledgeGraph, node: str, name: str, kind: str) -> str:
    if node not in graph:
        graph.add_entity(name, kind, entity_id=node)
    return node

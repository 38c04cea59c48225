"""Reading an archive for `import`: untrusted input, checked whole before anything is written.

Every refusal is one `ArchiveError` naming the problem: not a zip or damaged, not a Daemon export, written
by a newer Daemon, an entry missing (truncated) or unexpected, an entry whose path would leave the target
(zip-slip) or is a link, an entry larger than declared or compressed beyond reason (a decompression bomb),
a checksum that does not match, a database that is not intact, records that do not parse.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import shutil
import stat
import zipfile
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

import numpy as np

from core.zip_limits import expands_beyond_reason
from memory.archive.databases import check_database
from memory.archive.layout import (
    COLLECTIONS,
    DATABASES,
    FILES,
    FORMAT,
    FORMAT_VERSION,
    MANIFEST,
    README,
    RECORDS_SUFFIX,
    TOP_LEVEL,
    VECTORS_SUFFIX,
    ArchiveError,
)
from memory.vector_store import Record

MANIFEST_LIMIT = 16 << 20  # a manifest lists entries; 16 MB is hundreds of thousands of them
CHUNK = 1 << 20


@dataclass
class Collection:
    """One collection's records as exported, with their vectors (rows in the same order)."""

    records: list[Record]
    vectors: np.ndarray


@dataclass
class UnpackedArchive:
    """A checked archive unpacked into `root`: its manifest, databases, collections and files."""

    root: Path
    manifest: dict[str, Any]
    databases: dict[str, Path] = field(default_factory=dict)
    collections: dict[str, Collection] = field(default_factory=dict)
    files: dict[str, Path] = field(default_factory=dict)  # path in the data dir -> unpacked copy

    @property
    def embedding_model(self) -> tuple[str, int]:
        embedding = self.manifest.get("embedding") or {}
        return str(embedding.get("model", "")), int(embedding.get("dim", 0))


def unpack(path: Path, root: Path, *, app_version: str) -> UnpackedArchive:
    """Check the archive at `path` and unpack it into `root` (an empty or new folder)."""
    if not path.is_file():
        raise ArchiveError(f"no archive at {path}")
    root.mkdir(parents=True, exist_ok=True)
    try:
        with zipfile.ZipFile(path) as zf:
            manifest = _manifest(zf, path, app_version)
            members = _members(zf, manifest, path)
            _check_space(members, root)
            unpacked = UnpackedArchive(root, manifest)
            for info in members:
                _extract(zf, info, manifest["entries"][info.filename], root)
    except zipfile.BadZipFile as error:
        raise ArchiveError(f"{path} is not a zip archive, or it is damaged ({error})") from None
    except (OSError, EOFError) as error:  # a truncated member, an unreadable file
        raise ArchiveError(f"cannot read {path}: {error}") from None
    _sort(unpacked, members)
    return unpacked


def _manifest(zf: zipfile.ZipFile, path: Path, app_version: str) -> dict[str, Any]:
    try:
        info = zf.getinfo(MANIFEST)
    except KeyError:
        raise ArchiveError(f"{path} is not a Daemon export (it has no {MANIFEST})") from None
    if info.file_size > MANIFEST_LIMIT:
        raise ArchiveError(f"{path}: its {MANIFEST} is too large to be a Daemon export's")
    try:
        manifest = json.loads(zf.read(info).decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ArchiveError(f"{path}: its {MANIFEST} is damaged ({error})") from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise ArchiveError(f"{path} is not a Daemon export (its manifest names another format)")
    version = manifest.get("format_version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise ArchiveError(f"{path}: its manifest has no valid format_version")
    if version > FORMAT_VERSION or _newer(str(manifest.get("app_version", "")), app_version):
        raise ArchiveError(
            f"{path} was written by a newer Daemon ({manifest.get('app_version')}, archive format {version});"
            f" this is {app_version} (format {FORMAT_VERSION}): upgrade Daemon to import it"
        )
    entries = manifest.get("entries")
    if not isinstance(entries, dict) or not all(_entry_ok(e) for e in entries.values()):
        raise ArchiveError(f"{path}: its manifest's entry list is damaged")
    return manifest


def _newer(theirs: str, ours: str) -> bool:
    def parts(version: str) -> tuple[int, ...]:
        return tuple(int(p) if p.isdigit() else 0 for p in version.split("."))

    return bool(theirs) and parts(theirs) > parts(ours)


def _entry_ok(entry: Any) -> bool:
    return (
        isinstance(entry, dict)
        and isinstance(entry.get("sha256"), str)
        and isinstance(entry.get("bytes"), int)
        and entry["bytes"] >= 0
    )


def _members(zf: zipfile.ZipFile, manifest: dict[str, Any], path: Path) -> list[zipfile.ZipInfo]:
    """The entries besides the manifest: each safe, listed in the manifest and as large as it says."""
    entries: dict[str, Any] = manifest["entries"]
    members = [info for info in zf.infolist() if info.filename != MANIFEST]
    names = [info.filename for info in members]
    if len(names) != len(set(names)):
        raise ArchiveError(f"{path} holds the same entry twice")
    for info in members:
        _check_name(info, path)
        if info.filename not in entries:
            raise ArchiveError(f"{path}: the entry {info.filename!r} is not in its manifest")
        if info.file_size != entries[info.filename]["bytes"]:
            raise ArchiveError(f"{path}: the entry {info.filename!r} is not the size its manifest says")
        if expands_beyond_reason(info):
            raise ArchiveError(
                f"{path}: the entry {info.filename!r} expands beyond reason (a decompression bomb?)"
            )
    if missing := sorted(set(entries) - set(names)):
        raise ArchiveError(
            f"{path} is incomplete (truncated?): {len(missing)} entries missing, first {missing[0]!r}"
        )
    return members


def _check_name(info: zipfile.ZipInfo, path: Path) -> None:
    name = info.filename
    parts = PurePosixPath(name).parts
    unsafe = (
        not parts
        or name.startswith("/")
        or "\\" in name
        or ":" in parts[0]
        or any(part in ("..", ".", "") for part in parts)
        or (name != README and (parts[0] not in TOP_LEVEL or len(parts) < 2))
        or info.is_dir()
    )
    if unsafe:
        raise ArchiveError(
            f"{path}: the entry {name!r} has a path Daemon does not write (it could leave the target)"
        )
    if stat.S_ISLNK(info.external_attr >> 16):
        raise ArchiveError(f"{path}: the entry {name!r} is a link; an export holds only files")


def _check_space(members: list[zipfile.ZipInfo], root: Path) -> None:
    needed = sum(info.file_size for info in members)
    free = shutil.disk_usage(root).free
    if needed > free:
        raise ArchiveError(
            f"the archive unpacks to {needed >> 20} MB; only {free >> 20} MB are free in {root}"
        )


def _extract(zf: zipfile.ZipFile, info: zipfile.ZipInfo, entry: dict[str, Any], root: Path) -> None:
    target = root.joinpath(*PurePosixPath(info.filename).parts)
    target.parent.mkdir(parents=True, exist_ok=True)
    digest, size = hashlib.sha256(), 0
    with zf.open(info) as source, target.open("wb") as out:
        while chunk := source.read(CHUNK):
            size += len(chunk)
            if size > info.file_size:
                raise ArchiveError(f"the entry {info.filename!r} is larger than it says")
            digest.update(chunk)
            out.write(chunk)
    if size != entry["bytes"] or digest.hexdigest() != entry["sha256"]:
        raise ArchiveError(f"the entry {info.filename!r} is damaged (its checksum does not match)")


def _sort(unpacked: UnpackedArchive, members: list[zipfile.ZipInfo]) -> None:
    """File each unpacked entry under what it is, checking databases and collections as it goes."""
    root, dim = unpacked.root, unpacked.embedding_model[1]
    for info in members:
        top, *rest = PurePosixPath(info.filename).parts
        local = root.joinpath(top, *rest)
        if top == DATABASES and len(rest) == 1:
            try:
                check_database(local)
            except ValueError as error:
                raise ArchiveError(f"the entry {info.filename!r} is {error}") from None
            unpacked.databases[rest[0]] = local
        elif top == FILES:
            unpacked.files["/".join(rest)] = local
        elif top == COLLECTIONS and len(rest) == 1 and rest[0].endswith(RECORDS_SUFFIX):
            name = rest[0].removesuffix(RECORDS_SUFFIX)
            unpacked.collections[name] = _collection(
                local, root / COLLECTIONS / f"{name}{VECTORS_SUFFIX}", dim
            )


def _collection(records_file: Path, vectors_file: Path, dim: int) -> Collection:
    name = records_file.name
    records: list[Record] = []
    with records_file.open(encoding="utf-8") as lines:
        for number, line in enumerate(lines, 1):
            try:
                row = json.loads(line)
            except json.JSONDecodeError as error:
                raise ArchiveError(f"{name}, line {number}: not JSON ({error})") from None
            if not _record_ok(row):
                raise ArchiveError(f"{name}, line {number}: not a memory record (id, text, metadata)")
            records.append(Record(row["id"], row["text"], row["metadata"]))
    if not vectors_file.is_file():
        raise ArchiveError(f"{name} has no vectors beside it")
    try:
        with contextlib.closing(vectors_file.open("rb")) as raw:
            vectors = np.load(raw, allow_pickle=False)
    except (ValueError, OSError, EOFError) as error:
        raise ArchiveError(f"{vectors_file.name} is not a vector file ({error})") from None
    if vectors.dtype != np.float32 or vectors.shape != (len(records), dim):
        raise ArchiveError(f"{vectors_file.name} does not hold {len(records)} vectors of {dim} numbers")
    return Collection(records, vectors)


def _record_ok(row: Any) -> bool:
    scalars = (str, int, float, bool)
    return (
        isinstance(row, dict)
        and isinstance(row.get("id"), str)
        and bool(row["id"])
        and isinstance(row.get("text"), str)
        and isinstance(row.get("metadata"), dict)
        and all(isinstance(k, str) and isinstance(v, scalars) for k, v in row["metadata"].items())
    )

"""Which files a command names: files as given, folders walked (hidden entries and `skip_dirs` left out,
only supported types taken), each once by its resolved path, with its size for the job's progress."""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from knowledge.documents.extract import HTML_EXTENSIONS, TEXT_TYPES
from knowledge.documents.names import stem_and_extension


@dataclass(frozen=True)
class SourceFile:
    """A file to ingest: its resolved path, its size, and whether the user named it (not found in a walk)."""

    path: Path
    size: int
    named: bool


@dataclass(frozen=True)
class Sources:
    """The files found, the named paths that do not exist, and how many files a walk passed over."""

    files: tuple[SourceFile, ...]
    missing: tuple[str, ...]
    passed_over: int


def supported_extensions(code_extensions: Iterable[str]) -> frozenset[str]:
    """Every extension the ingester reads."""
    return frozenset({*TEXT_TYPES, *HTML_EXTENSIONS, "pdf", "docx", *code_extensions})


def collect(paths: Sequence[Path], code_extensions: Iterable[str], skip_dirs: Iterable[str]) -> Sources:
    """The files `paths` name, in order: a named file is always taken (a wrong type is its error later);
    a folder gives its supported files, sorted, never following symbolic links to folders."""
    known = supported_extensions(code_extensions)
    skipped = frozenset(skip_dirs)
    seen: set[Path] = set()
    files: list[SourceFile] = []
    missing: list[str] = []
    passed = 0
    for given in paths:
        if given.is_dir():
            found, over = _walk(given, known, skipped)
            passed += over
            candidates = [(p, False) for p in found]
        elif given.exists():
            candidates = [(given, True)]
        else:
            missing.append(str(given))
            continue
        for path, named in candidates:
            resolved = path.resolve()
            if resolved in seen:
                continue
            seen.add(resolved)
            try:
                files.append(SourceFile(resolved, resolved.stat().st_size, named))
            except OSError:
                missing.append(str(path))
    return Sources(tuple(files), tuple(missing), passed)


def _walk(folder: Path, known: frozenset[str], skipped: frozenset[str]) -> tuple[list[Path], int]:
    found: list[Path] = []
    passed = 0
    for root, dirs, names in os.walk(folder, followlinks=False):
        dirs[:] = sorted(d for d in dirs if d not in skipped and not d.startswith("."))
        for name in sorted(names):
            if name.startswith(".") or name.endswith("~") or name.startswith("~$"):
                continue
            if stem_and_extension(name)[1] in known:
                found.append(Path(root, name))
            else:
                passed += 1
    return found, passed

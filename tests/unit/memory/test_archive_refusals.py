"""An archive is untrusted input: each bad one gets one clear error, and nothing is written outside the
unpacking folder (the data dir is touched only after the whole archive passed)."""

from __future__ import annotations

import json
import sqlite3
import stat
import zipfile
from pathlib import Path

import numpy as np
import pytest

from memory.archive.layout import ArchiveError
from memory.archive.reader import unpack
from memory.archive.restore import check_fits
from tests.unit.memory.archive_helpers import LAYOUT, VERSION, exported, rewritten


def refused(archive: Path, root: Path) -> str:
    with pytest.raises(ArchiveError) as error:
        unpack(archive, root / "unpacked", app_version=VERSION)
    return str(error.value)


def test_a_file_that_is_not_a_zip_is_refused(tmp_path: Path) -> None:
    junk = tmp_path / "notes.zip"
    junk.write_text("just some text")
    assert "is not a zip archive, or it is damaged" in refused(junk, tmp_path)


def test_a_truncated_archive_is_refused(tmp_path: Path) -> None:
    archive = exported(tmp_path)
    cut = tmp_path / "cut.zip"
    cut.write_bytes(archive.read_bytes()[: archive.stat().st_size // 2])
    assert "not a zip archive, or it is damaged" in refused(cut, tmp_path)


def test_an_archive_missing_an_entry_is_refused_as_incomplete(tmp_path: Path) -> None:
    archive = rewritten(exported(tmp_path), tmp_path / "short.zip", drop=["collections/facts.jsonl"])
    assert "incomplete (truncated?)" in refused(archive, tmp_path) and "facts.jsonl" in refused(
        archive, tmp_path
    )


def test_a_foreign_zip_is_refused(tmp_path: Path) -> None:
    foreign = tmp_path / "photos.zip"
    with zipfile.ZipFile(foreign, "w") as zf:
        zf.writestr("IMG_0001.jpg", b"jpeg")
    assert "is not a Daemon export (it has no manifest.json)" in refused(foreign, tmp_path)
    other = rewritten(exported(tmp_path), tmp_path / "other.zip", manifest={"format": "someone-elses"})
    assert "is not a Daemon export" in refused(other, tmp_path)


@pytest.mark.parametrize("change", [{"format_version": 2}, {"app_version": "9.0.0"}])
def test_an_archive_from_a_newer_daemon_is_refused(tmp_path: Path, change: dict[str, object]) -> None:
    newer = rewritten(exported(tmp_path), tmp_path / "newer.zip", manifest=change)
    assert "written by a newer Daemon" in refused(newer, tmp_path) and "upgrade Daemon" in refused(
        newer, tmp_path
    )


@pytest.mark.parametrize(
    "name",
    [
        "../outside.txt",
        "files/../../outside.txt",
        "/tmp/outside.txt",
        "files\\..\\outside.txt",
        "elsewhere/x",
    ],
)
def test_an_entry_whose_path_leaves_the_target_is_refused(tmp_path: Path, name: str) -> None:
    evil = rewritten(exported(tmp_path), tmp_path / "evil.zip", add={name: b"owned"})
    assert "has a path Daemon does not write" in refused(evil, tmp_path)
    assert not (tmp_path / "outside.txt").exists() and not Path("/tmp/outside.txt").exists()


def test_a_link_entry_is_refused(tmp_path: Path) -> None:
    archive = exported(tmp_path)
    linked = tmp_path / "link.zip"
    with zipfile.ZipFile(archive) as source, zipfile.ZipFile(linked, "w") as out:
        meta = json.loads(source.read("manifest.json"))
        meta["entries"]["files/uploads/passwd"] = {"sha256": "0" * 64, "bytes": len("/etc/passwd")}
        for info in source.infolist():
            if info.filename != "manifest.json":
                out.writestr(info, source.read(info))
        link = zipfile.ZipInfo("files/uploads/passwd")
        link.external_attr = (stat.S_IFLNK | 0o777) << 16
        out.writestr(link, "/etc/passwd")
        out.writestr("manifest.json", json.dumps(meta))
    assert "is a link" in refused(linked, tmp_path)


def test_a_decompression_bomb_is_refused_before_it_is_unpacked(tmp_path: Path) -> None:
    bomb = rewritten(
        exported(tmp_path), tmp_path / "bomb.zip", add={"files/uploads/zeros.bin": bytes(64 << 20)}
    )
    assert "expands beyond reason" in refused(bomb, tmp_path)
    assert not (tmp_path / "unpacked" / "files" / "uploads" / "zeros.bin").exists()


def test_an_entry_not_in_the_manifest_is_refused(tmp_path: Path) -> None:
    extra = rewritten(
        exported(tmp_path), tmp_path / "extra.zip", add={"files/uploads/x.txt": b"x"}, listed=False
    )
    assert "is not in its manifest" in refused(extra, tmp_path)


def test_a_changed_entry_fails_its_checksum(tmp_path: Path) -> None:
    archive = exported(tmp_path)
    with zipfile.ZipFile(archive) as zf:
        original = zf.read("files/personality.md")
    changed = rewritten(archive, tmp_path / "changed.zip", replace={"files/personality.md": original.upper()})
    assert "is damaged (its checksum does not match)" in refused(changed, tmp_path)


def test_a_damaged_database_is_refused(tmp_path: Path) -> None:
    archive = exported(tmp_path)
    with zipfile.ZipFile(archive) as zf:
        data = bytearray(zf.read("databases/notes.sqlite3"))
    data[100:4096] = b"\xff" * (4096 - 100)  # the first page's header and schema, scribbled over
    bad = _relisted(archive, tmp_path / "bad-db.zip", "databases/notes.sqlite3", bytes(data))
    assert "databases/notes.sqlite3" in refused(bad, tmp_path)


def test_records_that_do_not_parse_are_refused(tmp_path: Path) -> None:
    archive = exported(tmp_path)
    bad = _relisted(archive, tmp_path / "bad-records.zip", "collections/facts.jsonl", b'{"id": 3}\n')
    assert "facts.jsonl, line 1: not a memory record" in refused(bad, tmp_path)


def test_vectors_that_do_not_match_their_records_are_refused(tmp_path: Path) -> None:
    import io

    buffer = io.BytesIO()
    np.save(buffer, np.zeros((5, 3), dtype=np.float32))
    archive = exported(tmp_path)
    bad = _relisted(archive, tmp_path / "bad-vectors.zip", "collections/facts.vectors.npy", buffer.getvalue())
    assert "does not hold 1 vectors of 64 numbers" in refused(bad, tmp_path)


def test_a_pickled_vector_file_is_never_loaded(tmp_path: Path) -> None:
    import io

    buffer = io.BytesIO()
    np.save(buffer, np.array([{"evil": 1}], dtype=object), allow_pickle=True)
    archive = exported(tmp_path)
    bad = _relisted(archive, tmp_path / "pickled.zip", "collections/facts.vectors.npy", buffer.getvalue())
    assert "is not a vector file" in refused(bad, tmp_path)


def test_records_a_collection_would_refuse_are_caught_before_anything_is_written(tmp_path: Path) -> None:
    archive = exported(tmp_path)
    line = json.dumps({"id": "fact_1", "text": "Jo lives in Denver", "metadata": {"created_at": 1.0}})
    bad = _relisted(archive, tmp_path / "bad-meta.zip", "collections/facts.jsonl", f"{line}\n".encode())
    unpacked = unpack(bad, tmp_path / "unpacked", app_version=VERSION)
    with pytest.raises(ArchiveError, match="missing required metadata"):
        check_fits(unpacked, LAYOUT)


def test_a_database_or_file_this_version_does_not_keep_is_refused(tmp_path: Path) -> None:
    with sqlite3.connect(tmp_path / "other.sqlite3") as db:
        db.execute("CREATE TABLE t (x)")
    extra = rewritten(
        exported(tmp_path),
        tmp_path / "more.zip",
        add={"databases/other.sqlite3": (tmp_path / "other.sqlite3").read_bytes()},
    )
    unpacked = unpack(extra, tmp_path / "unpacked", app_version=VERSION)
    with pytest.raises(ArchiveError, match="does not keep: database other.sqlite3"):
        check_fits(unpacked, LAYOUT)


def _relisted(archive: Path, target: Path, name: str, data: bytes) -> Path:
    """`archive` with entry `name` replaced by `data` and listed with its true checksum and size."""
    return rewritten(rewritten(archive, target.with_suffix(".tmp"), drop=[name]), target, add={name: data})

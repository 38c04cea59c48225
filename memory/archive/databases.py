"""SQLite files in and out of an archive: a consistent snapshot out, a merge without duplicates in."""

from __future__ import annotations

import contextlib
import os
import sqlite3
from pathlib import Path

from core.errors import StorageError


def snapshot(source: Path, target: Path) -> dict[str, int]:
    """Copy `source` to `target` through SQLite's backup API: one consistent state even while another
    connection writes (a live file copy could catch a WAL half applied). Its row count per table."""
    try:
        source_uri = f"{source.resolve().as_uri()}?mode=ro"
        with (
            contextlib.closing(sqlite3.connect(source_uri, uri=True)) as src,
            contextlib.closing(sqlite3.connect(str(target))) as dst,
        ):
            src.backup(dst)
            dst.execute("PRAGMA journal_mode=DELETE")  # one self-contained file in the archive
            return table_rows(dst)
    except sqlite3.Error as error:
        raise StorageError(f"cannot read {source} for the export: {error}") from None


def table_rows(db: sqlite3.Connection, schema: str = "main") -> dict[str, int]:
    """Rows per user table of one attached database."""
    return {
        name: db.execute(f'SELECT COUNT(*) FROM {schema}."{name}"').fetchone()[0]
        for name in tables(db, schema)
    }


def tables(db: sqlite3.Connection, schema: str = "main") -> list[str]:
    """The user tables of one attached database, in creation order (a referenced table comes first)."""
    rows = db.execute(
        f"SELECT name FROM {schema}.sqlite_master "
        "WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY rowid"
    )
    return [name for (name,) in rows]


def check_database(path: Path) -> None:
    """Raise ValueError unless `path` is an intact SQLite file (an archive is untrusted input)."""
    try:
        with contextlib.closing(sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)) as db:
            (verdict,) = db.execute("PRAGMA quick_check").fetchone()
    except sqlite3.Error as error:
        raise ValueError(f"not a SQLite database ({error})") from None
    if verdict != "ok":
        raise ValueError(f"a damaged SQLite database ({verdict})")


def merge_database(archived: Path, target: Path) -> int:
    """Bring the archived database into `target`; the rows added.

    No target yet: the archived file becomes it (copied through the backup API, then renamed into place).
    Otherwise every row the target lacks is inserted, table by table in one transaction, over the columns
    both have (an older archive lacks the newer columns; their defaults apply). A row whose key the target
    already holds keeps the target's version: importing the same archive twice adds nothing."""
    if not target.exists():
        partial = target.with_name(target.name + ".importing")
        rows = snapshot(archived, partial)
        with contextlib.closing(sqlite3.connect(str(partial))) as db:
            db.execute("PRAGMA journal_mode=WAL")  # as the app's own databases are
        os.chmod(partial, 0o600)
        os.replace(partial, target)
        return sum(rows.values())
    try:
        with contextlib.closing(sqlite3.connect(str(target), isolation_level=None)) as db:
            db.execute("ATTACH DATABASE ? AS archived", (f"{archived.resolve().as_uri()}?mode=ro",))
            return _insert_missing(db)
    except sqlite3.Error as error:
        raise StorageError(f"cannot merge the archive's copy into {target}: {error}") from None


def _insert_missing(db: sqlite3.Connection) -> int:
    added = 0
    ours = set(tables(db))
    db.execute("BEGIN IMMEDIATE")
    try:
        for table in tables(db, "archived"):
            if table not in ours:
                continue  # a table this version no longer has
            columns = _shared_columns(db, table)
            listed = ", ".join(f'"{c}"' for c in columns)
            before = db.total_changes
            db.execute(
                f'INSERT OR IGNORE INTO main."{table}" ({listed}) '
                f'SELECT {listed} FROM archived."{table}" EXCEPT SELECT {listed} FROM main."{table}"'
            )
            added += db.total_changes - before
        db.execute("COMMIT")
    except BaseException:
        db.execute("ROLLBACK")
        raise
    return added


def _shared_columns(db: sqlite3.Connection, table: str) -> list[str]:
    ours = [row[1] for row in db.execute(f'PRAGMA main.table_info("{table}")')]
    theirs = {row[1] for row in db.execute(f'PRAGMA archived.table_info("{table}")')}
    return [column for column in ours if column in theirs]

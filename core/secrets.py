"""API keys the user saved (the wizard, the Settings tab): the OS keyring when one works, else a 0600 file.

Keys are stored under the names of the environment variables that would hold them (`OPENAI_API_KEY`,
`TAVILY_API_KEY`, `WOLFRAM_APP_ID`...), so `as_env()` can go under the process environment in the composition
root and every provider and tool finds a saved key exactly where it looks today; a variable that is set wins.

With a usable keyring the values live there (service `Daemon <data dir>`, so two data dirs never share
keys) and the data dir holds only `secrets-index.json`, the list of names (a keyring cannot enumerate).
Without one (a headless Linux has `keyring.backends.fail.Keyring`) they live in `secrets.json`, created
0600 and replaced atomically, so it is never readable by others, not even for a moment. Nothing here ever
logs, prints or reprs a value: `mask` is what a front end shows.
"""

from __future__ import annotations

import contextlib
import json
import logging
import re
import threading
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from core.data_dir import write_private

log = logging.getLogger(__name__)

SECRETS_FILE = "secrets.json"
INDEX_FILE = "secrets-index.json"
_NAME = re.compile(r"^[A-Z][A-Z0-9_]{0,63}$")  # an environment variable's name

KeyringFinder = Callable[[], Any]  # returns a usable keyring backend, or None


def mask(value: str | None) -> str:
    """What a front end may show of a key: its last four characters for a long key, else nothing."""
    if not value:
        return "(not set)"
    return f"••••{value[-4:]}" if len(value) >= 16 else "••••"


def usable_keyring() -> Any:
    """The OS keyring backend when one can store secrets, else None (the `fail` and `null` backends, a
    chainer with nothing in it, or keyring failing to load at all)."""
    try:
        import keyring
        from keyring.backends import chainer, fail, null

        backend = keyring.get_keyring()
    except Exception as error:  # a broken keyring install must not stop Daemon: use the file
        log.info("no OS keyring: %s", type(error).__name__)
        return None
    if isinstance(backend, fail.Keyring | null.Keyring):
        return None
    if isinstance(backend, chainer.ChainerBackend) and not backend.backends:
        return None
    return backend


def under_environment(saved: Mapping[str, str], env: Mapping[str, str]) -> dict[str, str]:
    """`env` with the saved keys it lacks: a variable set to a value wins; one set empty does not hide a
    saved key (an empty `export OPENAI_API_KEY=` in a shell profile is common)."""
    merged = dict(env)
    merged.update({name: value for name, value in saved.items() if not env.get(name)})
    return merged


class SecretStore:
    """Saved keys of one data dir. `keyring` finds the OS keyring lazily (only when a key is read from or
    written to it), so a run with nothing saved never imports the keyring package."""

    def __init__(self, data_dir: Path, keyring: KeyringFinder = usable_keyring) -> None:
        self._dir = data_dir
        self._find_keyring = keyring
        self._backend: Any = None
        self._looked = False
        self._writing = threading.Lock()  # read-modify-write of the files: two GUI sessions may save at once

    def __repr__(self) -> str:  # names only, never a value
        return f"SecretStore({self._dir}, names={self.names()})"

    @property
    def service(self) -> str:
        """The keyring service name: one per data dir."""
        return f"Daemon {self._dir.resolve()}"

    def where(self) -> str:
        """Where saved keys are kept, for the user ("the OS keyring (SecretService)" or the file)."""
        backend = self._keyring()
        if backend is not None:
            return f"the OS keyring ({type(backend).__name__})"
        return f"{self._dir / SECRETS_FILE} (readable by you only)"

    def names(self) -> list[str]:
        """The names of the saved keys, sorted."""
        return sorted(set(self._read(INDEX_FILE, [])) | set(self._read(SECRETS_FILE, {})))

    def get(self, name: str) -> str | None:
        """The saved value of `name`, or None."""
        in_file = self._read(SECRETS_FILE, {})
        if name in in_file:
            return str(in_file[name])
        if name not in self._read(INDEX_FILE, []):
            return None
        backend = self._keyring()
        return backend.get_password(self.service, name) if backend is not None else None

    def set(self, name: str, value: str) -> None:
        """Save `value` under the variable name `name` (an empty value deletes it)."""
        if not _NAME.match(name):
            raise ValueError(f"{name!r} is not an environment variable name (A-Z, 0-9, _)")
        value = value.strip()
        if not value:
            self.delete(name)
            return
        backend = self._keyring()
        if backend is None:
            self._update_file(SECRETS_FILE, lambda keys: {**keys, name: value}, {})
            return
        backend.set_password(self.service, name, value)
        self._update_file(INDEX_FILE, lambda names: sorted({*names, name}), [])
        self._update_file(SECRETS_FILE, lambda keys: {k: v for k, v in keys.items() if k != name}, {})

    def delete(self, name: str) -> None:
        """Forget `name` wherever it is saved."""
        if name in self._read(INDEX_FILE, []):
            backend = self._keyring()
            if backend is not None:
                with contextlib.suppress(Exception):  # already gone from the keyring
                    backend.delete_password(self.service, name)
            self._update_file(INDEX_FILE, lambda names: [n for n in names if n != name], [])
        if name in self._read(SECRETS_FILE, {}):
            self._update_file(SECRETS_FILE, lambda keys: {k: v for k, v in keys.items() if k != name}, {})

    def as_env(self, names: Iterable[str] | None = None) -> dict[str, str]:
        """Saved keys as environment entries (all of them, or those in `names`)."""
        wanted = self.names() if names is None else [n for n in names if n in self.names()]
        found = {name: self.get(name) for name in wanted}
        return {name: value for name, value in found.items() if value}

    def _keyring(self) -> Any:
        if not self._looked:
            self._backend = self._find_keyring()
            self._looked = True
        return self._backend

    def _read(self, file: str, empty: Any) -> Any:
        try:
            data = json.loads((self._dir / file).read_text(encoding="utf-8"))
        except FileNotFoundError:
            return empty
        except (OSError, ValueError):
            log.warning("cannot read %s; saved keys there are ignored", self._dir / file)
            return empty
        return data if isinstance(data, type(empty)) else empty

    def _update_file(self, file: str, change: Callable[[Any], Any], empty: Any) -> None:
        with self._writing:
            data = change(self._read(file, empty))
            path = self._dir / file
            if not data:
                with contextlib.suppress(FileNotFoundError):
                    path.unlink()
                return
            self._dir.mkdir(mode=0o700, parents=True, exist_ok=True)
            write_private(path, json.dumps(data, indent=1, sort_keys=True))

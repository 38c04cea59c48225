"""The one error a document can cause: a clear message naming the file, shown as `error: …` (exit 2)."""

from __future__ import annotations

from core.errors import UserInputError


class DocumentError(UserInputError):
    """A document cannot be ingested as given (too big, unknown type, damaged, encrypted, empty...)."""

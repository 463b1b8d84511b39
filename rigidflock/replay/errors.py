"""The one error a replay file raises: :class:`ReplayError`, a single line naming the file."""

from __future__ import annotations


class ReplayError(Exception):
    """A file that cannot be read as a replay (one line, names the file)."""


def fail(path, message: str) -> ReplayError:
    """The error for ``path``: ``"<path>: <message>"`` (raise it)."""
    return ReplayError(f"{path}: {message}")

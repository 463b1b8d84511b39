"""A recording's behaviours: which it needs, whether they may be imported, and whether their
code is the one that recorded it.

Opening a recording runs none of its code: the scene it stores is read without importing
anything, replay and export draw its stored states, and ``--info`` lists the behaviours with
their source hashes. Re-simulating it (``verify``, or rebuilding move orders given before the
recording began) imports each behaviour's module, which runs that module's code: only when the
user allows it (``--allow-behaviours``, ``allow_behaviours=True``) or when the name is installed
code (:func:`~rigidflock.model.behaviours.trusted`: a registered entry point, or rigidflock's
own examples).
"""

from __future__ import annotations

from rigidflock.model.behaviours import trusted
from rigidflock.replay.errors import fail


def recorded(header: dict) -> list[dict]:
    """The header's behaviours: ``function`` and ``source_hash`` of each (none before files
    stored them, or for a run without any)."""
    out = header.get("behaviours") or []
    return [b for b in out if isinstance(b, dict) and isinstance(b.get("function"), str)]


def check_allowed(path, scene, allow: bool) -> None:
    """Raise ReplayError (exit 2) naming the behaviours ``scene`` needs that may not be imported
    without the user's leave, and how to give it."""
    if allow:
        return
    needs = [b.function for b in scene.behaviours if not trusted(b.function)]
    if needs:
        names = ", ".join(dict.fromkeys(needs))
        raise fail(
            path,
            f"re-simulating needs the behaviours {names}, whose modules run code when imported; "
            "if you trust them, rerun with --allow-behaviours (Python: allow_behaviours=True)",
        )


def hash_notes(header: dict, used: list[dict]) -> list[str]:
    """One line per behaviour whose source hash now differs from the recorded one."""
    then = {b["function"]: b.get("source_hash") for b in recorded(header)}
    notes = []
    for b in used:
        old = then.get(b["function"])
        if old and old != b["source_hash"]:
            notes.append(
                f"behaviour {b['function']!r}: its source changed since the recording (hash "
                f"{old}, now {b['source_hash']}): a difference may come from that"
            )
    return notes

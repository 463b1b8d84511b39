"""What ``rigidflock replay FILE --info`` shows: :func:`info` (as data), :func:`format_info`
(as printed: what recorded the file, in the words a user acts on, and when its simulation model
is not this rigidflock's, what still works and what re-simulates it)."""

from __future__ import annotations

from rigidflock import __version__
from rigidflock.replay.behaviours import recorded
from rigidflock.replay.reader import ReplayReader
from rigidflock.sim import MODEL_VERSION


def info(reader: ReplayReader) -> dict:
    """What ``rigidflock replay FILE --info`` prints, as data. Decodes every chunk."""
    h = reader.header
    for i in range(len(reader.chunks)):
        reader.chunk(i)  # raises ReplayError on a chunk that does not decode
    n_inputs = len(reader.inputs())
    ticks = reader.ticks
    units = reader.units
    return {
        "file": str(reader.path),
        "format_version": h["format_version"],
        "model_version": h.get("model_version", 1),
        "rigidflock": h.get("rigidflock"),
        "pymunk": h.get("pymunk"),
        "created": h.get("created"),
        "scene": h.get("scene_name") or h["scene_source"],
        "scene_source": h["scene_source"],
        "seed": h["seed"],
        "dt": h["dt"],
        "precision": h["precision"],
        "units": units,
        "has_player": h.get("has_player"),
        "first_tick": reader.first_tick,
        "last_tick": reader.last_tick,
        "ticks": ticks,
        "duration_seconds": max(ticks - 1, 0) * h["dt"],
        "inputs": n_inputs,
        "chunks": len(reader.chunks),
        "bytes": reader.size,
        "bytes_per_unit_tick": reader.size / (units * ticks) if units and ticks else None,
        "complete": reader.complete,
        "problem": reader.problem,
        "behaviours": recorded(h),
    }


def _n(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def model_note(d: dict) -> list[str]:
    """For :func:`info`'s ``d`` of a recording made with another simulation model than this
    rigidflock's: what still works, and what re-simulates it (two lines); none for this
    model."""
    v = d["model_version"]
    if v == MODEL_VERSION:
        return []
    version = f"{d['rigidflock']}, " if d["rigidflock"] else ""
    return [
        f"simulation model {v} is not this rigidflock's ({__version__}, model {MODEL_VERSION}): "
        "replay and export work;",
        f"to verify or re-simulate it, use the rigidflock that recorded it ({version}simulation "
        f"model {v})",
    ]


def format_info(d: dict) -> str:
    """The lines of :func:`info` as printed."""
    status = "complete" if d["complete"] else f"INCOMPLETE: {d['problem']}"
    per = d["bytes_per_unit_tick"]
    made = f"rigidflock {d['rigidflock']}" if d["rigidflock"] else "an unknown rigidflock"
    lines = [
        f"{d['file']}: rigidflock replay (file format {d['format_version']}), {status}",
        f"  recorded  with {made}, simulation model {d['model_version']} "
        f"(pymunk {d['pymunk']}), {d['created']}",
        f"  scene     {d['scene']} ({d['scene_source']}), seed {d['seed']}, dt {d['dt']:g} s",
        f"  ticks     {d['first_tick']}..{d['last_tick']} ({_n(d['ticks'], 'state')}, "
        f"{d['duration_seconds']:.2f} s)",
        f"  units     {d['units']}" + (" (player included)" if d["has_player"] else ""),
        f"  inputs    {_n(d['inputs'], 'recorded command')}",
        f"  size      {_n(d['bytes'], 'byte')} in {_n(d['chunks'], 'chunk')}, "
        f"{d['precision']} precision"
        + (f", {per:.2f} bytes per unit per tick" if per is not None else ""),
    ]
    for k, b in enumerate(d.get("behaviours") or []):
        label = "behaviour" if k == 0 else ""
        lines.append(f"  {label:<10}{b['function']} (source hash {b.get('source_hash')})")
    if d.get("behaviours"):
        lines.append(
            "            (not imported; verify imports them with --allow-behaviours, unless "
            "registered)"
        )
    for label, line in zip(("note", ""), model_note(d), strict=False):
        lines.append(f"  {label:<8}  {line}")
    return "\n".join(lines)

"""What ``rigidflock replay FILE --info`` shows: :func:`info` (as data), :func:`format_info`."""

from __future__ import annotations

from rigidflock.replay.reader import ReplayReader


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
    }


def format_info(d: dict) -> str:
    """The lines of :func:`info` as printed."""
    status = "complete" if d["complete"] else f"INCOMPLETE: {d['problem']}"
    per = d["bytes_per_unit_tick"]
    lines = [
        f"{d['file']}: rigidflock replay, format {d['format_version']}, "
        f"model {d['model_version']}, {status}",
        f"  scene     {d['scene']} ({d['scene_source']}), seed {d['seed']}, dt {d['dt']:g} s",
        f"  recorded  by rigidflock {d['rigidflock']}, pymunk {d['pymunk']}, {d['created']}",
        f"  ticks     {d['first_tick']}..{d['last_tick']} ({d['ticks']} states, "
        f"{d['duration_seconds']:.2f} s)",
        f"  units     {d['units']}" + (" (player included)" if d["has_player"] else ""),
        f"  inputs    {d['inputs']} recorded commands",
        f"  size      {d['bytes']} bytes in {d['chunks']} chunks, {d['precision']} precision"
        + (f", {per:.2f} bytes per unit per tick" if per is not None else ""),
    ]
    return "\n".join(lines)

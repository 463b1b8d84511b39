"""``rigidflock scenes``: every bundled scene, scenario and sweep listed, or one copied out to
edit."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from rigidflock.bundled import KINDS, bundled, closest_name, find_bundled
from rigidflock.cli.args import EXIT_OK, UsageError
from rigidflock.outputs import OutputError, atomic_open

# each kind's heading in the list: what it is and the command that takes it by name
HEADINGS = {
    "scene": "scenes (rigidflock run NAME, rigidflock view NAME)",
    "scenario": "scenarios (the scored suite, rigidflock score; each runs and views by name too)",
    "sweep": "sweeps (rigidflock sweep NAME)",
}


def cmd_list(args) -> int:
    found = bundled()
    width = max(len(f.name) for f in found)
    for kind in KINDS:
        files = [f for f in found if f.kind == kind]
        if not files:
            continue
        if kind != "scene":
            print()
        print(f"{HEADINGS[kind]}:")
        for f in files:
            print(f"  {f.name:<{width}}  {f.about or f.title}".rstrip())
    print("\ncopy any of them out to edit: rigidflock scenes copy NAME [DIR]")
    return EXIT_OK


def _base_scene(src: Path, text: str) -> tuple[Path, str] | None:
    """A bundled sweep's base scene (its ``scene`` key, a path relative to the sweep) and the
    sweep's text with that key naming the scene's file beside it; None when the base scene is not
    a bundled file (then the key is left as it is)."""
    try:
        name = tomllib.loads(text).get("scene")
    except tomllib.TOMLDecodeError:
        return None
    if not isinstance(name, str):
        return None
    base = (src.parent / name).resolve()
    if not base.is_file() or find_bundled(base.name) is None:
        return None
    key = re.compile(r"^(scene\s*=\s*)([\"'])" + re.escape(name) + r"\2", re.MULTILINE)
    new, n = key.subn(lambda m: f'{m.group(1)}"{base.name}"', text, count=1)
    return (base, new) if n else None


def cmd_copy(args) -> int:
    """Copy a bundled file out. A sweep names its base scene by a path relative to itself, so
    the base scene is copied beside it (unless an identical copy is already there) and the
    sweep's ``scene`` key names that copy: the two run from wherever they are put."""
    src = find_bundled(args.name, tuple(KINDS))
    if src is None:
        near = closest_name(args.name, tuple(KINDS))
        hint = f"did you mean {near}?" if near else "rigidflock scenes lists them"
        raise UsageError(
            f"rigidflock scenes copy: no bundled scene, scenario or sweep: {args.name} ({hint})"
        )
    dest = Path(args.dest)
    if dest.is_dir():
        dest = dest / src.name
    elif dest.suffix.lower() != ".toml":
        raise OutputError(f"{dest}: no such folder (give a folder, or a file name ending .toml)")
    kind = {f.path: f.kind for f in bundled()}[src]
    text = src.read_text(encoding="utf-8")
    copies = [(dest, text)]
    base = _base_scene(src, text) if kind == "sweep" else None
    if base is not None:
        copies[0] = (dest, base[1])
        beside = dest.parent / base[0].name
        scene_text = base[0].read_text(encoding="utf-8")
        if not (beside.is_file() and beside.read_text(encoding="utf-8") == scene_text):
            copies.append((beside, scene_text))
    for path, _ in copies:  # every refusal before anything is written
        if path.exists():
            raise OutputError(
                f"{path}: already exists; not overwritten (remove it, or copy elsewhere)"
            )
    for path, content in copies:
        with atomic_open(path, "w", encoding="utf-8") as fh:
            fh.write(content)
    print(f"{dest}: copied from the bundled {kind} {src.stem}")
    for path, _ in copies[1:]:
        print(f"{path}: copied from the bundled scene {path.stem} (the sweep's base scene)")
    return EXIT_OK

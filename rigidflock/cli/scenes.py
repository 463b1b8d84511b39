"""``rigidflock scenes``: the bundled scenes listed, or one copied out to edit."""

from __future__ import annotations

from pathlib import Path

from rigidflock.cli.args import EXIT_OK, UsageError
from rigidflock.outputs import OutputError, atomic_open
from rigidflock.scenes import bundled_names, bundled_scene, bundled_scenes, bundled_sweeps


def cmd_list(args) -> int:
    found = bundled_scenes()
    sweeps = bundled_sweeps()
    width = max(len(name) for name in [*(s.name for s in found), *(n for n, _ in sweeps)])
    for s in found:
        about = s.about or s.title
        print(f"{s.name:<{width}}  {about}")
    print(
        "\nrun one with `rigidflock run NAME` or `rigidflock view NAME`; "
        "copy one out to edit with `rigidflock scenes copy NAME [DIR]`"
    )
    if sweeps:
        print("\nsweeps (`rigidflock sweep NAME`):")
        for name, about in sweeps:
            print(f"{name:<{width}}  {about}")
    return EXIT_OK


def cmd_copy(args) -> int:
    src = bundled_scene(args.name)
    if src is None:
        raise UsageError(
            f"rigidflock scenes copy: no bundled scene {args.name!r}; "
            f"expected one of {', '.join(bundled_names())}"
        )
    dest = Path(args.dest)
    if dest.is_dir():
        dest = dest / src.name
    elif dest.suffix.lower() != ".toml":
        raise OutputError(f"{dest}: no such folder (give a folder, or a file name ending .toml)")
    if dest.exists():
        raise OutputError(f"{dest}: already exists; not overwritten (remove it, or copy elsewhere)")
    with atomic_open(dest, "w", encoding="utf-8") as fh:
        fh.write(src.read_text(encoding="utf-8"))
    print(f"{dest}: copied from the bundled scene {src.stem}")
    return EXIT_OK

"""Write the documentation's generated pages; ``--check`` says which are stale instead.

    python docs/generate.py           # write every generated page
    python docs/generate.py --check   # exit 1 and name each page that differs from its source

Each module in ``docs/_gen/`` has a function ``pages() -> dict[str, str]`` mapping a path under
``docs/`` to the page's text, made from the package itself (the parser, the scene keys) or from
the result JSON under ``docs/results/``. Pages made here are never edited by hand: a test runs
``--check``.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent


def generated(only: list[str] | None = None) -> dict[Path, str]:
    """Every generated page: path -> text, from each module of ``docs/_gen`` (or those named)."""
    out: dict[Path, str] = {}
    for file in sorted((DOCS / "_gen").glob("*.py")):
        if file.name.startswith("_") or (only and file.stem not in only):
            continue
        spec = importlib.util.spec_from_file_location(f"_docs_gen_{file.stem}", file)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        for rel, text in module.pages().items():
            path = DOCS / rel
            if path in out:
                raise SystemExit(f"docs/generate.py: {rel} is generated twice")
            out[path] = text
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only say which pages are stale")
    parser.add_argument("--only", nargs="+", metavar="MODULE", help="only these docs/_gen modules")
    args = parser.parse_args(argv)
    stale = []
    for path, text in generated(args.only).items():
        old = path.read_text() if path.exists() else None
        if old == text:
            continue
        stale.append(path.relative_to(DOCS))
        if not args.check:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
    verb = "stale" if args.check else "written"
    for rel in stale:
        print(f"docs/{rel}: {verb}", file=sys.stderr if args.check else sys.stdout)
    if args.check and stale:
        print("run: python docs/generate.py", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

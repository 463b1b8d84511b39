"""Run the Python examples of the README and the guides, in order, in one namespace per page.

    python docs/run_examples.py                            # every page, in a temporary folder
    python docs/run_examples.py guides/python-api.md --in docs/images   # and keep its pictures

Every fenced ``python`` block of a page runs, top to bottom, in the folder given (a temporary one
by default), as a notebook would run them; a block that raises stops the page with the page's
name and the block's first line. The test suite runs this on every page and on the README.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import sys
import tempfile
import traceback
from pathlib import Path

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent


def python_blocks(text: str) -> list[str]:
    """The page's ```` ```python ```` blocks, in order."""
    return re.findall(r"^```python\n(.*?)^```", text, flags=re.S | re.M)


def pages() -> list[Path]:
    """Every page with examples: the README, the getting-started page and the guides. (Other
    pages may quote code, a formula or an excerpt, that is not meant to run alone.)"""
    found = [ROOT / "README.md", DOCS / "getting-started.md", *sorted(DOCS.glob("guides/*.md"))]
    return [p for p in found if python_blocks(p.read_text())]


def run_page(path: Path, folder: Path) -> None:
    """Run ``path``'s blocks in ``folder``; raises on the first block that fails."""
    namespace = {"__name__": "__main__"}  # as a script: guarded blocks run too
    old = Path.cwd()
    os.chdir(folder)
    try:
        for code in python_blocks(path.read_text()):
            exec(compile(code, str(path), "exec"), namespace)
    finally:
        os.chdir(old)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pages", nargs="*", help="pages under docs/ (default: every page)")
    parser.add_argument("--in", dest="folder", help="run in this folder (default: a temporary one)")
    args = parser.parse_args(argv)
    chosen = [DOCS / p for p in args.pages] if args.pages else pages()
    with contextlib.ExitStack() as stack:
        folder = args.folder or stack.enter_context(tempfile.TemporaryDirectory())
        folder = Path(folder).resolve()
        for page in chosen:
            try:
                run_page(page, folder)
            except Exception:
                traceback.print_exc()
                print(f"{page.relative_to(ROOT)}: an example failed", file=sys.stderr)
                return 1
            print(f"{page.relative_to(ROOT)}: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())

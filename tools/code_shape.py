"""The layers issue's size figures: longest modules and functions, and radon's worst scores.

    python tools/code_shape.py            # needs radon (pip install radon; not a dependency)

Prints modules over 500 lines, functions over 80 lines (numba kernels marked), kernel signatures
over 12 parameters, and the lowest maintainability indices.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "rigidflock"


def _is_kernel(node: ast.AST) -> bool:
    return any("njit" in ast.unparse(d) or "jit" in ast.unparse(d) for d in node.decorator_list)


def main() -> int:
    files = sorted(PACKAGE.rglob("*.py"))
    long_modules, long_funcs, wide_kernels = [], [], []
    for f in files:
        text = f.read_text()
        rel = f.relative_to(PACKAGE.parent)
        lines = text.count("\n")
        long_modules.append((lines, str(rel)))
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                n = node.end_lineno - node.lineno + 1
                kernel = _is_kernel(node)
                long_funcs.append((n, f"{rel}:{node.lineno} {node.name}{' (kernel)' * kernel}"))
                nargs = len(node.args.args) + len(node.args.kwonlyargs)
                if kernel:
                    wide_kernels.append((nargs, f"{rel}:{node.lineno} {node.name}"))
    print("largest modules:", *[f"  {n:5d} {p}" for n, p in sorted(long_modules)[-5:]], sep="\n")
    print("longest functions:", *[f"  {n:5d} {p}" for n, p in sorted(long_funcs)[-6:]], sep="\n")
    print("widest kernels:", *[f"  {n:5d} {p}" for n, p in sorted(wide_kernels)[-4:]], sep="\n")
    try:
        out = subprocess.run(
            [sys.executable, "-m", "radon", "mi", "-s", str(PACKAGE)],
            capture_output=True, text=True, check=True,
        ).stdout  # fmt: skip
    except (OSError, subprocess.CalledProcessError):
        print("radon not installed: pip install radon")
        return 0
    scores = []
    for line in out.splitlines():
        if " - " in line and "(" in line:
            path, rest = line.rsplit(" - ", 1)
            scores.append((float(rest.split("(")[1].rstrip(")")), path.strip()))
    print("lowest maintainability index:", *[f"  {s:6.2f} {p}" for s, p in sorted(scores)[:5]],
          sep="\n")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())

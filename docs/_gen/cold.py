"""explanation/cold_figures.inc: the cold first run against the code before the kernel twins, from
docs/results/cold.json (written by ``python tools/bench_cold.py --base COMMIT --json
docs/results/cold.json``). ``explanation/performance.md`` includes the page made here; every
figure on it comes from that JSON.
"""

from __future__ import annotations

import json
from pathlib import Path

RESULTS = Path(__file__).resolve().parent.parent / "results" / "cold.json"
PAGE = "explanation/cold_figures.inc"


def _figures(data: dict) -> str:
    out = [
        "### The first run",
        "",
        f"Measured with `{data['command']}` at commit `{data['commit']}` against `{data['base']}` "
        "(the code before the one-thread twins and the per-scene warm-up), the load average "
        f"{data['load']:.1f} on 2 cores at the end. Each command runs in a fresh process with "
        "empty caches (a new home and cache directory, no `__pycache__`), base and current "
        "interleaved, then once more on the warm cache. Seconds of the whole command:",
        "",
        "| first | base, cold | now, cold | **cold ratio** | base, warm | now, warm | warm ratio |",
        "|---|---|---|---|---|---|---|",
    ]
    out.extend(
        f"| `{r['case']}` | {r['base_cold']:.1f} | {r['current_cold']:.1f} | "
        f"**{r['cold_ratio']:.2f}** | {r['base_warm']:.1f} | {r['current_warm']:.1f} | "
        f"{r['warm_ratio']:.2f} |"
        for r in data["rows"]
    )
    return "\n".join(out) + "\n"


def pages() -> dict[str, str]:
    if not RESULTS.exists():
        text = (
            "### The first run\n\nNo figures yet: run `python tools/bench_cold.py --base COMMIT "
            "--json docs/results/cold.json`, then `python docs/generate.py`.\n"
        )
        return {PAGE: text}
    return {PAGE: _figures(json.loads(RESULTS.read_text()))}

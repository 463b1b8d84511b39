"""The before/after figures of the validation page ``docs/validation/before_after.md``.

    python tools/before_after_json.py --before-commit fd0567a --after-commit HEAD \\
        --scored-before before.json --scored-after after.json \\
        --scenes-before DIR --scenes-after DIR --seeds runs.jsonl --seeds-before before.jsonl

Collects, into docs/results/before_after.json: the scored suite on each scene's own seed
(``rigidflock score --json``, whose ``results`` it reads, of each model), the bundled RTS
scenes' run metrics (``rigidflock run SCENE --metrics DIR/scene_LABEL_SCENE.json``, LABEL before
or after), and scenarios on more seeds after and before (one ``run_scenario`` row as JSON a
line, with its ``mass``: "scene" or "10 kg"). ``python docs/generate.py`` makes the page.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "docs" / "results" / "before_after.json"
SCENES = ("rts_crossing", "rts_maze", "rts_doorway", "rts_chokepoint")


def _rows(path: str) -> list[dict]:
    data = json.loads(Path(path).read_text())
    return data["results"] if isinstance(data, dict) else data


def _lines(path: str) -> list[dict]:
    return [json.loads(line) for line in Path(path).read_text().splitlines() if line]


def _scene(folder: str, label: str, name: str) -> dict:
    m = json.loads((Path(folder) / f"scene_{label}_{name}.json").read_text())
    s = m["metrics"]
    arrival = [o.get("arrival_tick") for o in s.get("orders") or []]
    return {
        "scene": name,
        "ticks": m.get("ticks"),
        "arrival_ticks": arrival,
        "unit_contacts": s.get("unit_contacts"),
        "wall_contacts": s.get("wall_contacts"),
        "longest_pin_seconds": s.get("longest_pin_seconds"),
        "stuck_seconds": s.get("stuck_seconds"),
        "longest_lock_seconds": s.get("longest_lock_seconds"),
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--before-commit", required=True)
    p.add_argument("--after-commit", required=True)
    p.add_argument("--scored-before", required=True)
    p.add_argument("--scored-after", required=True)
    p.add_argument("--scenes-before", required=True)
    p.add_argument("--scenes-after", required=True)
    p.add_argument("--seeds", required=True)
    p.add_argument("--seeds-before", help="the same rows as --seeds, of the model before")
    a = p.parse_args(argv)
    after = a.after_commit
    if after == "HEAD":
        git = ["git", "rev-parse", "--short", "HEAD"]
        after = subprocess.run(git, cwd=ROOT, capture_output=True, text=True, check=True)
        after = after.stdout.strip()
    before_scored = json.loads(Path(a.scored_before).read_text())
    data = {
        "before": {
            "commit": a.before_commit,
            "scored_commit": (
                before_scored.get("commit") if isinstance(before_scored, dict) else None
            ),
        },
        "after": {"commit": after},
        "scored": {"before": _rows(a.scored_before), "after": _rows(a.scored_after)},
        "scenes": {
            "before": [_scene(a.scenes_before, "before", s) for s in SCENES],
            "after": [_scene(a.scenes_after, "after", s) for s in SCENES],
        },
        "seeds": _lines(a.seeds),
        "seeds_before": _lines(a.seeds_before) if a.seeds_before else [],
    }
    OUT.write_text(json.dumps(data, indent=1) + "\n")
    print(f"{OUT.relative_to(ROOT)}: written")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The viewer guide's pictures of the tuning panel: the live viewer (hidden window, EGL when
there is no display) with the panel shown, a setting or two tuned through it, drawn at 1280x800
and 640x400. Usage:

    python tools/tuning_screenshots.py [OUT_DIR]     # default docs/images
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from rigidflock import Simulation  # noqa: E402
from rigidflock.render.png import save_image  # noqa: E402
from rigidflock.render.window import Viewer  # noqa: E402

# scene, ticks before the picture, changes made through the panel at tick 60, row selected
SHOTS = (
    ("aidemo4", 600, {"rules.weights.cohesion": 2.5, "rules.weights.separation": 1.6}, 0),
    ("rts_crossing", 780, {"rules.weights.separation": 2.0, "groups[0].thrust": 14.0}, 2),
)
SIZES = ((1280, 800), (640, 400))


def main(argv: list[str]) -> int:
    out = Path(argv[0]) if argv else ROOT / "docs" / "images"
    for name, ticks, changes, row in SHOTS:
        for size in SIZES:
            v = Viewer(Simulation(name), size, visible=False, tuning=True)
            try:
                v.step_ticks(60)
                for path, value in changes.items():
                    v.controls.change(path, value)
                v.tuner.selected = row
                v.step_ticks(ticks - 60)
                path = out / f"tuning_{name}_{size[0]}x{size[1]}.png"
                save_image(path, v.capture()[..., :3])
                print(f"{path}: tick {v.sim.tick}, changes {v.sim.tuning.changes}")
            finally:
                v.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

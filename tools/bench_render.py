"""Viewer drawing cost: vertex building and whole frames at 1,000 and 10,000 units.

Frames are synthetic (random positions, headings and roles in a 4000 x 3000 world, eight
obstacles), drawn through the viewer's own renderer into a hidden 1280 x 800 window (headless
EGL when there is no display). Figures, each the median of ``--repeat`` runs:

- hulls: state arrays -> hull vertices and colours, written into the vertex list (numpy);
- layers: every world layer built and written (hulls, floor, obstacles; no overlays);
- frame: layers + HUD + draw + glFinish: what one interactive frame costs;
- frame+overlays: the same with vectors, feelers, targets and the cursor's view arc;
- msaa+read: a screenshot frame (4x multisampled target, resolve, glReadPixels).

Usage: python tools/bench_render.py [--units 1000 10000] [--repeat 30] [--size 1280x800]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from rigidflock.render import colors as C
from rigidflock.render.backend import HEADLESS, gl, make_window
from rigidflock.render.camera import fit_camera
from rigidflock.render.frame import Frame, Overlays, ViewModel
from rigidflock.render.hud import Hud
from rigidflock.render.layers import MIN_HULL_PX, Renderer
from rigidflock.render.offscreen import draw_to_array
from rigidflock.render.vertices import hull_scale

WORLD = (4000.0, 3000.0)


def synthetic_frame(n: int, seed: int = 0) -> Frame:
    rng = np.random.default_rng(seed)
    pos = rng.uniform((0, 0), WORLD, (n, 2))
    angle = rng.uniform(0, 2 * np.pi, n)
    vel = 7.0 * np.stack([np.cos(angle), np.sin(angle)], axis=1)
    family = (rng.random(n) < 0.5).astype(int)
    role = np.where(family == 1, 2, 1)
    leader = rng.random(n) < 0.1
    colors = C.unit_colors(family, role, leader, ("regular", "interceptor"))
    obstacles = np.column_stack([rng.uniform((200, 200), (3800, 2800), (8, 2)), np.full(8, 64.0)])
    zeros = np.zeros((n, 2))
    target = np.full((n, 2), np.nan)
    target[leader] = pos[leader] + 200.0
    return Frame(
        size=WORLD,
        bounds="wrap",
        pos=pos,
        angle=angle,
        length=np.full(n, 4.0),
        width=np.full(n, 2.0),
        colors=colors,
        obstacles=obstacles,
        role=role,
        vel=vel,
        forces={"thrust": (zeros, vel), "drag": (zeros, -vel), "bow": (zeros, vel[:, ::-1])},
        feeler=vel * 14.0,
        felt=np.full(n, -1),
        target=target,
        view=ViewModel("limited", np.full(n, 120.0), np.pi / 2),
    )


def median_ms(fn, repeat: int) -> float:
    fn()  # warm up (allocations, shader compile, glyphs)
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1e3


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--units", type=int, nargs="+", default=[1000, 10000])
    ap.add_argument("--repeat", type=int, default=30)
    ap.add_argument("--size", default="1280x800")
    args = ap.parse_args()
    w, h = (int(v) for v in args.size.split("x"))
    window = make_window((w, h), visible=False, samples=0)
    renderer = Renderer(window)
    camera = fit_camera(WORLD, (w, h))
    hud = Hud(subtitle="bench", status=[("units", "-")], legend=[(C.PLAYER, "player")])
    print(
        f"renderer: {gl.gl_info.get_renderer()} ({'headless EGL' if HEADLESS else 'window'}), "
        f"{w}x{h}, median of {args.repeat}"
    )
    heads = ("units", "hulls", "layers", "frame", "frame+ovl", "msaa+read")
    print(" ".join(f"{h:>10}" for h in heads))
    none, some = Overlays(), Overlays(vectors=True, feelers=True, targets=True, arcs="cursor")
    world = renderer.world
    for n in args.units:
        f = synthetic_frame(n)
        scale = hull_scale(f.length, camera.zoom, MIN_HULL_PX)

        def frame(overlays, f=f):
            renderer.draw(f, camera, overlays, hud, selected=0)
            gl.glFinish()

        hulls = median_ms(lambda f=f, scale=scale: world.write_hulls(f, scale), args.repeat)
        layers = median_ms(lambda f=f: world.update(f, camera, none), args.repeat)
        full = median_ms(lambda: frame(none), args.repeat)
        full_ovl = median_ms(lambda: frame(some), args.repeat)
        shot = median_ms(
            lambda f=f: draw_to_array(renderer, f, camera, none, hud), max(5, args.repeat // 3)
        )
        print(f"{n:>10} " + " ".join(f"{t:>8.2f}ms" for t in (hulls, layers, full, full_ovl, shot)))
    window.close()


if __name__ == "__main__":
    main()

"""The first run on a machine (or of edited sources): numba compiles the per-tick kernels
(several seconds) and caches them (:mod:`rigidflock.kernel_cache` says where); later runs load
them. :func:`kernels_cold` says whether that cache is empty, and :func:`warm_up` compiles the
kernels a scene needs with a throwaway simulation of a few ticks, so a front end can say so and
start its progress bar (and clock) afterwards. Only what the scene uses is compiled: a world
below ``blend.PARALLEL_FROM`` AI units runs the passes' one-thread twins (the parallel
kernels, the slowest to compile, are left for a large world), and the move orders' kernels
(line of sight, slot costs, the slot auction) wait for a scene that gives orders or places
buildings. :class:`CompileWatch` reports each kernel numba compiles, as it starts and ends,
for a progress line; the library logs them on the ``rigidflock.kernels`` logger.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from pathlib import Path

log = logging.getLogger("rigidflock.kernels")

# the modules with cached numba kernels
KERNEL_MODULES = (
    "rigidflock.model.steering.pair_pass",
    "rigidflock.model.steering.unit_pass",
    "rigidflock.model.steering.cells",
    "rigidflock.model.steering.clearmap",
    "rigidflock.model.vehicle",
    "rigidflock.model.world",
    "rigidflock.model.torus",
    "rigidflock.model.measures.alignment",
    "rigidflock.model.measures.spacing",
    "rigidflock.model.measures.flocks",
    "rigidflock.model.measures.pins",
    "rigidflock.model.steering.unpin",
    "rigidflock.model.steering.give_way",
    "rigidflock.rts.assignment",
    "rigidflock.rts.sight",
    "rigidflock.rts.slots",
    "rigidflock.rts.route_search",
)


# the modules whose kernels only move orders use
ORDER_MODULES = (
    "rigidflock.rts.assignment",
    "rigidflock.rts.sight",
    "rigidflock.rts.slots",
    "rigidflock.rts.route_search",
)
# the passes' kernels, each in its parallel form or its one-thread twin ("<name>_serial")
PASSES = (
    ("rigidflock.model.steering.pair_pass", "pair_pass"),
    ("rigidflock.model.steering.unit_pass", "unit_pass"),
)


def _cache_dirs(module_file: Path) -> list[Path]:
    """Where numba looks for a module's cached kernels: this process's directory of them
    (:func:`rigidflock.kernel_cache.directory`), else numba's own place beside the module."""
    from rigidflock import kernel_cache

    where = kernel_cache.directory()
    return [where] if where is not None else [module_file.parent / "__pycache__"]


def _needed(scene) -> list[tuple[str, str]]:
    """(module, kernel name or "*") pairs whose cache ``scene`` needs (None: every module)."""
    if scene is None:
        return [(m, "*") for m in KERNEL_MODULES]
    orders = gives_orders(scene)
    needed = [(m, "*") for m in KERNEL_MODULES if orders or m not in ORDER_MODULES]
    twin = "" if runs_parallel(scene) else "_serial"
    return needed + [(m, name + twin) for m, name in PASSES]


def kernels_cold(scene=None) -> bool:
    """True when the next simulation of ``scene`` (None: of any scene) will compile: some
    kernel it needs has no cached index file (``<module>.<kernel>-*.nbi``) in the place numba
    looks first."""
    import importlib.util

    for name, kernel in _needed(scene):
        spec = importlib.util.find_spec(name)
        if spec is None or spec.origin is None:
            continue
        path = Path(spec.origin)
        pattern = f"{path.stem}.{kernel}-*.nbi" if kernel != "*" else f"{path.stem}.*.nbi"
        if not any(
            next(d.rglob(pattern), None) is not None for d in _cache_dirs(path) if d.is_dir()
        ):
            return True
    return False


class CompileWatch:
    """Within ``with CompileWatch(report):``, ``report(event)`` is called as each of this
    package's kernels starts and ends compiling (``event``: a :class:`CompileEvent`), from the
    thread that compiles it; each is also logged (INFO, ``rigidflock.kernels``). Kernels loaded
    from the cache report nothing. ``compiled``: the kernels finished so far."""

    def __init__(self, report: Callable[[CompileEvent], None] | None = None):
        self.report = report
        self.compiled = 0
        self.started = 0.0
        self._stack = None

    def __enter__(self) -> CompileWatch:
        from numba.core import event

        watch = self

        class _Listener(event.Listener):
            def on_start(self, ev):
                watch._event(ev, done=False)

            def on_end(self, ev):
                watch._event(ev, done=True)

        self.started = time.perf_counter()
        self._stack = event.install_listener("numba:compile", _Listener())
        self._stack.__enter__()
        return self

    def __exit__(self, *exc) -> None:
        stack, self._stack = self._stack, None
        stack.__exit__(*exc)

    def _event(self, ev, done: bool) -> None:
        py = getattr(ev.data.get("dispatcher"), "py_func", None)
        module = getattr(py, "__module__", "") or ""
        if not module.startswith("rigidflock."):
            return  # someone else's function, compiled meanwhile
        self.compiled += done
        e = CompileEvent(
            f"{module.rsplit('.', 1)[-1]}.{py.__name__}", done, self.compiled,
            time.perf_counter() - self.started, threading.current_thread().name,
        )  # fmt: skip
        log.info("%s %s (%d compiled, %.1f s)", "compiled" if done else "compiling", e.kernel,
                 e.compiled, e.seconds)  # fmt: skip
        if self.report is not None:
            self.report(e)


class CompileEvent:
    """One kernel starting (``done`` False) or ending compiling: ``kernel`` ("module.name"),
    ``compiled`` (kernels finished so far), ``seconds`` since the watch began, ``thread``."""

    __slots__ = ("compiled", "done", "kernel", "seconds", "thread")

    def __init__(self, kernel: str, done: bool, compiled: int, seconds: float, thread: str):
        self.kernel, self.done, self.compiled = kernel, done, compiled
        self.seconds, self.thread = seconds, thread

    def __repr__(self) -> str:
        state = "compiled" if self.done else "compiling"
        return f"CompileEvent({state} {self.kernel}, {self.compiled} done, {self.seconds:.1f} s)"


def warm_up(scene, ticks: int = 2, report: Callable[[CompileEvent], None] | None = None) -> float:
    """Compile the kernels ``scene`` needs, the tick's and the run metrics', with a throwaway
    run of a few ticks (no output files); returns the seconds it took. ``report``: called as
    each kernel starts and ends compiling (:class:`CompileWatch`). The one warm-up: the CLI
    calls it before its progress bar, sweeps before their fan-out, workers when they start."""
    from rigidflock.runs.runner import run_scene

    t0 = time.perf_counter()
    with CompileWatch(report):
        run_scene(scene, ticks)
        _rare_kernels(scene)
    return time.perf_counter() - t0


def runs_parallel(scene) -> bool:
    """Whether a simulation of ``scene`` runs the passes' parallel kernels (not their twins):
    a large world, unless its decision runs beside the step, on one thread."""
    from rigidflock.model.steering.blend import uses_parallel

    beside = scene.world.reaction_ticks == 1
    return uses_parallel(scene.unit_count, 1 if beside else None)


def gives_orders(scene) -> bool:
    """Whether ``scene`` uses the move orders' kernels: it gives orders or has buildings (at
    the start or placed by an event). A viewer's order in another scene compiles them then."""
    return bool(scene.orders or scene.buildings or scene.events)  # events place buildings


def _rare_kernels(scene) -> None:
    """Compile the kernels a short run of ``scene`` may not reach (a unit with nobody within
    the search radius, the other thread count's neighbour rebuild of a large world, move
    orders' sight, slot costs and slot auction in a scene that gives orders): else the first
    long run pays for them mid-run (~3 ms of a 10,000-unit tick, once; ~1 s for the auction)."""
    import numpy as np

    from rigidflock.model.measures.spacing import nn_completed
    from rigidflock.model.steering import cells

    pos = np.array([[0.0, 0.0], [1.0, 0.0], [50.0, 50.0]])
    # read-only, as the collector passes the simulation's arrays (numba compiles those apart)
    within, seen = np.array([1.0, 1.0, np.inf]), pos.copy()
    within.flags.writeable = seen.flags.writeable = False
    nn_completed(within, seen, None, 5.0)
    for wrap, (w, h) in ((False, (0.0, 0.0)), (True, (60.0, 60.0))):
        if runs_parallel(scene):
            cells.ordered_rows(pos, 5.0, w, h, wrap)
        cells.ordered_rows_serial(pos, 5.0, w, h, wrap)
    if gives_orders(scene):
        move_order_kernels()


def move_order_kernels() -> None:
    """Compile the move orders' kernels: line of sight (a scene without orders never asks), the
    route search, the slots' costs (a group at its formation) and auction (groups of
    AUCTION_FROM units or more)."""
    import numpy as np

    from rigidflock.rts import navigation
    from rigidflock.rts.assignment import SCALING, auction
    from rigidflock.rts.slots import slot_cost

    pos = np.array([[0.0, 0.0], [1.0, 0.0], [50.0, 50.0]])
    grid = navigation.build_grid((8.0, 8.0), 2.0, 0.5)
    grid.sees(pos[:2], pos[1:])
    navigation.distance_field(grid, np.array([4.0, 4.0]))  # the route search
    slot_cost(pos, np.ones(3), np.zeros(3), np.ones(3), pos, np.empty((3, 3)))
    auction(np.eye(2), 1e-3, SCALING)

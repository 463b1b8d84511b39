"""The passes' one-thread twins: the same bits as the parallel kernels, chosen by world size,
and only what a run uses is compiled."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from rigidflock import Simulation
from rigidflock.model.steering.blend import PARALLEL_FROM, uses_parallel

SCENE = """
seed = {seed}
[world]
size = [300.0, 220.0]
bounds = "{bounds}"
[rules]
view = "{view}"
[[groups]]
family = "a"
count = 60
spawn = {{ radius = 100.0 }}
[[groups]]
family = "b"
role = "chase"
count = 20
spawn = {{ radius = 100.0 }}
[[obstacles]]
center = [70.0, 60.0]
radius = 14.0
[player]
position = [150.0, 40.0]
control = "none"
"""


def states(sim: Simulation, ticks: int) -> bytes:
    out = []
    for _ in range(ticks):
        sim.step()
        st = sim.state
        out += [st.pos.tobytes(), st.vel.tobytes(), st.angle.tobytes(), st.omega.tobytes()]
    return b"".join(out)


@pytest.mark.parametrize(
    ("seed", "bounds", "view"),
    [(1, "wrap", "wide"), (2, "walls", "limited"), (3, "open", "narrow"), (4, "walls", "wide")],
)
def test_serial_twins_give_the_parallel_kernels_bits(scene_from, seed, bounds, view):
    """A speed choice changes no result: every parallel loop of the passes writes each unit's
    own outputs in a fixed order, so the twins compiled without ``parallel`` write the same
    bits, tick after tick (300 ticks: rebuilt neighbour lists, chases, obstacle feelers)."""
    sc = scene_from(SCENE.format(seed=seed, bounds=bounds, view=view))
    par, ser = Simulation(sc, parallel=True), Simulation(sc, parallel=False)
    assert par.steerer.parallel and not ser.steerer.parallel
    assert states(par, 300) == states(ser, 300)


def test_move_orders_run_the_same_on_either_kernels():
    """An RTS scene (orders, buildings, formations) through its first 400 ticks."""
    par, ser = Simulation("rts_doorway", parallel=True), Simulation("rts_doorway", parallel=False)
    assert states(par, 400) == states(ser, 400)


def test_the_world_size_chooses_the_kernels(scene_from):
    """Small worlds run the twins (fast to compile, and one thread is as fast there); from
    PARALLEL_FROM AI units, the parallel kernels, unless one thread is all there is."""
    small = Simulation(scene_from(SCENE.format(seed=1, bounds="wrap", view="wide")))
    assert not small.steerer.parallel
    assert uses_parallel(PARALLEL_FROM, 2) and not uses_parallel(PARALLEL_FROM - 1, 2)
    assert not uses_parallel(10 * PARALLEL_FROM, 1)


PROBE = """
import json, sys
from rigidflock import Simulation
from rigidflock.model.steering import cells, pair_pass, unit_pass
from rigidflock.rts import assignment, sight, slots
from rigidflock.runs.warmup import warm_up
warm_up(Simulation(sys.argv[1]).scene)
kinds = {
    "parallel": [pair_pass.pair_pass, pair_pass.gather_rows, unit_pass.unit_pass,
                 cells.ordered_rows],
    "serial": [pair_pass.pair_pass_serial, unit_pass.unit_pass_serial],
    "orders": [assignment.auction, sight.sees_kernel, slots.slot_cost],
}
print(json.dumps({k: sum(len(d.signatures) for d in v) for k, v in kinds.items()}))
"""


@pytest.mark.parametrize(("scene", "orders"), [("aidemo4", False), ("rts_doorway", True)])
def test_a_small_scene_loads_only_the_kernels_it_runs(scene, orders):
    """In a fresh process, warming a small scene up brings in the twins and not the parallel
    kernels (the slowest to compile), and the move orders' kernels only for a scene with
    orders (here loaded from the cache, which compiling or loading both count)."""
    done = subprocess.run(
        [sys.executable, "-c", PROBE, scene], capture_output=True, text=True, check=True
    )
    got = json.loads(done.stdout.strip().splitlines()[-1])
    assert got["parallel"] == 0
    assert got["serial"] == 2
    assert (got["orders"] > 0) == orders


def test_the_compile_watch_reports_this_packages_kernels_only():
    """A kernel compiled inside the watch is reported as it starts and ends; one of somebody
    else's (here a function defined in this test) is not."""
    import numba

    from rigidflock.runs.warmup import CompileWatch

    @numba.njit
    def theirs(x):
        return x + 1

    seen = []
    with CompileWatch(seen.append) as watch:
        theirs(1)
    assert seen == [] and watch.compiled == 0
    assert np.isfinite(watch.started)


WATCHED = """
import json
import os
import numpy as np
from rigidflock.model import torus
from rigidflock.runs.warmup import CompileWatch
seen = []
with CompileWatch(seen.append) as watch:
    torus.outside(np.zeros((3, 2)), 1.0, 1.0)
print(json.dumps([[e.kernel, e.done, e.compiled] for e in seen]))
"""


def test_the_compile_watch_reports_a_kernel_compiling(tmp_path):
    """With an empty cache (a fresh user cache directory) the kernel compiles, and the watch
    says so as it starts and when it is done."""
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path)}
    env.pop("NUMBA_CACHE_DIR", None)
    done = subprocess.run(
        [sys.executable, "-c", WATCHED], capture_output=True, text=True, check=True, env=env
    )
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert ["torus.outside", False, 0] in seen and ["torus.outside", True, 1] in seen

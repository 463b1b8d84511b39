"""tools/bench_kernels.py: the tick's own kernel calls, timed as the tick makes them."""

import numpy as np

from rigidflock.bench import bench_scene
from rigidflock.model import vehicle
from rigidflock.model.steering import pair_pass, unit_pass
from rigidflock.sim import Simulation
from tests.conftest import load_tool, trajectory

tool = load_tool("bench_kernels")
KERNELS = tuple(
    (m, name + twin)
    for m, name in ((pair_pass, "gather_rows"), (pair_pass, "pair_pass"), (unit_pass, "unit_pass"))
    for twin in ("", "_serial")
)


def test_in_tick_times_each_call_the_ticks_make_and_leaves_the_run_as_it_was():
    """One time per tick for each kernel and for the batch read (the read a tick makes after
    its step; 5 ticks), and the wrapped functions put back afterwards: the run goes on as a run
    that was never timed, bit for bit."""
    timed, plain = Simulation(bench_scene(400)), Simulation(bench_scene(400))
    before = {(m, name): getattr(m, name) for m, name in KERNELS}
    forces = vehicle.vehicle_forces_rows
    seen = tool.in_tick(timed, 5)
    trajectory(plain, 5)
    names = {"gather_rows", "pair_pass", "unit_pass", "vehicle_forces_rows", "read",
             "write_forces"}  # fmt: skip
    assert set(seen) == names
    for name, ts in seen.items():
        assert len(ts) == 5, name
        assert all(t > 0 for t in ts)
    assert {(m, name): getattr(m, name) for m, name in before} == before
    assert vehicle.vehicle_forces_rows is forces
    assert "read" not in vars(timed.world) and "write_forces" not in vars(timed.world)
    assert np.array_equal(trajectory(timed, 20), trajectory(plain, 20))

"""The simulation's read-only view for measuring: views of its own arrays, not writable, and
the figures of the tick."""

import numpy as np
import pytest

from rigidflock.scene import load_scene
from rigidflock.sim import Simulation
from tests.conftest import ROOT


def test_the_view_is_read_only_and_shares_the_simulation_arrays():
    sim = Simulation(load_scene(ROOT / "scenes" / "aidemo4.toml"), seed=2)
    sim.step()
    view = sim.measurables()
    n = sim.units.n_ai
    assert view.tick == sim.tick == 1 and view.n_ai == n and view.dt == sim.scene.world.dt
    arrays = [view.pos, view.vel, view.heading, view.leader, view.family, view.role, view.cruise]
    arrays += [view.pairs_pos, view.nn_within, view.touching, view.player_pos]
    for a in arrays:
        with pytest.raises(ValueError):
            a[...] = 0
    assert np.shares_memory(view.pos, sim.state.pos) and len(view.pos) == n
    assert np.shares_memory(view.heading, sim.steering.heading)
    np.testing.assert_array_equal(view.player_pos, sim.state.pos[-1])
    np.testing.assert_array_equal(view.cruise, sim.units.cruise_speed[:n])
    assert sim.state.pos.flags.writeable  # the simulation's own arrays stay writable
    assert view.stuck is None and len(view.arrived) == 0  # no move orders
    with pytest.raises(AttributeError):
        view.tick = 5  # frozen


def test_the_orders_progress_in_the_view():
    """rts_doorway's order is given at tick 30: from then its group's arrivals and stuck flags
    are in the view."""
    sim = Simulation(load_scene(ROOT / "scenes" / "rts_doorway.toml"))
    for _ in range(31):
        sim.step()
    view = sim.measurables()
    (group,) = sim.orders.groups.values()
    assert view.stuck is not None and view.stuck.shape == (sim.units.n,)
    assert list(view.arrived) == [group.id]
    np.testing.assert_array_equal(view.arrived[group.id], group.arrived)
    assert view.box is None and view.player_pos is None
    with pytest.raises(TypeError):
        view.arrived[group.id] = None  # a read-only mapping

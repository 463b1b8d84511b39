"""The command codec: commands as JSON and back, and only command types rebuilt."""

import dataclasses
import json

import numpy as np
import pytest

from rigidflock import Command, Simulation, load_scene
from rigidflock.replay import (
    Recorder,
    ReplayError,
    ReplayReader,
    command_matters,
    from_jsonable,
    to_jsonable,
    verify,
)
from rigidflock.replay.codec import COMMAND_TYPES
from tests.replay.recording import AIDEMO4, assert_same, record_run


def test_default_command_is_the_same_as_none(tmp_path):
    """Ticks whose command is None or Command() are not stored: the simulation must treat
    both alike."""
    a, b = Simulation(load_scene(AIDEMO4)), Simulation(load_scene(AIDEMO4))
    for _ in range(60):
        a.step(None)
        b.step(Command())
    assert np.array_equal(a.state.pos, b.state.pos) and np.array_equal(a.state.vel, b.state.vel)
    assert not command_matters(None) and not command_matters(Command())
    assert command_matters(Command(throttle=0.0))


def test_command_codec_round_trips_nested_dataclasses():
    cmd = Command(throttle=-0.5, steer=1.0, toggles=(("view", "narrow"), ("chase", False)))
    data = to_jsonable(cmd)
    assert from_jsonable(data) == cmd
    assert from_jsonable(json.loads(json.dumps(data))) == cmd


def test_command_with_an_unknown_field_is_a_clear_error(tmp_path):
    @dataclasses.dataclass(frozen=True)
    class Command:  # a "newer" Command with a field this version lacks
        throttle: float | None = None
        warp: float = 9.0

    sim = Simulation(load_scene(AIDEMO4))
    path = tmp_path / "newer.rfr"
    with Recorder(path, sim) as rec:
        rec.record(Command(throttle=1.0), sim.step())
    with ReplayReader(path) as r, pytest.raises(ReplayError, match="no field 'warp'"):
        r.inputs()


def test_commands_with_move_orders_round_trip_when_the_simulation_has_them(tmp_path):
    """Move orders (nested frozen dataclasses inside Command) round-trip through the codec."""
    from rigidflock.scene import OrderSpec, SelectSpec

    order = OrderSpec(select=SelectSpec(ids=(0, 1, 2)), goal=(400.0, 300.0))
    cmd = Command(orders=(order,))
    assert from_jsonable(json.loads(json.dumps(to_jsonable(cmd)))) == cmd
    path = tmp_path / "orders.rfr"
    live = record_run(path, AIDEMO4, 60, commands={10: cmd})
    with ReplayReader(path) as r:
        assert r.inputs()[10] == cmd
        assert_same(r, live, "compact")
        assert verify(r).ok


def test_the_types_a_file_may_rebuild_are_the_command_types():
    assert sorted(COMMAND_TYPES) == ["BuildingSpec", "Command", "OrderSpec", "SelectSpec"]


# Types the simulation's modules know that a command never holds: a file naming one is malformed.
REFUSED = ["Scene", "Units", "Steering", "World", "StepEvents", "RulesSpec", "State", "Path"]


@pytest.mark.parametrize("name", REFUSED)
def test_a_non_command_type_is_refused(name):
    with pytest.raises(ValueError, match=f"unknown type '{name}'"):
        from_jsonable({"__type__": name})
    nested = to_jsonable(Command(throttle=1.0))
    nested["orders"] = [{"__type__": name}]
    with pytest.raises(ValueError, match=f"unknown type '{name}'"):
        from_jsonable(nested)


@pytest.mark.parametrize("name", ["Scene", "World"])
def test_a_file_naming_a_non_command_type_is_a_malformed_file(tmp_path, name):
    fake = dataclasses.make_dataclass(name, [("seed", int, 3)], frozen=True)
    sim = Simulation(load_scene(AIDEMO4))
    path = tmp_path / "crafted.rfr"
    with Recorder(path, sim) as rec:
        rec.record(fake(), sim.step())  # stored at the top level
        rec.record(Command(orders=(fake(),)), sim.step())  # and nested inside a Command
    with ReplayReader(path) as r:
        with pytest.raises(ReplayError, match=f"command at tick 0: unknown type '{name}'") as e:
            r.inputs()
        assert str(e.value).startswith(str(path)) and "\n" not in str(e.value)
        with pytest.raises(ReplayError, match=f"unknown type '{name}'"):
            verify(r)


def test_a_registry_limits_what_is_rebuilt():
    data = to_jsonable(Command(throttle=1.0))
    assert from_jsonable(data, {"Command": Command}) == Command(throttle=1.0)
    with pytest.raises(ValueError, match="unknown type 'Command'"):
        from_jsonable(data, {})

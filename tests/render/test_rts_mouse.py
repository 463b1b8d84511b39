"""The live viewer's mouse and B key (render/rts_mouse.py) driven by synthetic events into the
simulation's commands. Runs headless (pyglet's EGL mode)."""

import numpy as np
import pytest

from rigidflock import Simulation, load_scene
from tests.conftest import ROOT

DOORWAY = ROOT / "scenes" / "rts_doorway.toml"


@pytest.fixture
def doorway_viewer():
    from rigidflock.render.window import Viewer

    v = Viewer(Simulation(load_scene(DOORWAY)), (1000, 700), visible=False)
    v.commands = []
    v.on_command = lambda tick, command: v.commands.append((tick, command))
    v.step_ticks(5)  # the scene's own order comes at tick 30
    yield v
    v.close()


def send(viewer, name, *args):
    viewer.window.dispatch_event(name, *args)
    viewer.window.dispatch_events()  # outside pyglet.app.run events are only queued


def screen(viewer, xy):
    return tuple(float(v) for v in viewer.camera.world_to_screen(xy))


def drag(viewer, button, a, b, modifiers=0, steps=5):
    send(viewer, "on_mouse_press", *a, button, modifiers)
    prev = a
    for t in np.linspace(0, 1, steps + 1)[1:]:
        p = (a[0] + t * (b[0] - a[0]), a[1] + t * (b[1] - a[1]))
        send(viewer, "on_mouse_drag", *p, p[0] - prev[0], p[1] - prev[1], button, modifiers)
        prev = p
    send(viewer, "on_mouse_release", *b, button, modifiers)


def click(viewer, button, xy, modifiers=0):
    send(viewer, "on_mouse_press", *xy, button, modifiers)
    send(viewer, "on_mouse_release", *xy, button, modifiers)


def test_drag_selects_shift_click_adds_and_right_click_orders(doorway_viewer, tmp_path):
    from rigidflock.render.backend import key, mouse

    v = doorway_viewer
    sim = v.sim
    pos = sim.state.pos.copy()
    lo, hi = np.array([40.0, 100.0]), np.array([120.0, 180.0])
    inside = np.flatnonzero(((pos >= lo) & (pos <= hi)).all(axis=1))
    assert 3 <= len(inside) < sim.units.n_ai
    drag(v, mouse.LEFT, screen(v, lo), screen(v, hi))
    assert v.selection.tolist() == inside.tolist()
    assert v.marquee is None  # the rectangle goes when the button is released
    camera = (v.camera.center, v.camera.zoom)
    assert (v.camera.center, v.camera.zoom) == camera  # a left drag does not pan

    outside = [i for i in range(sim.units.n_ai) if i not in inside]
    extra = min(outside, key=lambda i: -np.hypot(*(pos[i] - pos[inside].mean(0))))  # far away
    click(v, mouse.LEFT, screen(v, pos[extra]), key.MOD_SHIFT)
    chosen = sorted([*inside.tolist(), extra])
    assert v.selection.tolist() == chosen

    goal = (320.0, 150.0)
    click(v, mouse.RIGHT, screen(v, goal))
    assert not sim.orders.groups  # orders wait for the next tick
    v.save_screenshot(tmp_path / "selected.png")
    v.step_ticks(1)
    tick, command = v.commands[-1]
    assert len(command.orders) == 1
    assert command.orders[0].select.ids == tuple(chosen)
    (group,) = sim.orders.groups.values()
    assert sorted(group.members.tolist()) == chosen
    np.testing.assert_allclose(group.goal, goal, atol=1e-6)
    assert v.input_log[-1] == (tick, command)  # what a recording started later replays
    v.step_ticks(30)
    v.draw()  # routes, slots and selection rings draw without error
    v.save_screenshot(tmp_path / "ordered.png")

    # a click on empty floor clears the selection; a right click then orders nobody
    click(v, mouse.LEFT, screen(v, (380.0, 20.0)))
    assert len(v.selection) == 0
    n = len(v.commands)
    click(v, mouse.RIGHT, screen(v, goal))
    v.step_ticks(1)
    assert v.commands[n][1].orders == ()
    assert "nothing selected" in v.message


def test_right_drag_pans_and_gives_no_order(doorway_viewer):
    from rigidflock.render.backend import mouse

    v = doorway_viewer
    v.selection = np.array([0, 1])
    before = v.camera.center
    drag(v, mouse.RIGHT, (600.0, 300.0), (700.0, 340.0))
    panned = v.camera.center
    assert panned[0] < before[0] and panned[1] < before[1]  # the picture follows the mouse
    v.step_ticks(1)
    assert v.commands[-1][1].orders == ()
    drag(v, mouse.MIDDLE, (600.0, 300.0), (500.0, 300.0))
    assert v.camera.center[0] > panned[0]


def test_an_order_into_a_wall_goes_to_the_nearest_free_spot(doorway_viewer):
    from rigidflock.render.backend import mouse

    v = doorway_viewer
    v.selection = np.arange(5)
    click(v, mouse.RIGHT, screen(v, (200.0, 50.0)))  # on the dividing wall
    v.step_ticks(1)
    (order,) = v.commands[-1][1].orders
    assert order.goal != (200.0, 50.0)
    assert v.sim.orders.grid.is_free(np.array([order.goal]))[0]
    assert abs(order.goal[0] - 200.0) < 3.0 + v.sim.orders.clearance + 4.0
    assert "goal moved" in v.message


def test_b_adds_a_building_at_the_cursor_through_the_command(doorway_viewer):
    from rigidflock.render.backend import key

    v = doorway_viewer
    sim = v.sim
    n = len(sim.orders.buildings)
    send(v, "on_mouse_motion", *screen(v, (300.0, 200.0)), 0, 0)
    send(v, "on_key_press", key.B, 0)
    assert len(sim.orders.buildings) == n  # placed at the next tick
    v.step_ticks(1)
    _, command = v.commands[-1]
    (b,) = command.add_buildings
    poly = np.asarray(b.polygon)
    np.testing.assert_allclose(poly.mean(axis=0), (300.0, 200.0), atol=1e-9)
    assert np.ptp(poly[:, 0]) == pytest.approx(8 * 4.0)  # 8 unit lengths
    assert len(sim.orders.buildings) == n + 1
    assert not sim.orders.grid.is_free(np.array([[300.0, 200.0]]))[0]  # routes avoid it
    # the same place again: refused, nothing queued
    send(v, "on_key_press", key.B, 0)
    v.step_ticks(1)
    assert v.commands[-1][1].add_buildings == () and "overlap another building" in v.message
    # on top of a unit: refused
    send(v, "on_mouse_motion", *screen(v, sim.state.pos[0]), 0, 0)
    send(v, "on_key_press", key.B, 0)
    v.step_ticks(1)
    assert v.commands[-1][1].add_buildings == () and "cover a unit" in v.message
    assert len(sim.orders.buildings) == n + 1
    v.draw()

"""The viewer: screenshots checked pixel by pixel, the keyboard path driven by synthetic key
events, and the CLI's ``view`` subcommand. Runs headless (pyglet's EGL mode) without a display."""

import subprocess
import sys

import numpy as np
import pytest

from rigidflock import Simulation, load_scene
from rigidflock.cli import main
from rigidflock.model.state import ROLE_INTERCEPT
from rigidflock.render import colors as C
from rigidflock.render.camera import fit_camera
from rigidflock.render.frame import Frame, Overlays
from rigidflock.render.png import read_png
from tests.conftest import ROOT

AIDEMO4 = ROOT / "scenes" / "aidemo4.toml"
TICKS = 120


def near(image, color, tol=40):
    """Mask of pixels within ``tol`` of ``color`` in every RGB channel."""
    diff = np.abs(image[..., :3].astype(int) - np.asarray(color[:3], int))
    return (diff <= tol).all(axis=-1)


@pytest.fixture(scope="module")
def aidemo4_shot(tmp_path_factory):
    out = tmp_path_factory.mktemp("shots") / "aidemo4.png"
    size = (1200, 760)
    rc = main(
        [
            "view",
            str(AIDEMO4),
            "--ticks",
            str(TICKS),
            "--screenshot",
            str(out),
            "--size",
            "1200x760",
        ]
    )
    assert rc == 0
    sim = Simulation(load_scene(AIDEMO4))  # the same run: same scene, seed and (no) inputs
    for _ in range(TICKS):
        sim.step()
    return read_png(out), sim, size


def test_screenshot_is_the_requested_size(aidemo4_shot):
    image, _, (w, h) = aidemo4_shot
    assert image.shape == (h, w, 3)


def test_screenshot_shows_every_role_colour(aidemo4_shot):
    image, sim, _ = aidemo4_shot
    leader = sim.state.leader
    role = sim.units.role
    # The run has what the picture must show: leaders, and interceptors and regulars that follow.
    assert leader.any()
    assert ((role == ROLE_INTERCEPT) & ~leader).any()
    assert ((role != ROLE_INTERCEPT) & ~leader)[: sim.units.n_ai].any()
    for name, color in (
        ("player green", C.PLAYER),
        ("leader red", C.LEADER),
        ("interceptor magenta", C.INTERCEPTOR),
        ("regular blue", C.FAMILY_PALETTE[0]),
    ):
        # Hulls are drawn >= 12 px long, ~40 px of fill each; the legend swatch alone is 18x9.
        world = near(image, color, tol=30)
        world[:, :250] = False  # leave out the side panel's legend
        assert world.sum() >= 20, f"{name} not in the picture"


def test_screenshot_puts_obstacles_where_the_scene_does(aidemo4_shot):
    image, sim, size = aidemo4_shot
    cam = fit_camera(sim.scene.world.size, size)
    obstacles = sim.obstacles
    assert len(obstacles) == 8
    angles = np.linspace(0, 2 * np.pi, 12, endpoint=False)
    ring = np.stack([np.cos(angles), np.sin(angles)], axis=1)
    for cx, cy, r in obstacles:
        inner = (r - 1.0 / cam.zoom) * ring + (cx, cy)  # 1 px inside the rim
        outer = (r + 6.0 / cam.zoom) * ring + (cx, cy)  # 6 px outside it
        hits = []
        for points in (inner, outer):
            px = np.floor(cam.world_to_pixel(points)).astype(int)
            hits.append(near(image[px[:, 1], px[:, 0]], C.OBSTACLE_RIM, tol=45).sum())
        assert hits[0] >= 10, f"rim of obstacle at ({cx:.0f}, {cy:.0f}): {hits[0]}/12 pixels"
        assert hits[1] <= 1, f"obstacle at ({cx:.0f}, {cy:.0f}) is drawn too large"
        col, row = np.floor(cam.world_to_pixel((cx, cy))).astype(int)
        assert near(image[row, col], C.OBSTACLE_FILL, tol=12), "obstacle centre not filled"


def test_render_frame_draws_plain_arrays():
    from rigidflock.render.offscreen import render_frame

    red, blue = (250, 20, 20, 255), (20, 20, 250, 255)
    frame = Frame(
        size=(200.0, 100.0),
        bounds="walls",
        pos=np.array([[50.0, 50.0], [150.0, 50.0]]),
        angle=np.array([0.0, np.pi / 2]),
        length=np.array([40.0, 40.0]),
        width=np.array([20.0, 20.0]),
        colors=np.array([red, blue], np.uint8),
        obstacles=np.array([[100.0, 80.0, 10.0]]),
    )
    empty = Frame(
        (200.0, 100.0),
        "walls",
        *(np.zeros((0, 2)), np.zeros(0), np.zeros(0), np.zeros(0)),
        colors=np.zeros((0, 4), np.uint8),
    )
    render_frame(empty, (400, 200))  # layers that were empty must still draw when they fill
    image = render_frame(frame, (400, 200))
    assert image.shape == (200, 400, 4)
    cam = fit_camera(frame.size, (400, 200))
    for (x, y), color in (((50, 50), red), ((150, 50), blue), ((100, 80), C.OBSTACLE_FILL)):
        col, row = np.floor(cam.world_to_pixel((x, y))).astype(int)
        assert near(image[row, col], color, tol=3), (x, y, image[row, col])
    # The first unit points along +x: its nose is 20 units ahead, its tail is not 20 behind + 3.
    col, row = np.floor(cam.world_to_pixel((50 + 17, 50))).astype(int)
    assert near(image[row, col], red, tol=3)
    col, row = np.floor(cam.world_to_pixel((50, 50 + 15))).astype(int)
    assert not near(image[row, col], red, tol=60)


def test_overlays_draw_their_colours():
    from rigidflock.render.frame import frame_from_sim
    from rigidflock.render.hud import sim_hud
    from rigidflock.render.offscreen import render_frame

    sim = Simulation(load_scene(AIDEMO4))
    for _ in range(60):
        sim.step()
    frame = frame_from_sim(sim)
    plain = render_frame(frame, (900, 600), hud=sim_hud(sim))
    extra = render_frame(
        frame, (900, 600), overlays=Overlays.parse("all"), hud=sim_hud(sim), selected=0
    )
    for color in (C.THRUST, C.VELOCITY, C.BOW):
        assert near(extra, color, 20).sum() > near(plain, color, 20).sum() + 10


# -- the keyboard path ---------------------------------------------------------------------------


@pytest.fixture
def viewer():
    from rigidflock.render.window import Viewer

    v = Viewer(Simulation(load_scene(AIDEMO4)), (800, 600), visible=False)
    yield v
    v.close()


def press(viewer, symbol, modifiers=0):
    viewer.window.dispatch_event("on_key_press", symbol, modifiers)
    viewer.window.dispatch_events()  # outside pyglet.app.run events are only queued


def release(viewer, symbol, modifiers=0):
    viewer.window.dispatch_event("on_key_release", symbol, modifiers)
    viewer.window.dispatch_events()


def test_arrow_keys_turn_the_player_left_and_right(viewer):
    from rigidflock.render.backend import key

    sim = viewer.sim
    commands = []
    viewer.on_command = lambda tick, command: commands.append(command)
    viewer.step_ticks(5)
    assert commands[-1].steer is None  # the autopilot drives until an arrow is pressed
    a0 = sim.state.angle[-1]
    press(viewer, key.UP)
    press(viewer, key.LEFT)
    viewer.step_ticks(40)
    a1 = sim.state.angle[-1]
    assert sim.player_command == (1.0, 1.0)
    assert a1 - a0 > 0.15  # counter-clockwise: to port
    release(viewer, key.LEFT)
    press(viewer, key.RIGHT)
    viewer.step_ticks(40)
    assert sim.player_command == (1.0, -1.0)
    assert sim.state.angle[-1] - a1 < -0.15
    release(viewer, key.RIGHT)
    release(viewer, key.UP)
    viewer.step_ticks(1)
    assert sim.player_command == (0.0, 0.0)  # keyboard driving, no key held: coast
    assert commands[-1].throttle == 0.0


def test_keys_switch_the_view_model_and_rules_through_commands(viewer):
    from rigidflock.render.backend import key

    sim = viewer.sim
    commands = []
    viewer.on_command = lambda tick, command: commands.append(command)
    assert sim.rules.view == "wide"
    press(viewer, key._3)
    assert sim.rules.view == "wide"  # switches wait for the next tick
    viewer.step_ticks(1)
    assert sim.rules.view == "narrow"
    assert commands[-1].toggles == (("view", "narrow"),)
    press(viewer, key._2)
    press(viewer, key.F)
    press(viewer, key.O)
    viewer.step_ticks(1)
    assert sim.rules.view == "limited"
    assert not sim.rules.flocking and not sim.rules.avoidance and sim.rules.chase
    press(viewer, key._1)
    press(viewer, key.C)
    press(viewer, key.F)
    viewer.step_ticks(1)
    assert sim.rules.view == "wide" and sim.rules.flocking and not sim.rules.chase


def test_pause_single_step_speed_and_quit(viewer):
    from rigidflock.render.backend import key

    sim = viewer.sim
    viewer.tick_budget = 60.0  # count ticks, not machine speed
    press(viewer, key.SPACE)
    assert viewer.advance(1.0) == 0 and sim.tick == 0
    press(viewer, key.PERIOD)
    assert sim.tick == 1
    press(viewer, key.SPACE)
    dt = sim.scene.world.dt
    assert viewer.advance(10.5 * dt) == 10
    press(viewer, key.PLUS)
    assert viewer.controls.speed == 2.0
    assert viewer.advance(10 * dt) in (19, 20, 21)
    press(viewer, key.V)
    press(viewer, key.A, key.MOD_SHIFT)
    assert viewer.controls.overlays.vectors and viewer.controls.overlays.arcs == "all"
    viewer.draw()  # a frame with overlays draws without error
    press(viewer, key.ESCAPE)
    assert viewer.closed


def test_mouse_wheel_zooms_around_the_cursor_and_home_fits(viewer):
    from rigidflock.render.backend import key

    cam = viewer.camera
    zoom = cam.zoom
    before = cam.screen_to_world((500, 300))
    viewer.window.dispatch_event("on_mouse_scroll", 500, 300, 0, 2)
    viewer.window.dispatch_events()
    assert viewer.camera.zoom > zoom
    np.testing.assert_allclose(viewer.camera.screen_to_world((500, 300)), before, atol=1e-9)
    press(viewer, key.HOME)
    assert viewer.camera.zoom == pytest.approx(zoom)


# -- the command line ----------------------------------------------------------------------------


def test_view_rejects_a_bad_size(capsys):
    assert main(["view", str(AIDEMO4), "--size", "800by600"]) == 2
    err = capsys.readouterr().err.strip()
    assert "--size" in err and len(err.splitlines()) == 1


def test_view_without_a_display_says_so(monkeypatch, capsys):
    from rigidflock.render import backend

    monkeypatch.setattr(backend, "HEADLESS", True)
    assert main(["view", str(AIDEMO4)]) == 1
    err = capsys.readouterr().err.strip()
    assert "--screenshot" in err and len(err.splitlines()) == 1


def test_headless_runs_never_load_pyglet(tmp_path):
    code = (
        "import sys; from rigidflock.cli import main; import rigidflock.render; "
        f"assert main(['run', {str(AIDEMO4)!r}, '--ticks', '5', '--quiet']) == 0; "
        "assert 'pyglet' not in sys.modules, 'pyglet imported'"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)

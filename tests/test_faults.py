"""Bad input and faults: limits that say what can run, the memory estimate, check == run, exit
statuses that tell the truth, signals, file modes, bad commands and an unreachable display."""

from __future__ import annotations

import math
import os
import signal
import stat
import subprocess
import sys
import time

import pytest

from rigidflock.cli import main
from rigidflock.replay import ReplayReader
from rigidflock.scene import SceneError, load_scene, parse_scene
from rigidflock.scene.budget import check_budget, check_runs, parse_size
from rigidflock.sim import Command, CommandError, Simulation
from tests.conftest import ROOT

AIDEMO4 = ROOT / "scenes" / "aidemo4.toml"


def cli(*args, env=None, timeout=120):
    return subprocess.run(
        [sys.executable, "-m", "rigidflock", *map(str, args)], check=False, cwd=ROOT,
        capture_output=True, text=True, timeout=timeout, env=env,
    )  # fmt: skip


# Inputs that once gave internal errors, MemoryErrors or hangs: each must be one line naming the
# key, before anything is allocated.
MEASURED = [
    ("[world]\nsize = [1" + "0" * 48 + ", 600]", "world.size"),
    ("[world]\nsize = [1e12, 1e12]", "world.size"),
    ("[world]\nsize = [1e308, 1e308]", "world.size"),
    ("[world]\ndt = 5e-324", "world.dt"),
    ("[navigation]\nlookahead = 9223372036854775808", "navigation.lookahead"),
    ("[obstacle_field]\ncount = 1000000", "obstacle_field.count"),
]


@pytest.mark.parametrize(("extra", "key"), MEASURED)
def test_values_no_run_can_take_are_one_line_naming_the_key(tmp_path, extra, key):
    """Each of these was an internal error, a MemoryError or a hang; now `check` refuses it in
    one line that names the key (exit 2), without a traceback."""
    path = tmp_path / "x.toml"
    path.write_text("[[groups]]\ncount = 3\n" + extra + "\n")
    with pytest.raises(SceneError) as e:
        check_runs(load_scene(path))
    assert len(e.value.errors) == 1 and key in e.value.errors[0]
    assert len(e.value.errors[0]) < 200


@pytest.mark.parametrize(
    ("group", "message"),
    [
        ("count = 9223372036854775808", "must be at most 100,000 to run"),
        ("count = 1" + "0" * 12, "must be at most 100,000 to run"),
        ("thrust = 1e308", "must be at most 1e+06 to run"),
        ("length = 1e308", "must be at most 1000 to run"),
        ("mass = 1" + "0" * 400, "must be a finite number"),
    ],
)
def test_group_values_past_what_can_run_are_refused(group, message):
    """Thrust or length of 1e308 passed `check` and the run died as a non-finite state with
    numpy warnings; a count of 2**63 was an internal error. Huge integers are never echoed."""
    with pytest.raises(SceneError) as e:
        parse_scene(f"[[groups]]\ncount = 3\n{group}\n".replace("count = 3\ncount", "count"))
    (line,) = e.value.errors
    assert message in line and len(line) < 160, line


def test_deep_nesting_and_long_keys_are_refused_with_a_short_line():
    """tomllib raises RecursionError on 10,000 levels; a 10 MB key was echoed whole."""
    deep = "[[groups]]\ncount = 3\nx = " + "{a=" * 10_000 + "1" + "}" * 10_000
    with pytest.raises(SceneError, match="nested too deeply"):
        parse_scene(deep)
    long_key = "[[groups]]\ncount = 3\n" + "k" * 10_000_000 + " = 1\n"
    with pytest.raises(SceneError) as e:
        parse_scene(long_key)
    (line,) = e.value.errors
    assert "10,000,000 characters" in line and len(line) < 200


# a small scene whose navigation grid (0.25-unit cells over its walls) needs gibibytes (8.6 GiB)
GRID = "[[groups]]\ncount = 3\n[[walls]]\nstart = [1, 1]\nend = [9, 9]\n[navigation]\ncell = 0.25"


def test_memory_estimate_names_the_keys_and_a_budget_raises_it():
    """A scene needing more memory than the budget is refused with how much and which keys; an
    explicit budget (flag or environment) lets it through, up to the machine's memory."""
    scene = parse_scene(GRID, "grid.toml")
    with pytest.raises(SceneError) as e:
        check_budget(scene)
    (line,) = e.value.errors
    assert "GiB" in line and "navigation.cell" in line and "--memory-budget" in line
    assert check_budget(scene, budget=parse_size("16G")) > 4 << 30
    huge = parse_scene(GRID.replace("cell = 0.25", "cell = 0.001"), "grid.toml")  # 524 TiB
    with pytest.raises(SceneError, match="this machine's memory"):
        check_budget(huge, budget=parse_size("1000T"))


def test_the_memory_error_names_what_drives_the_total():
    """Only parts of a tenth of the total or more are named: a big grid alone, not the units
    beside it; with a small scene over a tiny budget, the program's own memory, not the units'
    few KiB; and a budget under the program's own is said never to fit."""
    from rigidflock.scene.budget import BASE_BYTES, size_text

    grid = parse_scene(GRID, "grid.toml")
    with pytest.raises(SceneError) as e:
        check_budget(grid)
    (line,) = e.value.errors
    assert "navigation.cell" in line and "groups[*].count" not in line
    assert "program itself" not in line and "--memory-budget" in line
    small = parse_scene("[[groups]]\ncount = 21\n", "small.toml")
    with pytest.raises(SceneError) as e:
        check_budget(small, budget=parse_size("150M"))
    (line,) = e.value.errors
    assert f"the program itself: {size_text(BASE_BYTES)}" in line
    assert "groups[*].count" not in line and "no budget under" in line


def test_the_estimate_counts_an_ordered_group_s_slot_deal():
    """An order's slot deal builds dense (unit, slot) matrices of up to DENSE_SLOT_UNITS units
    (~224 MB): counted when the scene gives orders, capped there for larger groups (dealt by
    rows in linear memory), absent without orders."""
    from rigidflock.scene.budget import ASSIGN_BYTES, DENSE_SLOT_UNITS, estimate

    text = "[[groups]]\nfamily = 'a'\ncount = {n}\nrole = 'none'\n"
    order = "[[orders]]\nselect = {{ family = 'a' }}\ngoal = [10.0, 10.0]\n"
    for n, want in ((500, 500), (DENSE_SLOT_UNITS * 5, DENSE_SLOT_UNITS)):
        parts = estimate(parse_scene(text.format(n=n) + order.format(), "o.toml"))
        deal = [p for p in parts if p.what.startswith("the slot deal")]
        assert [p.bytes for p in deal] == [ASSIGN_BYTES * want * want], parts
    assert not [p for p in estimate(parse_scene(text.format(n=500), "o.toml"))
                if p.what.startswith("the slot deal")]  # fmt: skip


def test_check_places_the_obstacle_field_as_run_does(tmp_path):
    """An obstacle field that cannot fit was found only when `run` placed it: `check` passed.
    Now both refuse it, with the same line, and `check --seed` places it as `run --seed`."""
    path = tmp_path / "f.toml"
    path.write_text(AIDEMO4.read_text() + "\n[obstacle_field]\ncount = 300\nradius = 20\n")
    c, r = cli("check", path), cli("run", path, "--ticks", "5", "--quiet")
    assert c.returncode == r.returncode == 2
    assert c.stderr == r.stderr and "obstacle_field" in c.stderr
    assert cli("check", AIDEMO4, "--seed", "7", "--set", "groups[0].count=12").returncode == 0


def test_verify_exit_3_on_a_cut_short_file_and_info_says_so(tmp_path):
    """A damaged or truncated recording whose readable part matches was exit 0 ("verified the
    readable part"): a script could not tell it from a good one. Now 3, documented."""
    rec = tmp_path / "r.rfr"
    assert main(["run", str(AIDEMO4), "--ticks", "200", "--quiet", "--record", str(rec)]) == 0
    assert main(["verify", str(rec), "--quiet"]) == 0
    raw = rec.read_bytes()
    rec.write_bytes(raw[: len(raw) * 2 // 3])
    v = cli("verify", rec, "--quiet")
    assert v.returncode == 3 and "Traceback" not in v.stderr
    info = cli("replay", rec, "--info")
    assert info.returncode == 0 and "cut short" in info.stdout
    assert "3 damaged or cut short" in cli("verify", "--help").stdout.replace("\n", " ")


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP])
def test_sigterm_and_sighup_mid_run_leave_nothing_hidden(tmp_path, sig):
    """SIGTERM (timeout, kill, batch schedulers) left a 44 MB hidden .part file; Ctrl-C was
    clean. Now both signals unwind like Ctrl-C: the trace and metrics are removed (never
    half-written), the recording is closed at its last complete chunk and reads as cut short."""
    rec, trace, metrics = tmp_path / "r.rfr", tmp_path / "t.csv", tmp_path / "m.json"
    proc = subprocess.Popen(
        [sys.executable, "-m", "rigidflock", "run", str(AIDEMO4), "--ticks", "1000000",
         "--quiet", "--record", rec, "--trace", trace, "--metrics", metrics],
        cwd=ROOT, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and (not rec.exists() or rec.stat().st_size < 20_000):
        time.sleep(0.1)
    os.kill(proc.pid, sig)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 128 + sig, err
    assert "interrupted" in err and "Traceback" not in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.rfr"]  # nothing hidden, no .part
    with ReplayReader(rec) as r:
        assert r.chunks and not r.complete and r.last_tick > 0


@pytest.mark.parametrize("how", ["cause", "no interrupt", "cleanup bug"])
def test_an_interrupt_inside_a_kernel_is_an_interrupt(tmp_path, monkeypatch, capsys, how):
    """A signal handled while a numba kernel runs surfaces as SystemError ("returned a result
    with an exception set") caused by the KeyboardInterrupt: CI once saw SIGTERM reported as an
    internal error, exit 1. It is an interrupt (outputs removed, the recording cut short). A
    SystemError with no interrupt behind it, or a bug raised while handling one (its context,
    not its cause), is still an internal error."""
    from rigidflock.sim import simulation

    real, calls = simulation.Simulation.step, []

    def step(self):
        calls.append(1)
        if len(calls) == 40 and how == "no interrupt":
            raise SystemError("a bug")
        if len(calls) == 40:
            try:
                raise KeyboardInterrupt
            except KeyboardInterrupt as e:
                if how == "cause":
                    raise SystemError("returned a result with an exception set") from e
                raise SystemError("a bug")  # noqa: B904 - a bug in the handler: context only
        return real(self)

    monkeypatch.setattr(simulation.Simulation, "step", step)
    rec, trace, metrics = tmp_path / "r.rfr", tmp_path / "t.csv", tmp_path / "m.json"
    code = main(["run", str(AIDEMO4), "--ticks", "100", "--quiet", "--record", str(rec),
                 "--trace", str(trace), "--metrics", str(metrics)])  # fmt: skip
    err = capsys.readouterr().err
    if how != "cause":
        assert code == 1 and "internal error: SystemError: a bug" in err
        return
    assert code == 130 and "interrupted (SIGINT)" in err and "internal" not in err, err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.rfr"]
    with ReplayReader(rec) as r:
        assert not r.complete


def test_every_output_gets_the_users_umask(tmp_path):
    """--metrics, --trace and bench --json were created 0600 (mkstemp), other outputs 0644.
    Under umask 027 every file is 0640: metrics, trace, series, recording."""
    old = os.umask(0o027)
    try:
        outs = {k: tmp_path / f"o.{k}" for k in ("json", "csv", "series.csv", "rfr")}
        assert main(["run", str(AIDEMO4), "--ticks", "12", "--quiet",
                     "--metrics", str(outs["json"]), "--trace", str(outs["csv"]),
                     "--series", str(outs["series.csv"]),
                     "--record", str(outs["rfr"])]) == 0  # fmt: skip
        from rigidflock.outputs import write_json

        write_json(tmp_path / "bench.json", [{"units": 1}])  # what bench --json calls
    finally:
        os.umask(old)
    for p in tmp_path.iterdir():
        assert stat.S_IMODE(p.stat().st_mode) == 0o640, p


@pytest.mark.parametrize(
    "command",
    [
        Command(throttle=math.nan),
        Command(steer=math.inf),
        Command(throttle=1.5),
        Command(throttle="1"),
        Command(toggles=(("gravity", True),)),
        Command(toggles=(("view", "sideways"),)),
        Command(orders=("not an order",)),
    ],
)
def test_bad_commands_raise_command_error_and_change_nothing(command):
    """Command(throttle=nan) was taken and the state turned to NaN silently. A bad command now
    raises CommandError (a ValueError) before the tick changes anything."""
    sim = Simulation(AIDEMO4, seed=1)  # a path is a scene too
    sim.step(Command(throttle=1.0, steer=0.5))
    before = sim.state.pos.copy(), sim.tick
    with pytest.raises(CommandError):
        sim.step(command)
    assert sim.tick == before[1] and (sim.state.pos == before[0]).all()
    assert isinstance(CommandError("x"), ValueError)


def test_an_unreachable_display_renders_screenshots_offscreen(tmp_path):
    """A stale DISPLAY made even the headless `view --screenshot` fail with "internal error:
    NoSuchDisplayException". An unreachable display now means offscreen rendering (EGL), and
    the window says in one line that it needs a display."""
    env = {**os.environ, "DISPLAY": ":99"}
    env.pop("RIGIDFLOCK_HEADLESS", None)
    shot = tmp_path / "s.png"
    p = cli("view", AIDEMO4, "--ticks", "3", "--screenshot", shot, "--size", "160x100", env=env)
    assert p.returncode == 0 and shot.exists(), p.stderr
    w = cli("view", AIDEMO4, env=env)
    assert w.returncode == 1 and w.stderr.count("\n") == 1
    assert "needs a display" in w.stderr and ":99" in w.stderr

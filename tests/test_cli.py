"""The command line: run, check, and the clear-error contract (exit 2, one line, nothing left)."""

import csv
import json
import subprocess
import sys

import pytest

from rigidflock.cli import main
from tests.conftest import ROOT

GOOD = "[[groups]]\ncount = 5\n"


def write(tmp_path, text, name="s.toml"):
    p = tmp_path / name
    p.write_text(text)
    return p


def test_run_writes_metrics_with_the_documented_fields(tmp_path, capsys):
    scene = write(tmp_path, GOOD)
    out = tmp_path / "m.json"
    assert main(["run", str(scene), "--ticks", "50", "--metrics", str(out)]) == 0
    data = json.loads(out.read_text())
    for key in ("ticks", "units", "seed", "wall_seconds", "ticks_per_second", "metrics"):
        assert key in data
    assert data["ticks"] == 50 and data["units"] == 5 and data["seed"] == 1
    for key in (
        "polarization_mean",
        "polarization_final",
        "nn_distance_mean",
        "min_separation",
        "unit_contacts",
        "obstacle_contacts",
        "player_contacts",
        "first_player_contact_tick",
        "leader_fraction_mean",
        "flocks_final",
    ):
        assert key in data["metrics"]
    assert 0 <= data["metrics"]["polarization_final"] <= 1
    assert "ticks/s" in capsys.readouterr().out


def test_trace_rows_per_unit_per_traced_tick(tmp_path):
    scene = write(tmp_path, GOOD)
    out = tmp_path / "t.csv"
    assert (
        main(
            [
                "run",
                str(scene),
                "--ticks",
                "20",
                "--trace",
                str(out),
                "--trace-every",
                "5",
                "--quiet",
            ]
        )
        == 0
    )
    rows = list(csv.DictReader(out.open()))
    header = ["tick", "id", "family", "x", "y", "angle", "vx", "vy", "omega", "leader"]
    assert list(rows[0]) == header
    ticks = sorted({int(r["tick"]) for r in rows})
    assert ticks == [0, 5, 10, 15, 20]
    assert len(rows) == 5 * 5
    assert {r["family"] for r in rows} == {"regular"}


def test_seed_flag_overrides_the_scene_and_traces_are_deterministic(tmp_path):
    scene = write(tmp_path, GOOD)
    paths = [tmp_path / f"{k}.csv" for k in range(3)]
    for p, seed in zip(paths, ("4", "4", "5"), strict=True):
        assert (
            main(["run", str(scene), "--ticks", "30", "--seed", seed, "--trace", str(p), "--quiet"])
            == 0
        )
    assert paths[0].read_bytes() == paths[1].read_bytes()
    assert paths[0].read_bytes() != paths[2].read_bytes()


@pytest.mark.parametrize(
    "text,field",
    [
        ("[[groups]\ncount = 5\n", "line 1"),  # syntax
        ("[[groups]]\ncount = 5\nmas = 3\n", "groups[0].mas"),  # unknown key
        ("[[groups]]\ncount = 'five'\n", "groups[0].count"),  # wrong type
        ("[world]\ndt = 0.0\n[[groups]]\ncount = 5\n", "world.dt"),  # out of range
        ("[[groups]]\nfamily = 'a'\n", "groups[0].count"),  # missing required
    ],
)
def test_bad_scene_is_one_line_and_exit_2(tmp_path, capsys, text, field):
    scene = write(tmp_path, text, "bad.toml")
    metrics = tmp_path / "m.json"
    assert main(["run", str(scene), "--metrics", str(metrics)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1
    assert "bad.toml" in err[0] and field in err[0]
    assert not metrics.exists()


def test_check_reports_every_error_in_every_file(tmp_path, capsys):
    a = write(tmp_path, "[world]\ndt = -1.0\n[[groups]]\ncount = 0\n", "a.toml")
    b = write(tmp_path, GOOD, "b.toml")
    assert main(["check", str(a), str(b)]) == 2
    cap = capsys.readouterr()
    assert "a.toml: world.dt" in cap.err and "a.toml: groups[0].count" in cap.err
    assert "b.toml: ok" in cap.out


def test_check_accepts_every_bundled_scene(capsys):
    from tests.conftest import SCENES

    assert main(["check", *map(str, SCENES)]) == 0


@pytest.mark.parametrize(
    "args",
    [["run"], ["run", "x.toml", "--ticks", "0"], ["run", "x.toml", "--seed", "abc"], ["fly"]],
)
def test_bad_usage_is_one_line_and_exit_2(capsys, args):
    assert main(args) == 2
    assert len(capsys.readouterr().err.strip().splitlines()) == 1


@pytest.mark.parametrize(
    ("option", "needs"), [("--trace-every", "--trace"), ("--every", "--series")]
)
def test_an_option_without_the_output_it_shapes_is_one_line(option, needs, capsys):
    """``--trace-every`` without ``--trace`` (or ``--every`` without ``--series``) would do
    nothing: refused, before anything runs, naming both."""
    assert main(["run", "aidemo4", "--ticks", "3", option, "5"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and option in err[0] and needs in err[0]


def test_missing_scene_file(tmp_path, capsys):
    assert main(["run", str(tmp_path / "nope.toml")]) == 2
    err = capsys.readouterr().err
    assert "nope.toml" in err and "Traceback" not in err


def test_unwritable_output_is_refused_before_running(tmp_path, capsys):
    scene = write(tmp_path, GOOD)
    assert main(["run", str(scene), "--trace", str(tmp_path / "no" / "t.csv")]) == 2
    assert "--trace" in capsys.readouterr().err


def test_interrupted_run_leaves_no_half_written_trace(tmp_path):
    from rigidflock import load_scene
    from rigidflock.runs.runner import run_scene

    scene = write(tmp_path, GOOD)
    out = tmp_path / "t.csv"

    def interrupt_at_10(k):
        if k == 10:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_scene(load_scene(scene), 50, trace_path=out, progress=interrupt_at_10)
    assert list(tmp_path.iterdir()) == [scene]  # no trace, no temporary file


def test_console_entry_point_runs_as_a_module(tmp_path):
    scene = write(tmp_path, "[[groups]]\ncount = -1\n")
    proc = subprocess.run(
        [sys.executable, "-m", "rigidflock", "run", str(scene)],
        check=False,
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and "groups[0].count" in proc.stderr

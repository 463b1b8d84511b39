"""The experiment commands: sweep and plot, and their clear-error contract (one line, exit 2,
before any run, nothing written)."""

import pytest

from rigidflock.cli import main
from rigidflock.runs.rowfile import read_rows
from tests.conftest import ROOT

BASE = "[[groups]]\ncount = 5\n"
SWEEP = """scene = "base.toml"
ticks = 10
seeds = 2
metrics = ["polarization_final", "flocks_final"]
[grid]
"rules.weights.cohesion" = [0.5, 1.0, 2.0]
"rules.view" = ["narrow", "wide"]
"""


def files(tmp_path, sweep=SWEEP):
    (tmp_path / "base.toml").write_text(BASE)
    (tmp_path / "sweep.toml").write_text(sweep)
    return tmp_path / "sweep.toml"


def one_line_exit_2(capsys, argv, *names):
    capsys.readouterr()
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    for name in names:
        assert name in err[0], err[0]


def test_sweep_then_plot(tmp_path, capsys):
    """A sweep in this process (--workers 1) writes its rows; plot draws the metric against the
    first parameter, one line per value of the second; --set changes every run's scene."""
    out = tmp_path / "rows.csv"
    argv = ["sweep", str(files(tmp_path)), "-o", str(out), "--workers", "1"]
    assert main([*argv, "--set", "groups[0].count=7"]) == 0
    rows = read_rows(out)
    assert len(rows) == 12 and {r["status"] for r in rows} == {"ok"}
    assert "12 runs (6 points x 2 seeds), 0 failed" in capsys.readouterr().out
    png = tmp_path / "rows.png"
    assert main(["plot", str(out), "-o", str(png), "--metric", "flocks_final"]) == 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    one_line_exit_2(capsys, ["plot", str(out), "-o", str(png), "--metric", "nope"], "nope")


def test_plot_a_series(tmp_path):
    series = tmp_path / "s.csv"
    scene = tmp_path / "base.toml"
    scene.write_text(BASE)
    assert main(["run", str(scene), "--ticks", "20", "--series", str(series), "--quiet"]) == 0
    assert main(["plot", str(series), "-o", str(tmp_path / "s.png"), "--quiet"]) == 0
    assert (tmp_path / "s.png").stat().st_size > 10_000


@pytest.mark.parametrize(
    ("change", "names"),
    [
        (("[grid]", "[grid]\nbogus = 1\n[x]"), ("sweep.toml", "x")),
        (('"narrow", "wide"', '"narrow", 3'), ("sweep.toml", "rules.view")),
        (("seeds = 2", "seeds = -1"), ("sweep.toml", "seeds")),
        (('"flocks_final"', '"flokcs"'), ("sweep.toml", "metrics", "flokcs")),
        (('scene = "base.toml"', 'scene = "none.toml"'), ("none.toml",)),
    ],
)
def test_bad_sweep_file_is_one_line_exit_2_and_nothing_written(tmp_path, capsys, change, names):
    """Every mistake is found before any run: one line naming the file and the field, exit 2, and
    no row file."""
    out = tmp_path / "rows.csv"
    sweep = files(tmp_path, SWEEP.replace(*change))
    one_line_exit_2(capsys, ["sweep", str(sweep), "-o", str(out)], *names)
    assert not out.exists()


def test_bad_override_on_sweep_is_one_line_exit_2(tmp_path, capsys):
    out = tmp_path / "rows.csv"
    sweep = files(tmp_path)
    argv = ["sweep", str(sweep), "-o", str(out), "--set", "rules.weights.cohesion=much"]
    one_line_exit_2(capsys, argv, "cohesion", "--set")
    assert not out.exists()


def test_bundled_sweep_reads(capsys):
    """The example sweep finds its scene relative to itself, whatever the working directory."""
    from rigidflock.runs.sweep_spec import load_sweep

    spec = load_sweep(ROOT / "scenes" / "sweeps" / "forest_cohesion.toml")
    assert len(spec.tasks) >= 16 and spec.scene.name == "forest"


@pytest.mark.parametrize("option", ["--workers", "--dask-local"])
def test_more_workers_than_cores_is_one_clear_line(option, tmp_path, capsys):
    """Each worker is a process running one simulation (~200 MB with numba and pymunk): 10,000
    of them, one per run of a big sweep, would exhaust the memory. More than the cores is
    refused before any run starts, and nothing is written."""
    from rigidflock.cli.args import max_workers

    out = tmp_path / "rows.csv"
    argv = ["sweep", str(files(tmp_path)), "-o", str(out), option, str(max_workers() + 1)]
    one_line_exit_2(capsys, argv, option, f"at most {max_workers()}")
    assert not out.exists()

"""Metrics over time: rows at the sampled ticks, the same totals as the run summary, no change to
the run itself, CSV/Parquet round trips."""

import pytest

from rigidflock.cli import main
from rigidflock.runs.runner import run_scene
from rigidflock.runs.series import columns, read_series, to_dataframe, write_series
from rigidflock.scene import load_scene
from tests.conftest import ROOT

SCENE = "[[groups]]\ncount = 12\nspawn = { radius = 40.0 }\n"


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_rows_at_every_kth_tick_with_totals_matching_the_summary(scene_from, seed):
    """Tick 0 and every K-th tick are sampled; the running contact totals of the last row equal
    the summary's (the same events counted); sampling does not change the run (same metrics)."""
    scene = scene_from(SCENE)
    plain = run_scene(scene, 60, seed=seed)
    sampled = run_scene(scene, 60, seed=seed, series_every=20)
    rows = sampled.series
    assert [r["tick"] for r in rows] == [0, 20, 40, 60]
    assert rows[-1]["unit_contacts_total"] == sampled.metrics["unit_contacts"]
    assert rows[-1]["polarization"] == pytest.approx(sampled.metrics["polarization_final"])
    assert rows[-1]["min_separation"] >= sampled.metrics["min_separation"]
    assert plain.metrics == sampled.metrics
    for r in rows:
        assert 0 <= r["polarization"] <= 1 and 0 <= r["milling"] <= 1
        assert r["flocks"] >= 1 and r["pinned"] == 0 and r["chaser_distance"] is None


def test_doorway_series_has_arrivals_and_chaser_distance(tmp_path):
    """Per-order arrivals appear once the order is given; a scene with a player and chasers
    reports the distance to the nearest chaser."""
    door = run_scene(load_scene(ROOT / "scenes" / "rts_doorway.toml"), 40, series_every=10)
    assert [r["arrived_0"] for r in door.series] == [None, None, None, None, 0]  # given at 30
    demo = run_scene(load_scene(ROOT / "scenes" / "aidemo4.toml"), 20, series_every=10)
    assert all(r["chaser_distance"] > 0 for r in demo.series)


def test_csv_and_parquet_round_trip_exactly(scene_from, tmp_path):
    """Floats are written with their shortest exact text, so the file reads back to the same
    numbers; Parquet holds the same table; pandas loads the records directly."""
    result = run_scene(scene_from(SCENE), 30, series_every=10)
    cols = columns(0)
    for name in ("s.csv", "s.parquet"):
        write_series(tmp_path / name, result.series, cols)
        assert read_series(tmp_path / name) == result.series
    frame = to_dataframe(result.series)
    assert list(frame.columns) == cols and len(frame) == 4


def test_cli_series_and_bad_name(tmp_path, scene_from, capsys):
    """``run --series`` writes the file; a name that is neither .csv nor .parquet is one line,
    exit 2, before the run."""
    scene = tmp_path / "s.toml"
    scene.write_text(SCENE)
    out = tmp_path / "series.csv"
    assert main(["run", str(scene), "--ticks", "30", "--series", str(out), "--every", "5"]) == 0
    assert len(read_series(out)) == 7
    capsys.readouterr()
    assert main(["run", str(scene), "--series", str(tmp_path / "x.txt")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "x.txt" in err[0] and ".csv" in err[0]

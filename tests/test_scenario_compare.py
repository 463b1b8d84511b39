"""tools/scenario_compare.py: two runs of the scenario suite matched seed by seed."""

import json

import pytest

from tests.conftest import load_tool

tool = load_tool("scenario_compare")


def row(name, seed, pin, t100=100.0, limit=200.0, pinned=10.0, reaction=None):
    return {"scenario": name, "seed": seed, "reaction_ticks": reaction, "longest_pin_seconds": pin,
            "t100": t100, "limit": limit, "pinned_seconds": pinned}  # fmt: skip


def test_pins_are_compared_seed_by_seed_and_late_runs_counted(tmp_path, capsys):
    """Seeds 1-4 in both files, a fifth only in the new one: the summary is of the four pairs,
    the paired difference of (+1, +1, +1, +2) is 1.25 with standard error 0.25, a run without a
    t100 or past its limit is late, and the unmatched row is reported, not compared."""
    base = [row("bn", s, p) for s, p in zip([1, 2, 3, 4], [4.0, 5.5, 3.0, 4.5], strict=True)]
    new = [row("bn", s, p) for s, p in zip([1, 2, 3, 4], [5.0, 6.5, 4.0, 6.5], strict=True)]
    new[1]["t100"] = None
    new[2]["t100"] = 250.0
    new.append(row("bn", 5, 1.0))
    (tmp_path / "a.json").write_text(json.dumps(base))
    (tmp_path / "b.json").write_text(json.dumps(new))
    (s,) = tool.compare(tool.load(tmp_path / "a.json"), tool.load(tmp_path / "b.json"), 5.0)
    assert s["runs"] == 4 and s["seeds"] == [1, 2, 3, 4]
    assert s["late"] == (0, 2)
    assert s["over_pin"] == (1, 2)  # 5.0 is not over 5
    assert s["pin_diff"] == pytest.approx((1.25, 0.25))
    assert s["pin_max"] == (5.5, 6.5)
    assert tool.main([str(tmp_path / "a.json"), str(tmp_path / "b.json"), "--per-seed"]) == 0
    out = capsys.readouterr().out
    assert "+1.25 +- 0.25" in out and "1 rows in one file only" in out and "2: 5.50->6.50" in out
    assert "(seeds [2] -> [2, 4])" in out


def test_the_other_figures_are_paired_over_the_runs_that_have_them(tmp_path, capsys):
    """Pinned time and wall contacts paired over every seed; the time to 95% only over seeds
    where both runs reached it (seed 3's new run did not: no t95); a pair whose rows differ
    only in the wall-clock seconds, or in a figure only one row has, is not a changed run."""
    base = {
        ("bn", k, None): row("bn", k, 4.0, pinned=p) for k, p in [(1, 10.0), (2, 20.0), (3, 30.0)]
    }
    new = {
        ("bn", k, None): row("bn", k, 4.0, pinned=p) for k, p in [(1, 10.0), (2, 24.0), (3, 38.0)]
    }
    for rows, walls, t95 in (
        (base, [5, 6, 7], [50.0, 60.0, 70.0]),
        (new, [5, 9, 7], [50.0, 66.0, None]),
    ):
        for k, w, t in zip(sorted(rows), walls, t95, strict=True):
            rows[k].update(wall_contacts=w, t95=t, seconds=float(w))
    new[("bn", 1, None)].update(seconds=99.0, figure_of_a_newer_bench=1)
    new[("bn", 2, None)]["t100"] = 100.5
    (s,) = tool.compare(base, new, 5.0)
    assert s["changed"] == [2, 3]
    assert s["t100_change_max"] == 0.5  # seed 3 changed no t100
    # diffs 0, 4, 8: mean 4, standard deviation 4, standard error 4 / sqrt(3)
    assert s["pinned"] == pytest.approx((20.0, 24.0, 4.0, 4.0 / 3**0.5, 3))
    assert s["wall_contacts"] == pytest.approx((6.0, 7.0, 1.0, 1.0, 3))  # diffs 0, 3, 0
    assert s["t95"] == pytest.approx((55.0, 58.0, 3.0, 3.0, 2))  # seeds 1, 2: diffs 0, 6
    for name, rows in (("a", base), ("b", new)):
        (tmp_path / f"{name}.json").write_text(json.dumps(list(rows.values())))
    assert tool.main([str(tmp_path / "a.json"), str(tmp_path / "b.json")]) == 0
    out = capsys.readouterr().out
    assert "runs changed                  2   (seeds [2, 3])" in out
    assert "(largest change in one run 0.50)" in out
    assert "wall contacts, mean         6.0 -> 7.0   (new - base +1.0 +- 1.0)" in out
    assert "95% at s, mean             55.0 -> 58.0   (new - base +3.0 +- 3.0, 2 pairs)" in out


def test_a_figure_no_pair_has_is_left_out(tmp_path, capsys):
    """Rows of an older bench without wall contacts or t95: those lines are not printed (no
    nan), the rest is."""
    (tmp_path / "a.json").write_text(json.dumps([row("bn", 1, 4.0), row("bn", 2, 5.0)]))
    (tmp_path / "b.json").write_text(json.dumps([row("bn", 1, 4.5), row("bn", 2, 5.5)]))
    assert tool.main([str(tmp_path / "a.json"), str(tmp_path / "b.json")]) == 0
    out = capsys.readouterr().out
    assert "nan" not in out and "wall contacts" not in out and "95% at" not in out
    assert "pinned unit-s, mean        10.0 -> 10.0" in out


def test_a_file_that_is_not_a_suite_run_is_one_line_naming_it(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"rows": 1}')
    with pytest.raises(SystemExit, match=r"bad\.json: not a list of rows"):
        tool.load(bad)
    bad.write_text("[{")
    with pytest.raises(SystemExit, match=r"bad\.json: cannot read it as JSON"):
        tool.load(bad)


def test_runs_of_the_scenes_own_reaction_and_of_a_given_one_are_matched_apart():
    """The same seed with reaction_ticks None (the scene's own) and 1: two pairs, not one, and
    sorting them does not compare None with a number."""
    base = {("bn", 1, None): row("bn", 1, 4.0), ("bn", 1, 1): row("bn", 1, 6.0, reaction=1)}
    new = {("bn", 1, None): row("bn", 1, 3.0), ("bn", 1, 1): row("bn", 1, 7.0, reaction=1)}
    (s,) = tool.compare(base, new, 5.0)
    assert s["runs"] == 2 and sorted(s["pins"]) == [(4.0, 3.0), (6.0, 7.0)]
    assert s["pin_diff"][0] == pytest.approx(0.0)

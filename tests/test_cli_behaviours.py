"""The command line and users' behaviours: ``check`` imports them and reports what does not
import or read in one line each (exit 2); a behaviour that fails stops ``run`` with one line
naming it and the tick (exit 1), its outputs as for any failed run."""

import json

import pytest

from rigidflock.cli import main
from rigidflock.replay import ReplayReader

BASE = """
[rules]
chase = false
[[groups]]
count = 10
family = "deer"
role = "none"
"""


def scene(tmp_path, behaviours: str, name: str = "s.toml"):
    path = tmp_path / name
    path.write_text(BASE + behaviours)
    return str(path)


@pytest.mark.parametrize(
    ("table", "field", "message"),
    [
        ('function = "tests.nowhere:f"', "behaviours[0].function",
         "no module named 'tests.nowhere'"),
        ('function = "tests.behaviour_rules:missing"', "behaviours[0].function",
         "module 'tests.behaviour_rules' has no name 'missing'"),
        ('function = "not a name!"', "behaviours[0].function", 'expected "module:name"'),
        ('function = "tests.behaviour_rules:east"\nweight = -1', "behaviours[0].weight",
         'must be a number >= 0, got -1 (line 10) (behaviour "tests.behaviour_rules:east")'),
        ('function = "tests.behaviour_rules:east"\nfamilies = ["dear"]',
         "behaviours[0].families[0]", 'no group has family "dear" (did you mean "deer"?)'),
        ('function = "tests.behaviour_rules:east"\nparams = 3', "behaviours[0].params",
         "must be a table"),
        ('weight = 1.0', "behaviours[0].function", "required"),
    ],
)  # fmt: skip
def test_check_reports_a_bad_behaviour_in_one_line(tmp_path, capsys, table, field, message):
    path = scene(tmp_path, f"[[behaviours]]\n{table}\n")
    assert main(["check", path]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    assert err[0].startswith(f"{path}: {field}: ") and message in err[0]


def test_check_and_run_accept_a_good_behaviour(tmp_path, capsys):
    path = scene(tmp_path, '[[behaviours]]\nfunction = "tests.behaviour_rules:east"\n')
    assert main(["check", path]) == 0
    assert "ok (10 units, 1 group)" in capsys.readouterr().out
    assert main(["run", path, "--ticks", "5", "--quiet"]) == 0


def test_every_bad_behaviour_is_reported(tmp_path, capsys):
    path = scene(
        tmp_path,
        '[[behaviours]]\nfunction = "tests.nowhere:f"\n'
        '[[behaviours]]\nfunction = "tests.behaviour_rules:nope"\n',
    )
    assert main(["check", path]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert [line.split(": ")[1] for line in err] == [
        "behaviours[0].function", "behaviours[1].function",
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("function", "tick", "what"),
    [("raises", 4, "raised RuntimeError: the rule broke"),
     ("not_finite", 5, "returned a non-finite direction (row 2)")],
)  # fmt: skip
def test_a_failing_behaviour_stops_the_run(tmp_path, capsys, function, tick, what):
    """One line naming the behaviour and the tick, exit 1; the metrics and trace are not
    written (outputs appear only when a run completes) and the recording holds the ticks
    before the failure, readable (cut short), as for any failed run."""
    path = scene(
        tmp_path,
        f'[[behaviours]]\nfunction = "tests.behaviour_rules:{function}"\nparams = {{ at = 4 }}\n',
    )
    metrics, trace, rec = tmp_path / "m.json", tmp_path / "t.csv", tmp_path / "r.rfr"
    status = main(["run", path, "--ticks", "50", "--quiet", "--metrics", str(metrics),
                   "--trace", str(trace), "--record", str(rec)])  # fmt: skip
    assert status == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [
        f"rigidflock: {path}: run failed: behaviour 'tests.behaviour_rules:{function}' at tick "
        f"{tick}: {what}"
    ]
    assert not metrics.exists() and not trace.exists()
    with ReplayReader(rec) as r:
        assert r.last_tick < tick and not r.complete


def test_bench_takes_a_behaviour(tmp_path, capsys):
    """``bench --behaviour`` times each size without and with it in one command, and prints the
    behaviour's cost (a tiny world: the figure itself is docs/results/behaviours_bench.json)."""
    out = tmp_path / "b.json"
    function = "rigidflock.behaviours.examples:flow_field"
    args = ["bench", "--units", "200", "--ticks", "5", "--warmup", "2", "--orders", "0",
            "--behaviour", function, "--json", str(out)]  # fmt: skip
    assert main(args) == 0
    text = capsys.readouterr().out
    assert "with behaviour rigidflock.behaviours.examples:flow_field" in text
    rows = json.loads(out.read_text())
    assert [r["behaviour"] for r in rows] == [None, "rigidflock.behaviours.examples:flow_field"]
    assert rows[1]["split"]["behaviours"] > 0 and "behaviour_cost" in rows[1]
    assert main(["bench", "--units", "200", "--behaviour", "tests.nowhere:f"]) == 2
    assert "no module named 'tests.nowhere'" in capsys.readouterr().err

"""What a new user meets on the command line: a closed pipe, a mistyped name, the scenarios and
sweeps by name, plurals, window titles, the hints for missing extras, the first-run notice, what
``replay --info`` says about the model, and the CLI reference page made from the parser."""

import importlib.util
import os
import re
import subprocess
import sys

import pytest

from rigidflock import __version__
from rigidflock.bundled import KINDS, bundled, bundled_names, bundled_scene, find_bundled
from rigidflock.cli import EXIT_OUTPUT_CLOSED, main
from tests.conftest import ROOT

FIXTURES = ROOT / "tests" / "fixtures"


def run_into_closed_pipe(*args: str) -> subprocess.CompletedProcess:
    """``rigidflock ARGS`` with stdout a pipe whose reader has already gone (as ``| head``
    leaves it): every write fails with EPIPE, the buffered ones at the last flush."""
    read, write = os.pipe()
    os.close(read)
    try:
        return subprocess.run(
            [sys.executable, "-m", "rigidflock", *args],
            stdout=write, stderr=subprocess.PIPE, text=True, cwd=ROOT, timeout=120, check=False,
        )  # fmt: skip
    finally:
        os.close(write)


@pytest.mark.parametrize("args", [("check", "--keys"), ("scenes",)])
def test_a_closed_pipe_ends_the_command_quietly(args):
    """``check --keys`` fails while printing, ``scenes`` (short) only at the final flush: both
    stop with SIGPIPE's status and say nothing, not even at the interpreter's exit."""
    proc = run_into_closed_pipe(*args)
    assert (proc.returncode, proc.stderr) == (EXIT_OUTPUT_CLOSED, "")
    assert EXIT_OUTPUT_CLOSED == 141


@pytest.mark.parametrize(
    ("args", "line"),
    [
        (["view", "wall_squeez"], "rigidflock view: no such scene file or bundled scene: "
         "wall_squeez (did you mean wall_squeeze?)"),
        (["check", "scenes/forrest.toml"], "rigidflock check: no such scene file or bundled "
         "scene: scenes/forrest.toml (did you mean forest?)"),
        (["run", "forest_cohesion"], "rigidflock run: no such scene file or bundled scene: "
         "forest_cohesion (forest_cohesion is a bundled sweep: rigidflock sweep forest_cohesion)"),
        (["sweep", "forest_coheson"], "rigidflock sweep: no such sweep file or bundled sweep: "
         "forest_coheson (did you mean forest_cohesion?)"),
        (["sweep", "aidemo4"], "rigidflock sweep: no such sweep file or bundled sweep: aidemo4 "
         "(aidemo4 is a bundled scene: rigidflock run aidemo4)"),
        (["run", "xyzzy"], "rigidflock run: no such scene file or bundled scene: xyzzy "
         "(rigidflock scenes lists them)"),
        (["scenes", "copy", "wall_sqeeze"], "rigidflock scenes copy: no bundled scene, scenario "
         "or sweep: wall_sqeeze (did you mean wall_squeeze?)"),
    ],
)  # fmt: skip
def test_a_name_that_is_nothing_says_what_was_meant(args, line, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(args) == 2
    assert capsys.readouterr().err.strip().splitlines() == [line]
    assert list(tmp_path.iterdir()) == []


def test_a_path_elsewhere_gets_no_guess(tmp_path, capsys):
    missing = tmp_path / "aidemo5.toml"
    assert main(["run", str(missing)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"rigidflock run: no such scene file or bundled scene: {missing}"]


def test_every_bundled_file_is_listed_in_its_group(capsys):
    assert main(["scenes"]) == 0
    out = capsys.readouterr().out
    heads = [line for line in out.splitlines() if line and not line.startswith(" ")]
    assert [h.split(" (")[0] for h in heads[:3]] == ["scenes", "scenarios", "sweeps"]
    groups = re.split(r"^(?:scenes|scenarios|sweeps) \(.*\):$", out, flags=re.M)[1:]
    assert len(groups) == 3
    for kind, text in zip(KINDS, groups, strict=True):
        listed = re.findall(r"^  (\S+)  ", text, flags=re.M)
        assert listed == bundled_names(kind), kind
    assert len(bundled_names("scenario")) >= 10 and bundled_names("sweep") == ["forest_cohesion"]


def test_names_are_unique_across_the_kinds():
    names = bundled_names(tuple(KINDS))
    assert len(names) == len(set(names)) == len(bundled())


def test_a_scenario_runs_checks_and_resolves_by_name(tmp_path, monkeypatch, capsys):
    from rigidflock.envs.scenes import bundled_scene as env_scene

    monkeypatch.chdir(tmp_path)
    assert main(["check", "wall_squeeze", "doorway_one_way.toml"]) == 0
    assert main(["run", "wall_squeeze", "--ticks", "3", "--quiet"]) == 0
    path = bundled_scene("wall_squeeze")
    assert path.parent.name == "scenarios" and env_scene("wall_squeeze") == path
    assert find_bundled("forest_cohesion") is None  # a sweep is not a scene
    assert find_bundled("forest_cohesion", "sweep").parent.name == "sweeps"


def test_a_scenario_copies_out_by_name(tmp_path, capsys):
    assert main(["scenes", "copy", "wall_squeeze", str(tmp_path)]) == 0
    copied = tmp_path / "wall_squeeze.toml"
    assert copied.read_text() == bundled_scene("wall_squeeze").read_text()
    assert capsys.readouterr().out == f"{copied}: copied from the bundled scenario wall_squeeze\n"
    assert main(["check", str(copied)]) == 0


def test_a_sweep_copies_out_with_its_base_scene_and_loads(tmp_path, capsys):
    from rigidflock.runs.sweep_spec import load_sweep

    assert main(["scenes", "copy", "forest_cohesion", str(tmp_path)]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["forest.toml", "forest_cohesion.toml"]
    assert (tmp_path / "forest.toml").read_text() == bundled_scene("forest").read_text()
    spec = load_sweep(tmp_path / "forest_cohesion.toml")
    bundled_spec = load_sweep(find_bundled("forest_cohesion", "sweep"))
    assert len(spec.tasks) == len(bundled_spec.tasks) == 60
    ours, theirs = spec.tasks[7], bundled_spec.tasks[7]
    assert (ours.params, ours.seed) == (theirs.params, theirs.seed)
    # the same scene, changed the same way (the first line says where the base scene was)
    assert ours.text.split("\n", 1)[1] == theirs.text.split("\n", 1)[1]
    # copied again elsewhere beside an identical base scene: only the sweep is written
    other = tmp_path / "mine.toml"
    assert main(["scenes", "copy", "forest_cohesion", str(other)]) == 0
    assert len(list(tmp_path.iterdir())) == 3
    # a different forest.toml beside the target: refused before anything is written
    elsewhere = tmp_path / "b"
    elsewhere.mkdir()
    (elsewhere / "forest.toml").write_text("# mine\n")
    capsys.readouterr()
    assert main(["scenes", "copy", "forest_cohesion", str(elsewhere)]) == 2
    assert "forest.toml: already exists" in capsys.readouterr().err
    assert [p.name for p in elsewhere.iterdir()] == ["forest.toml"]


def test_counts_of_one_are_singular(tmp_path, capsys):
    scene = tmp_path / "one.toml"
    scene.write_text("[[groups]]\ncount = 1\n")
    assert main(["check", str(scene)]) == 0
    assert capsys.readouterr().out == f"{scene}: ok (1 unit, 1 group)\n"
    rec = tmp_path / "one.rfr"
    assert main(["run", str(scene), "--ticks", "1", "--record", str(rec)]) == 0
    assert "one.toml: 1 unit, seed 1: 1 tick in " in capsys.readouterr().out
    assert main(["replay", str(rec), "--info"]) == 0
    assert " bytes in 1 chunk, " in capsys.readouterr().out
    assert main(["check", "aidemo4"]) == 0
    assert capsys.readouterr().out == "aidemo4: ok (20 units, 2 groups)\n"


def test_the_windows_are_titled_with_the_program_and_what_they_show(tmp_path):
    from rigidflock.render.replay_window import ReplayViewer
    from rigidflock.render.window import Viewer
    from rigidflock.replay import ReplayReader
    from rigidflock.replay.playback import Playback
    from rigidflock.sim import Simulation

    viewer = Viewer(Simulation("aidemo4"), (320, 200), visible=False)
    try:
        assert viewer.window.caption == "rigidflock: AIDemo4"
    finally:
        viewer.close()
    from rigidflock.sim import MODEL_VERSION

    rec = FIXTURES / f"aidemo4_model{MODEL_VERSION}.rfr"
    with ReplayReader(rec) as reader:
        replay = ReplayViewer(Playback(reader), (320, 200), visible=False)
        try:
            assert replay.window.caption == f"rigidflock replay: {rec.name}"
        finally:
            replay.close()


def test_missing_extras_name_the_checkout_install(tmp_path, monkeypatch, capsys):
    """There is no rigidflock on the package index: an extra installs from the checkout."""
    for module in ("matplotlib", "pyarrow", "distributed"):
        monkeypatch.setitem(sys.modules, module, None)  # import fails
    cases = [
        (["plot", str(tmp_path / "x.csv"), "-o", str(tmp_path / "x.png")], ".[plot]"),
        (["bench", "--plot", str(tmp_path / "b.png")], ".[plot]"),
        (["run", "aidemo4", "--series", str(tmp_path / "s.parquet")], ".[parquet]"),
        (["sweep", "forest_cohesion", "--dask-local", "1", "-o", str(tmp_path / "r.csv")],
         ".[dask]"),
    ]  # fmt: skip
    for args, extra in cases:
        assert main(args) == 2, args
        err = capsys.readouterr().err
        assert f'pip install "{extra}" in the rigidflock checkout' in err, err
        assert "rigidflock[" not in err
    gym = subprocess.run(
        [sys.executable, "-c", "import sys; sys.modules['gymnasium'] = None\n"
         "try:\n    from rigidflock.envs import EvadeEnv\nexcept ImportError as e:\n    print(e)"],
        capture_output=True, text=True, check=True, timeout=120,
    )  # fmt: skip
    assert 'pip install ".[gym]" in the rigidflock checkout' in gym.stdout


def test_the_first_run_notice_gives_the_measured_time(monkeypatch, capsys):
    from rigidflock.runs import warmup

    monkeypatch.setattr(warmup, "kernels_cold", lambda scene=None: True)
    monkeypatch.setattr(warmup, "warm_up", lambda scene, ticks=2, report=None: 0.0)
    assert main(["run", "aidemo4", "--ticks", "2"]) == 0
    assert "(once, then cached; about a minute" in capsys.readouterr().err


def test_replay_info_says_what_recorded_it_and_what_to_do(capsys):
    from rigidflock.sim import MODEL_VERSION

    assert main(["replay", str(FIXTURES / "aidemo4_model11.rfr"), "--info"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].endswith("aidemo4_model11.rfr: rigidflock replay (file format 1), complete")
    assert lines[1].startswith("  recorded  with rigidflock 0.1.0, simulation model 11 (pymunk ")
    assert lines[-2:] == [
        f"  note      simulation model 11 is not this rigidflock's ({__version__}, model "
        f"{MODEL_VERSION}): replay and export work;",
        "            to verify or re-simulate it, use the rigidflock that recorded it (0.1.0, "
        "simulation model 11)",
    ]


def cli_page() -> str:
    spec = importlib.util.spec_from_file_location("docs_gen_cli", ROOT / "docs" / "_gen" / "cli.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    pages = module.pages()
    assert list(pages) == ["reference/cli.md"]
    return pages["reference/cli.md"]


def test_the_cli_reference_covers_every_command_and_option():
    import argparse

    from rigidflock.cli import build_parser

    text = cli_page()
    assert text == (ROOT / "docs" / "reference" / "cli.md").read_text()  # written, current
    assert text.startswith("# Command line\n")

    def walk(parser):
        yield parser
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for sub in action.choices.values():
                    yield from walk(sub)

    parsers = list(walk(build_parser()))
    assert len(parsers) >= 13  # the program, ten commands, scenes list and scenes copy
    for p in parsers:
        head = f"`{p.prog}`\n"
        assert re.search(rf"^##+ {re.escape(head)}", text, flags=re.M), p.prog
        section = text.split(head, 1)[1].split("\n#", 1)[0]
        assert f"usage: {p.prog} " in section, p.prog
        for action in p._actions:
            if action.help == argparse.SUPPRESS:  # an old spelling, kept off the help
                continue
            for flag in action.option_strings:
                if flag not in ("-h", "--help") and (flag != "--debug" or p.prog == "rigidflock"):
                    assert f"`{flag}" in section, (p.prog, flag)
    # every table row has as many cells as its header: a "|" in a cell is escaped
    for table in re.findall(r"(?:^\|.*\|\n)+", text, flags=re.M):
        rows = table.splitlines()
        widths = {len(re.findall(r"(?<!\\)\|", row)) for row in rows}
        assert len(widths) == 1, rows[0]
    assert r"`OUT.mp4\|OUT.gif`" in text
    assert "| `--size` | `WxH` | `1280x800` |" in text

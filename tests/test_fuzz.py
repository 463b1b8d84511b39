"""Fuzzing with hypothesis, bounded for CI (a minute or two): any value at any key of a bundled
scene (the scored scenarios included), and any damage to a replay file, is answered by the
contract's one error type or works. Every numeric key of one scene of each kind at the ends of
the floats (5e-324, 2.2250738585072014e-308, the largest float) and the values that make a
derived size overflow (tools/fuzz_scenes.py's targeted cases) go through every pre-run check in
full; a sample of those that pass also runs. The longer run through ``check`` and ``run`` is
tools/fuzz_scenes.py (docs/validation/fuzzing.md)."""

from __future__ import annotations

import contextlib
import functools
import math
import tomllib
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rigidflock.replay import ReplayError, ReplayReader, info, verify
from rigidflock.runs.runner import RunFailed, run_scene
from rigidflock.scene import SceneError, parse_scene
from rigidflock.scene.budget import check_runs
from rigidflock.scene.overrides import to_toml
from tests.conftest import ROOT, load_tool

FUZZ = load_tool("fuzz_scenes")
SCENES = sorted((ROOT / "scenes").glob("*.toml"))
FILES = FUZZ.scene_files()  # the scenes and the scored scenarios
BASE = {name: tomllib.loads(p.read_text()) for name, p in FILES.items()}


def _paths(node, path=()):
    if isinstance(node, dict):
        for k, v in node.items():
            yield (*path, k)
            yield from _paths(v, (*path, k))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield (*path, i)
            yield from _paths(v, (*path, i))


# every key a scene writes, and every numeric key of the reference it can hold (written or not)
PATHS = sorted(
    {(name, p) for name, data in BASE.items() for p in _paths(data)}
    | {(name, p) for name, data in BASE.items() for p, _ in FUZZ.numeric_sites(data)},
    key=str,
)
EXTREMES = [*FUZZ.FLOAT_EXTREMES, -FUZZ.HUGE]

numbers = st.one_of(
    st.sampled_from([0, -1, 1e308, math.nan, math.inf, -math.inf, 10**12, 2**63, 10**400]),
    st.sampled_from(EXTREMES),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
)
values = st.recursive(
    st.one_of(numbers, st.booleans(), st.text(max_size=60)),
    lambda inner: st.one_of(
        st.lists(inner, max_size=5), st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=12,
)


def _mutated(name, path, value) -> str:
    data = tomllib.loads(to_toml(BASE[name]))
    if value is None:
        node = data
        for p in path[:-1]:
            node = node.get(p, {}) if isinstance(node, dict) else node[p]
        if isinstance(node, dict):
            node.pop(path[-1], None)
        else:
            del node[path[-1]]
    else:
        FUZZ.put(data, path, value)
    return to_toml(data)


def _one_line_errors(e: SceneError) -> None:
    assert e.errors and all("\n" not in line and len(line) < 400 for line in e.errors)


targeted = functools.cache(FUZZ.targeted)  # ~15 s to make: only when a test asks


def test_every_numeric_key_at_the_ends_of_the_floats_is_a_scene_error_or_can_start():
    """The targeted cases in full, through reading and every pre-run check: each numeric key of
    a scene of each kind (wrap, walls, RTS with orders, buildings, scenario) at 5e-324,
    2.2250738585072014e-308, the largest float and -5e-324 (and 2^63 and beyond for
    integers), and the derived sizes pushed past int64 and the floats (route grids of 10^600
    cells, rasters of unit lengths near 0, tables at their longest): a SceneError of one-line
    errors, or a scene every check passes. navigation.cell = 1e-300 on rts_maze among them."""
    kinds = set()
    for kind, _name, text in targeted():
        kinds.add(kind)
        try:
            check_runs(parse_scene(text, "fuzz.toml"))
        except SceneError as e:
            _one_line_errors(e)
    assert kinds == {kind for kind, _ in FUZZ.TARGETS}
    assert any(name == "rts_maze:navigation.cell=1e-300" for _, name, _ in targeted())


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(min_value=0))
def test_a_targeted_scene_that_check_passes_runs(k):
    """What check accepts, run runs: a sample of the targeted cases that pass every check runs
    5 ticks (a run may fail in one line, RunFailed, never with another exception); not the
    tables at their longest, which take minutes."""
    cases = [c for c in targeted() if "1000" not in c[1]]
    _kind, _name, text = cases[k % len(cases)]
    try:
        scene = parse_scene(text, "fuzz.toml")
        check_runs(scene)
    except SceneError:
        return
    with contextlib.suppress(RunFailed):
        run_scene(scene, 5)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(PATHS), st.one_of(st.none(), values))
def test_any_value_at_any_key_is_a_scene_error_or_a_scene_that_can_start(target, value):
    """Reading and every pre-run check (physics, memory, obstacle field) raise SceneError and
    nothing else, whatever a key holds (None: the key dropped)."""
    name, path = target
    text = _mutated(name, path, value)
    try:
        scene = parse_scene(text, "fuzz.toml")
        check_runs(scene)
    except SceneError as e:
        _one_line_errors(e)


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=400), st.integers(min_value=0, max_value=2000))
def test_raw_bytes_in_a_scene_are_a_scene_error_or_a_scene(junk, at):
    """Bytes spliced into a scene's text: a SceneError (syntax, UTF-8, values) or a scene."""
    raw = SCENES[0].read_bytes()
    at %= len(raw)
    with contextlib.suppress(SceneError):
        parse_scene(raw[:at] + junk + raw[at:], "bytes.toml")


@pytest.fixture(scope="module")
def recording(tmp_path_factory) -> bytes:
    from rigidflock.cli import main

    path = tmp_path_factory.mktemp("fuzz") / "r.rfr"
    assert main(["run", str(ROOT / "scenes" / "aidemo4.toml"), "--ticks", "130", "--quiet",
                 "--record", str(path)]) == 0  # fmt: skip
    return path.read_bytes()


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_a_damaged_replay_reads_as_its_prefix_or_is_a_replay_error(recording, tmp_path, data):
    """A cut or a changed byte anywhere: ReplayError, or a reader that says it is not complete
    (info and verify agree), whose readable ticks verify without a difference."""
    raw = bytearray(recording)
    if data.draw(st.booleans(), label="cut"):
        raw = raw[: data.draw(st.integers(0, len(raw) - 1), label="at")]
    else:
        at = data.draw(st.integers(0, len(raw) - 1), label="at")
        raw[at] ^= data.draw(st.integers(1, 255), label="xor")
    path = Path(tmp_path) / "d.rfr"
    path.write_bytes(bytes(raw))
    try:
        with ReplayReader(path) as r:
            assert not r.complete  # what info() and replay --info say
            info(r)
            if r.chunks:
                result = verify(r)
                assert result.difference is None
                assert not result.complete  # the CLI's exit 3
    except ReplayError as e:
        assert "\n" not in str(e)

"""The first run says it compiles, compiles before the clock, and its summary is honest; an RTS
run that ends early says how far along it is."""

import re
from pathlib import Path

from rigidflock import Simulation
from rigidflock.cli import main
from rigidflock.runs import warmup


def test_kernels_cold_looks_for_numba_index_files(monkeypatch):
    warmup.warm_up(Simulation("rts_doorway").scene)  # every module compiled and cached now
    assert not warmup.kernels_cold()
    assert not warmup.kernels_cold(Simulation("aidemo4").scene)
    monkeypatch.setattr(warmup, "KERNEL_MODULES", ("rigidflock.outputs",))  # never compiled
    assert warmup.kernels_cold()


def test_a_cold_cache_is_announced_and_compiled_before_the_run(monkeypatch, capsys):
    calls = []
    monkeypatch.setattr(warmup, "kernels_cold", lambda scene=None: True)
    real = warmup.warm_up

    def spy(scene, ticks=2, report=None):
        calls.append(scene.name)
        return real(scene, ticks, report)

    monkeypatch.setattr(warmup, "warm_up", spy)
    assert main(["run", "aidemo4", "--ticks", "5"]) == 0
    out, err = capsys.readouterr()
    assert calls == ["AIDemo4"]
    # not a terminal: the notice, then what it took (on a terminal a live line between them)
    lines = err.splitlines()
    assert "compiling the kernels this scene needs" in lines[0] and len(lines) == 2
    assert re.fullmatch(r"rigidflock: \d+ kernels compiled in [\d.]+ s", lines[1])
    assert "5 ticks in" in out and "of it compiling kernels" in out and "the command" in out


def test_a_warm_cache_says_nothing(capsys):
    warmup.warm_up(Simulation("aidemo4").scene)
    assert main(["run", "aidemo4", "--ticks", "5"]) == 0
    out, err = capsys.readouterr()
    assert "compiling" not in err + out


def test_an_order_still_under_way_is_still_moving_not_a_failure(capsys):
    assert main(["run", "rts_doorway", "--ticks", "400"]) == 0
    out = capsys.readouterr().out
    assert "not all" not in out
    assert "still moving" in out and "% of the route" in out


def test_every_module_with_cached_kernels_is_watched_and_warmed():
    """kernels_cold looks only at KERNEL_MODULES, so a module with cached kernels left out
    compiled mid-run, after the progress bar and clock had started (the line-of-sight kernel of
    move orders was). Helpers numba inlines into another module's kernel have no cache of
    their own."""
    import rigidflock

    pkg = Path(rigidflock.__file__).parent
    cached = re.compile(r"@nb\.njit\((?=[^)]*cache=True)(?![^)]*inline=)[^)]*\)")
    found = {
        ".".join(p.relative_to(pkg.parent).with_suffix("").parts)
        for p in pkg.rglob("*.py")
        if cached.search(p.read_text())
    }
    # warmed by the environments (the native vector env: batch), not by `run`
    gym = {
        "rigidflock.envs.observation_kernel",
        "rigidflock.envs.observation_batch",
        "rigidflock.model.steering.batch",
    }
    assert found - gym == set(warmup.KERNEL_MODULES)

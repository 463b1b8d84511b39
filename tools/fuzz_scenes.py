"""Fuzz the command line with bad scenes and damaged replays; report what it did with them.

    python tools/fuzz_scenes.py [--cases 850] [--jobs 2] [--timeout 60] [--replays]

Scenes: a corpus of structured mutations of every bundled scene (each number replaced by 0, -1,
1e308, nan, inf, 10**12, 2**63 or 10**400; wrong types; dropped keys; huge arrays; deep nesting;
long keys; raw byte damage of the text), each through ``rigidflock check`` and then
``rigidflock run --ticks 20`` in subprocesses with a timeout per command. It counts the cases
handled cleanly (exit 0, or 2 with one-line errors), internal errors (a traceback or "internal
error"), MemoryErrors, hangs (past the timeout), scenes ``check`` accepts and ``run`` refuses (or
the other way round), numpy warnings on the terminal and error lines longer than 300 characters.

``--replays``: a recording of ``scenes/aidemo4.toml`` cut at 100 offsets and with one byte flipped
at 200 offsets spread over the file, each through ``verify`` and ``replay --info``: every answer
must come in time with exit 0 (intact), 3 (damaged or cut short) or 2 (unreadable), never a
traceback, and ``verify`` never 0 on a damaged file.

Exit status 0 when every count that must be 0 is 0.
"""

from __future__ import annotations

import argparse
import concurrent.futures as cf
import math
import random
import subprocess
import sys
import tempfile
import time
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from rigidflock.scene.overrides import to_toml  # noqa: E402

NUMBERS = [0, -1, 1e308, math.nan, math.inf, 10**12, 2**63, 10**400]
WRONG_TYPES = ["text", True, [1, 2, 3], {"a": 1}, [], -(2**63)]


def leaves(node, path=()):
    """Every (path, value) of a TOML document, tables and arrays included."""
    if isinstance(node, dict):
        for k, v in node.items():
            yield (*path, k), v
            yield from leaves(v, (*path, k))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield (*path, i), v
            yield from leaves(v, (*path, i))


def put(data, path, value):
    node = data
    for p in path[:-1]:
        node = node[p]
    node[path[-1]] = value


def drop(data, path):
    node = data
    for p in path[:-1]:
        node = node[p]
    del node[path[-1]]


def copy(data):
    return tomllib.loads(to_toml(data))


def corpus(n_cases: int, seed: int = 12) -> list[tuple[str, str | bytes]]:
    """``(name, scene text or bytes)``: structured mutations of every bundled scene."""
    rng = random.Random(seed)
    scenes = sorted((ROOT / "scenes").glob("*.toml"))
    base = {p.stem: tomllib.loads(p.read_text()) for p in scenes}
    texts = {p.stem: p.read_text() for p in scenes}
    cases: list[tuple[str, str | bytes]] = []

    def add(name, data):
        cases.append((name, to_toml(data)))

    # Every number of every scene, each replaced by each of NUMBERS (sampled to fit the budget).
    numeric = [(s, p) for s, d in base.items() for p, v in leaves(d)
               if isinstance(v, int | float) and not isinstance(v, bool)]  # fmt: skip
    typed = [(s, p) for s, d in base.items() for p, v in leaves(d)]
    special = []
    for s in base:
        # what the issue measured: sizes, counts, dt, cells, lengths, forces
        for path, value in [
            (("world", "size"), [10**48, 600]), (("world", "size"), [1e12, 1e12]),
            (("world", "size"), [1e308, 1e308]), (("world", "dt"), 5e-324),
            (("navigation", "cell"), 0.001), (("navigation", "lookahead"), 2**63),
            (("obstacle_field",), {"count": 10**6}), (("obstacle_field",), {"count": 400}),
            (("obstacle_field",), {"count": 60, "radius": 60}),
            (("groups", 0, "count"), 10**6), (("groups", 0, "count"), 10**12),
            (("groups", 0, "count"), 2**63), (("groups", 0, "thrust"), 1e308),
            (("groups", 0, "length"), 1e308), (("groups", 0, "mass"), 1e-300),
            (("seed",), 10**400), (("rules", "steering_force"), 1e308),
        ]:  # fmt: skip
            special.append((s, path, value))
    for s, path, value in special:
        d = copy(base[s])
        try:
            put(d, path, value)
        except (KeyError, IndexError, TypeError):
            d.setdefault(path[0], value if len(path) == 1 else {})
            if len(path) == 2 and isinstance(d[path[0]], dict):
                d[path[0]][path[1]] = value
        add(f"{s}:{'.'.join(map(str, path))}={str(value)[:20]}", d)
    for s in base:
        d = copy(base[s])  # huge arrays
        d["groups"][0]["spawn"] = {"positions": [[1.0, 1.0]] * 200_000}
        add(f"{s}:huge positions", d)
        d = copy(base[s])
        d["obstacles"] = [{"center": [10.0, 10.0], "radius": 1.0}] * 50_000
        add(f"{s}:huge obstacles", d)
        d = copy(base[s])
        d["player"] = {"control": "waypoints", "waypoints": [[5.0, 5.0]] * 100_000}
        add(f"{s}:huge waypoints", d)
        # deep nesting, long keys
        cases.append(
            (f"{s}:deep inline", texts[s] + "\nx = " + "{a=" * 10_000 + "1" + "}" * 10_000)
        )
        cases.append((f"{s}:deep array", texts[s] + "\nx = " + "[" * 10_000 + "]" * 10_000))
        cases.append((f"{s}:long key", texts[s] + "\n" + "k" * 10_000_000 + " = 1\n"))
        cases.append((f"{s}:huge int", texts[s] + "\nseed = 1" + "0" * 5000 + "\n"))
    per_kind = max(1, (n_cases - len(cases)) // 4)
    for _ in range(per_kind * 2):
        s, path = rng.choice(numeric)
        d = copy(base[s])
        value = rng.choice(NUMBERS)
        put(d, path, value)
        add(f"{s}:{'.'.join(map(str, path))}={str(value)[:20]}", d)
    for _ in range(per_kind // 2):
        s, path = rng.choice(typed)
        d = copy(base[s])
        value = rng.choice(WRONG_TYPES)
        put(d, path, value)
        add(f"{s}:{'.'.join(map(str, path))}:={type(value).__name__}", d)
    for _ in range(per_kind // 2):
        s, path = rng.choice(typed)
        d = copy(base[s])
        drop(d, path)
        add(f"{s}:drop {'.'.join(map(str, path))}", d)
    while len(cases) < n_cases:  # raw byte damage of the text
        s = rng.choice(list(texts))
        raw = bytearray(texts[s].encode())
        kind = rng.choice(["flip", "cut", "insert", "delete"])
        at = rng.randrange(len(raw))
        if kind == "flip":
            raw[at] = rng.randrange(256)
        elif kind == "cut":
            raw = raw[:at]
        elif kind == "insert":
            raw[at:at] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 8)))
        else:
            del raw[at : at + rng.randint(1, 40)]
        cases.append((f"{s}:bytes {kind} at {at}", bytes(raw)))
    return cases


def cli(args: list[str], timeout: float) -> tuple[int | None, str]:
    """(exit status or None on a timeout, stderr) of ``python -m rigidflock ARGS``."""
    try:
        p = subprocess.run(
            [sys.executable, "-m", "rigidflock", *args], check=False, cwd=ROOT, capture_output=True,
            text=True, errors="replace", timeout=timeout,
        )  # fmt: skip
    except subprocess.TimeoutExpired:
        return None, ""
    return p.returncode, p.stderr


def problems(status: int | None, err: str, allowed: set[int]) -> list[str]:
    out = []
    if status is None:
        return ["hang"]
    if "MemoryError" in err:
        out.append("memory_error")
    elif "Traceback" in err or "internal error" in err or status not in allowed:
        out.append("internal_error")
    if "Warning" in err and "warning: " not in err.replace("Warning", ""):
        out.append("numpy_warning")
    if any(len(line) > 300 for line in err.splitlines()):
        out.append("long_echo")
    return out


def one_scene(case, workdir: Path, timeout: float) -> tuple[str, list[str], str]:
    name, text = case
    path = workdir / f"case{abs(hash(name)) % 10**12}.toml"
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    try:
        c_status, c_err = cli(["check", str(path)], timeout)
        found = problems(c_status, c_err, {0, 2})
        r_status, r_err = cli(["run", str(path), "--ticks", "20", "--quiet"], timeout)
        found += problems(r_status, r_err, {0, 1, 2})
        if c_status == 0 and r_status not in (0, None):
            found.append("check_accepts_run_refuses")
        if c_status == 2 and r_status == 0:
            found.append("check_refuses_run_accepts")
    finally:
        path.unlink()
    return name, sorted(set(found)), (c_err + r_err)[-400:]


def fuzz_scenes(n: int, jobs: int, timeout: float) -> bool:
    cases = corpus(n)
    counts: dict[str, int] = {}
    clean = 0
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp, cf.ThreadPoolExecutor(jobs) as ex:
        futures = [ex.submit(one_scene, c, Path(tmp), timeout) for c in cases]
        for k, fut in enumerate(cf.as_completed(futures), 1):
            name, found, err = fut.result()
            if not found:
                clean += 1
            for f in found:
                counts[f] = counts.get(f, 0) + 1
                print(f"  {f}: {name}: {err.strip().splitlines()[-1:] or ''}", flush=True)
            if k % 100 == 0:
                print(f"  {k}/{len(cases)} cases, {time.perf_counter() - start:.0f} s", flush=True)
    print(f"scenes: {len(cases)} cases tried, {clean} handled cleanly")
    for key in ("internal_error", "memory_error", "hang", "check_accepts_run_refuses",
                "check_refuses_run_accepts", "numpy_warning", "long_echo"):  # fmt: skip
        print(f"  {key}: {counts.get(key, 0)}")
    return clean == len(cases)


def one_replay(name: str, path: Path, timeout: float) -> tuple[str, list[str]]:
    found = []
    v_status, v_err = cli(["verify", str(path), "--quiet"], timeout)
    i_status, i_err = cli(["replay", str(path), "--info"], timeout)
    for status, err, allowed in ((v_status, v_err, {2, 3}), (i_status, i_err, {0, 2})):
        found += problems(status, err, allowed | ({0} if allowed == {2, 3} else set()))
    if v_status == 0:
        found.append("verify_0_on_damaged")
    path.unlink()
    return name, sorted(set(found))


def fuzz_replays(jobs: int, timeout: float) -> bool:
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        good = tmp / "good.rfr"
        status, err = cli(["run", "scenes/aidemo4.toml", "--ticks", "300", "--quiet",
                           "--record", str(good)], 600)  # fmt: skip
        assert status == 0, err
        v_status, _ = cli(["verify", str(good), "--quiet"], timeout)
        assert v_status == 0, "the intact recording must verify"
        raw = good.read_bytes()
        cases = []
        for k in range(100):
            at = (k * (len(raw) - 1)) // 100  # 0 .. size - 1: always shorter than the file
            p = tmp / f"cut{k}.rfr"
            p.write_bytes(raw[:at])
            cases.append((f"cut at {at}", p))
        for k in range(200):
            at = (k * len(raw)) // 200 + k % 7
            at = min(at, len(raw) - 1)
            damaged = bytearray(raw)
            damaged[at] ^= 0x5A
            p = tmp / f"flip{k}.rfr"
            p.write_bytes(bytes(damaged))
            cases.append((f"flip at {at}", p))
        counts: dict[str, int] = {}
        clean = 0
        with cf.ThreadPoolExecutor(jobs) as ex:
            futures = [ex.submit(one_replay, name, p, timeout) for name, p in cases]
            for fut in cf.as_completed(futures):
                name, found = fut.result()
                clean += not found
                for f in found:
                    counts[f] = counts.get(f, 0) + 1
                    print(f"  {f}: {name}", flush=True)
    print(f"replays: {len(cases)} damaged files ({len(raw):,} bytes), {clean} answered as the "
          "contract says")  # fmt: skip
    for key in ("internal_error", "hang", "verify_0_on_damaged", "long_echo"):
        print(f"  {key}: {counts.get(key, 0)}")
    return clean == len(cases)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cases", type=int, default=850)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=float, default=60.0, help="seconds per command")
    ap.add_argument("--replays", action="store_true", help="the replay damage run too")
    ap.add_argument("--only-replays", action="store_true")
    a = ap.parse_args()
    ok = True
    if not a.only_replays:
        ok &= fuzz_scenes(a.cases, a.jobs, a.timeout)
    if a.replays or a.only_replays:
        ok &= fuzz_replays(a.jobs, a.timeout)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

"""Changed scenes: ``--set rules.weights.cohesion=2`` on the command line, :func:`derive` in Python.

An override names a key by its dotted path, array entries by index (``groups[0].count``), and
gives a TOML value (``2``, ``0.5``, ``true``, ``"narrow"``, ``[400, 300]``, ``{ wide = 150 }``);
a value that is not TOML is taken as a string, so ``rules.view=narrow`` needs no quotes. The
changed scene is written out as TOML text and read like a file: it is validated exactly like one
(the same messages, ending ``(--set PATH)`` for a key that an override set), and its text, what a
replay stores, is the changed scene, so replays of it verify.

>>> from rigidflock.scene import parse_scene
>>> base = parse_scene("[[groups]]\\ncount = 3\\n", "demo.toml")
>>> scene = derive(base, {"rules.weights.cohesion": 2, "groups[0].count": 5})
>>> scene.rules.weights.cohesion, scene.unit_count
(2.0, 5)
>>> parse_scene(scene.text).unit_count  # the text is the changed scene
5
"""

from __future__ import annotations

import json
import math
import re
import tomllib
from collections.abc import Iterable, Mapping
from typing import Any

from rigidflock.scene.errors import SceneError
from rigidflock.scene.reader import parse_scene
from rigidflock.scene.specs import Scene

_PART_RE = re.compile(r"([A-Za-z0-9_-]+)((?:\[\d+\])*)")
_INDEX_RE = re.compile(r"\[(\d+)\]")
_LINE_RE = re.compile(r" \(line \d+\)$")
_BARE_KEY = re.compile(r"^[A-Za-z0-9_-]+$")
MAX_ASSIGNMENT = 1000  # characters in one --set: longer ones are refused, not echoed


def parse_path(path: str) -> tuple[str | int, ...]:
    """``"groups[0].spawn.center"`` -> ``("groups", 0, "spawn", "center")``.

    >>> parse_path("groups[1].count")
    ('groups', 1, 'count')
    """
    out: list[str | int] = []
    for part in path.split("."):
        m = _PART_RE.fullmatch(part.strip())
        if m is None:
            raise ValueError(f"{path!r} is not a key path (e.g. rules.weights.cohesion)")
        out.append(m.group(1))
        out += [int(i) for i in _INDEX_RE.findall(m.group(2))]
    return tuple(out)


def parse_value(text: str) -> Any:
    """A TOML value, or the text itself when it is not one.

    >>> parse_value("2"), parse_value("[1, 2]"), parse_value("narrow"), parse_value('"x y"')
    (2, [1, 2], 'narrow', 'x y')
    """
    try:
        return tomllib.loads(f"v = {text}")["v"]
    except (tomllib.TOMLDecodeError, RecursionError, ValueError):  # too deep, too many digits
        return text.strip()


def parse_assignment(text: str) -> tuple[str, Any]:
    """``"PATH=VALUE"`` -> (path, value); raises ValueError with a short reason."""
    if len(text) > MAX_ASSIGNMENT:
        raise ValueError(f"longer than {MAX_ASSIGNMENT} characters")
    path, sep, value = text.partition("=")
    if not sep or not path.strip():
        raise ValueError("expected PATH=VALUE, e.g. rules.weights.cohesion=2")
    parse_path(path.strip())
    return path.strip(), parse_value(value)


def _set(data: dict, path: tuple[str | int, ...], value: Any) -> None:
    node: Any = data
    for k, key in enumerate(path[:-1]):
        nxt = path[k + 1]
        if isinstance(key, int):
            if not isinstance(node, list) or key >= len(node):
                have = len(node) if isinstance(node, list) else 0
                raise ValueError(f"index {key} is out of range ({have} entries)")
            node = node[key]
        else:
            if not isinstance(node, dict):
                raise ValueError(f"{key!r} is inside a value that is not a table")
            node = node.setdefault(key, [] if isinstance(nxt, int) else {})
    last = path[-1]
    if isinstance(last, int):
        if not isinstance(node, list) or last > len(node):
            raise ValueError(f"index {last} is out of range")
        if last == len(node):
            node.append(value)
        else:
            node[last] = value
    elif isinstance(node, dict):
        node[last] = value
    else:
        raise ValueError(f"{last!r} is inside a value that is not a table")


def _key(k: str) -> str:
    return k if _BARE_KEY.match(k) else json.dumps(k, ensure_ascii=False)


def toml_value(v: Any) -> str:
    """``v`` written as a TOML value (``2``, ``"narrow"``, ``[1, 2]``, ``{ a = 1 }``)."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float) and not math.isfinite(v):
        return "nan" if math.isnan(v) else ("inf" if v > 0 else "-inf")
    if isinstance(v, int | float):
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)
    if isinstance(v, list):
        return "[" + ", ".join(toml_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{_key(k)} = {toml_value(x)}" for k, x in v.items()) + " }"
    return v.isoformat() if hasattr(v, "isoformat") else json.dumps(str(v))


def _is_table_array(v: Any) -> bool:
    return isinstance(v, list) and bool(v) and all(isinstance(x, dict) for x in v)


def to_toml(data: Mapping[str, Any]) -> str:
    """TOML text for ``data`` (as tomllib reads it): top-level keys, then ``[table]`` sections,
    then ``[[array]]`` entries; deeper tables are written inline."""
    lines = [f"{_key(k)} = {toml_value(v)}" for k, v in data.items() if not isinstance(v, dict)
             and not _is_table_array(v)]  # fmt: skip
    for k, v in data.items():
        if isinstance(v, dict):
            lines += ["", f"[{_key(k)}]", *(f"{_key(a)} = {toml_value(b)}" for a, b in v.items())]
    for k, v in data.items():
        if _is_table_array(v):
            for entry in v:
                lines += ["", f"[[{_key(k)}]]"]
                lines += [f"{_key(a)} = {toml_value(b)}" for a, b in entry.items()]
    return "\n".join(lines).lstrip("\n") + "\n"


def _covers(set_path: tuple, error_path: str) -> bool:
    try:
        got = parse_path(error_path)
    except ValueError:
        return False
    n = min(len(set_path), len(got))
    return got[:n] == set_path[:n]


def _explain(errors: Iterable[str], source: str, paths: list[tuple[str, tuple]]) -> list[str]:
    """Errors of the changed scene: its line numbers mean nothing to the user (the text was
    written here), so each message names the override that set the key instead, when one did."""
    out = []
    for error in errors:
        msg = _LINE_RE.sub("", error)
        field = msg[len(source) + 2 :].split(":", 1)[0] if msg.startswith(source) else ""
        by = [text for text, p in paths if _covers(p, field)]
        out.append(f"{msg} (--set {by[-1]})" if by else msg)
    return out


def apply_overrides(scene: Scene, overrides: Mapping[str, Any] | Iterable[str]) -> Scene:
    """``scene`` with ``overrides`` applied: a mapping of key path -> value, or ``PATH=VALUE``
    strings as given to ``--set``. Raises :class:`SceneError` naming the file and the key."""
    if isinstance(overrides, Mapping):
        items = list(overrides.items())
    else:
        items = []
        for text in overrides:
            try:
                items.append(parse_assignment(text))
            except ValueError as e:
                shown = text if len(text) <= 60 else text[:57] + "..."
                raise SceneError([f"{scene.source}: --set {shown}: {e}"]) from None
    if not items:
        return scene
    data = tomllib.loads(scene.text.removeprefix("\ufeff"))
    paths = []
    for path_text, value in items:
        try:
            path = parse_path(path_text)
            _set(data, path, value)
        except ValueError as e:
            raise SceneError([f"{scene.source}: --set {path_text}: {e}"]) from None
        paths.append((path_text, path))
    said = " ".join(f"{p}={toml_value(v)}" for p, v in items)
    text = f"# {scene.source} with --set {said}\n" + to_toml(data)
    try:
        return parse_scene(text, scene.source)
    except SceneError as e:
        raise SceneError(_explain(e.errors, scene.source, paths)) from None


def derive(scene: Scene, changes: Mapping[str, Any]) -> Scene:
    """A new scene: ``scene`` with ``changes`` (key path -> value) applied and validated, whose
    ``text`` is the changed scene (replays store it). See the module docstring."""
    return apply_overrides(scene, changes)

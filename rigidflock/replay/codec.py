"""Commands as JSON: what a replay stores of each :class:`~rigidflock.sim.Command`.

A command is stored as JSON built from its dataclass fields (nested frozen dataclasses, tuples,
str/int/float/bool/None, numpy arrays), tagged with its class name. Reading rebuilds only the
types listed in :data:`COMMAND_TYPES` (Command and the types it holds): a file naming any other
type, or a field this version does not know, is a clear error. A tick whose command is None or
equals ``Command()`` (every field at its default: the scene's own control drives, no switches)
is not stored; the simulation treats both alike, and a test checks it.
"""

from __future__ import annotations

import dataclasses
import functools

import numpy as np

from rigidflock.replay.container import ALLOWED_DTYPES
from rigidflock.scene import BuildingSpec, OrderSpec, SelectSpec
from rigidflock.sim.commands import Command

# The only types a file may ask to rebuild: Command and what its fields hold (orders hold a
# selection; placed buildings). Written out, never discovered: a file cannot name anything else.
COMMAND_TYPES: dict[str, type] = {
    "Command": Command,
    "OrderSpec": OrderSpec,
    "SelectSpec": SelectSpec,
    "BuildingSpec": BuildingSpec,
}


def to_jsonable(obj):
    """A command (or any value inside one) as JSON-able data; dataclasses are tagged."""
    if obj is None or isinstance(obj, bool | str):
        return obj
    if isinstance(obj, int | np.integer):
        return int(obj)
    if isinstance(obj, float | np.floating):
        return float(obj)
    if isinstance(obj, np.bool_):
        return bool(obj)
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        out = {"__type__": type(obj).__name__}
        for f in dataclasses.fields(obj):
            out[f.name] = to_jsonable(getattr(obj, f.name))
        return out
    if isinstance(obj, np.ndarray):
        return _array_to_jsonable(obj)
    if isinstance(obj, tuple | list):
        return [to_jsonable(v) for v in obj]
    if isinstance(obj, dict):
        if not all(isinstance(k, str) for k in obj):
            raise TypeError("cannot record a dict with non-string keys")
        return {"__dict__": {k: to_jsonable(v) for k, v in obj.items()}}
    raise TypeError(f"cannot record a value of type {type(obj).__name__}")


def _array_to_jsonable(obj: np.ndarray) -> dict:
    a = np.ascontiguousarray(obj)
    if a.dtype.str not in ALLOWED_DTYPES:
        raise TypeError(f"cannot record an array of {a.dtype}")
    return {"__ndarray__": a.dtype.str, "shape": list(a.shape), "data": a.ravel().tolist()}


def from_jsonable(data, registry: dict[str, type] | None = None):
    """Inverse of :func:`to_jsonable` (JSON arrays become tuples); dataclasses only of
    ``registry`` (default :data:`COMMAND_TYPES`). Raises ValueError."""
    registry = COMMAND_TYPES if registry is None else registry
    if data is None or isinstance(data, bool | int | float | str):
        return data
    if isinstance(data, list):
        return tuple(from_jsonable(v, registry) for v in data)
    if not isinstance(data, dict):
        raise ValueError(f"unexpected {type(data).__name__}")
    if "__ndarray__" in data:
        return _array_from_jsonable(data)
    if "__dict__" in data:
        if not isinstance(data["__dict__"], dict):
            raise ValueError("bad mapping")
        return {k: from_jsonable(v, registry) for k, v in data["__dict__"].items()}
    return _dataclass_from_jsonable(data, registry)


def _array_from_jsonable(data: dict) -> np.ndarray:
    dtype = data["__ndarray__"]
    if dtype not in ALLOWED_DTYPES or not isinstance(data.get("shape"), list):
        raise ValueError(f"bad array {dtype!r}")
    return np.asarray(data.get("data", []), dtype=np.dtype(dtype)).reshape(data["shape"])


def _dataclass_from_jsonable(data: dict, registry: dict[str, type]):
    name = data.get("__type__")
    cls = registry.get(name) if isinstance(name, str) else None
    if cls is None:
        raise ValueError(f"unknown type {name!r} (written by a newer rigidflock?)")
    known = {f.name for f in dataclasses.fields(cls) if f.init}
    extra = sorted(set(data) - known - {"__type__"})
    if extra:
        raise ValueError(
            f"{name} has no field {extra[0]!r} in this rigidflock (written by a newer version?)"
        )
    kwargs = {k: from_jsonable(v, registry) for k, v in data.items() if k != "__type__"}
    try:
        return cls(**kwargs)
    except (TypeError, ValueError) as e:
        raise ValueError(f"cannot rebuild {name}: {e}") from None


@functools.cache
def _default_command_record():
    return to_jsonable(Command())


def command_record(command) -> object | None:
    """The JSON form of a command worth storing; None for None or the default Command()."""
    if command is None:
        return None
    data = to_jsonable(command)
    return None if data == _default_command_record() else data


def command_matters(command) -> bool:
    """False for None and for a command with every field at its default (not stored)."""
    return command_record(command) is not None

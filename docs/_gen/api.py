"""reference/api.md: every public name of the package, documented from its docstring.

A public name is one in the ``__all__`` of the top-level package or of a public subpackage
below, or a public function or class of the listed ``runs`` modules. Names the top-level
package re-exports are documented there once and linked from their home.
"""

from __future__ import annotations

import importlib
import inspect
import struct

PACKAGES = [
    ("rigidflock.sim", "The simulation: commands, events, the model version."),
    ("rigidflock.scene", "Scene files: the specs, the reader, generation, the key reference."),
    ("rigidflock.bundled", "The bundled scenes, scenarios and sweeps."),
    ("rigidflock.replay", "Replay files: recording, reading, verifying."),
    ("rigidflock.rts", "Move orders: groups and their control."),
    (
        "rigidflock.model.behaviours",
        "Users' own steering behaviours: the units view, names to functions, the calls.",
    ),
    ("rigidflock.behaviours.examples", "Example behaviours: wander, flee, flow_field."),
    ("rigidflock.render", "Drawing and the viewer (pyglet; loaded on first use)."),
    ("rigidflock.envs", "Gymnasium environments (the `gym` extra)."),
    ("rigidflock.envs.pursuit_v0", "The PettingZoo environment (the `pettingzoo` extra)."),
]
RUNS = [
    "rigidflock.runs.runner",
    "rigidflock.runs.collector",
    "rigidflock.runs.sweep_spec",
    "rigidflock.runs.sweep",
    "rigidflock.runs.executors",
    "rigidflock.runs.series",
    "rigidflock.runs.plots",
    "rigidflock.runs.export",
]


def _directive(qualified: str, obj) -> str:
    """An autodoc directive for ``obj``, inside ``eval-rst``: autodoc writes reStructuredText
    (and the docstrings are reStructuredText), which a MyST directive would read as markdown."""
    if inspect.isclass(obj):
        kind = "exception" if issubclass(obj, BaseException) else "class"
        body = f".. auto{kind}:: {qualified}\n   :members:"
    elif callable(obj):
        body = f".. autofunction:: {qualified}"
    else:  # a constant: its value (autodata would show its type's docstring)
        body = f".. py:data:: {qualified}\n   :value: {_short(obj)}"
    return f"```{{eval-rst}}\n{body}\n```\n"


def _short(value) -> str:
    """The value as the page shows it: its repr, or its format for a ``struct.Struct`` (whose
    repr names a memory address, different on every run)."""
    text = f"struct.Struct({value.format!r})" if isinstance(value, struct.Struct) else repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _public(module) -> list[str]:
    names = getattr(module, "__all__", None)
    if names is not None:
        return [n for n in names if not n.startswith("__")]
    return [
        n
        for n, v in vars(module).items()
        if not n.startswith("_")
        and (inspect.isfunction(v) or inspect.isclass(v))
        and v.__module__ == module.__name__
    ]


def _section(name: str, blurb: str, top: dict[int, str]) -> list[str]:
    module = importlib.import_module(name)
    out = [f"## `{name}`\n", f"{blurb}\n"]
    linked = []
    for attr in _public(module):
        obj = getattr(module, attr)
        if id(obj) in top and not isinstance(obj, int | float | str | tuple):
            linked.append(f"{{py:obj}}`{attr} <{top[id(obj)]}>`")
            continue
        out.append(_directive(f"{name}.{attr}", obj))
    if linked:
        out.insert(2, f"Also here, documented above: {', '.join(linked)}.\n")
    return out


def page() -> str:
    import rigidflock

    out = [
        "# Python API\n",
        "Generated from the docstrings by `python docs/generate.py`: every name in the `__all__`"
        " of the package and its public subpackages. The\n"
        "[worked example](../guides/python-api.md) shows them in use.\n",
        "## `rigidflock`\n",
        "The names a user needs, importable from the top level: `from rigidflock import ...`.\n",
    ]
    top: dict[int, str] = {}
    for attr in _public(rigidflock):
        obj = getattr(rigidflock, attr)
        top[id(obj)] = f"rigidflock.{attr}"
        out.append(_directive(f"rigidflock.{attr}", obj))
    for name, blurb in PACKAGES:
        out += _section(name, blurb, top)
    out.append("## `rigidflock.runs`\n")
    out.append("Headless runs, series, sweeps, executors, plots and export.\n")
    for name in RUNS:
        out += _section(name, importlib.import_module(name).__doc__.strip().splitlines()[0], top)
    return "\n".join(out)


def pages() -> dict[str, str]:
    return {"reference/api.md": page()}

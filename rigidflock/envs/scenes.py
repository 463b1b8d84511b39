"""Where the environments find their default scene: the bundled scenes (rigidflock.bundled)."""

from __future__ import annotations

from pathlib import Path

from rigidflock.bundled import bundled_scene as _bundled

DEFAULT_SCENE = "aidemo4"  # a player chased by two flocks (chasers and interceptors)


def bundled_scene(name: str = DEFAULT_SCENE) -> Path:
    """Path of the bundled scene ``name`` (default: the aidemo4 scene); FileNotFoundError when
    rigidflock ships no scene of that name (pass ``scene=`` a path of your own)."""
    path = _bundled(name)
    if path is None:
        raise FileNotFoundError(f"no bundled scene {name!r} (rigidflock scenes lists them)")
    return path

"""Where the environments find their default scene.

The scenes ship in the repository's ``scenes/`` folder today; when they move inside the package,
only :func:`bundled_scene` changes.
"""

from __future__ import annotations

from pathlib import Path

DEFAULT_SCENE = "aidemo4.toml"  # a player chased by two flocks (chasers and interceptors)


def bundled_scene(name: str = DEFAULT_SCENE) -> Path:
    """Path of the scene file ``name`` shipped with rigidflock (default: the aidemo4 scene).

    Raises FileNotFoundError naming the places looked at when it is not there (an installed
    wheel without the ``scenes/`` folder: pass ``scene=`` a path of your own).
    """
    here = Path(__file__).resolve().parent
    places = [here.parent / "scenes", here.parent.parent / "scenes"]
    for folder in places:
        path = folder / name
        if path.is_file():
            return path
    looked = ", ".join(str(p) for p in places)
    raise FileNotFoundError(f"scene {name!r} not found (looked in {looked}); pass scene=PATH")

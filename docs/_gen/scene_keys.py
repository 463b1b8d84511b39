"""reference/scene-keys.md: the scene reader's declarations as tables."""

from rigidflock.scene.reference_doc import markdown


def pages() -> dict[str, str]:
    return {"reference/scene-keys.md": markdown()}

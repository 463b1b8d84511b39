"""docs/reference/scene-keys.md is what the reader's declarations generate; it covers every key."""

from rigidflock.scene.keys import reference
from rigidflock.scene.reference_doc import markdown, text
from tests.conftest import ROOT


def test_docs_scenes_md_is_up_to_date():
    """Regenerate with: python docs/generate.py"""
    assert (ROOT / "docs" / "reference" / "scene-keys.md").read_text() == markdown()


def test_every_key_is_in_both_forms():
    md, plain = markdown(), text()
    for row in reference():
        head, _, rest = row.path.partition(".")
        shown = f"`{rest}`" if rest else f"`{head}`"  # a key in its table's section
        table = f"[{head.removesuffix('[]')}]"
        assert shown in md or (not rest and table in md), row.path
        assert row.path in plain
    assert "| `ticks` | integer | 1800 | >= 1 |" in md  # [run] ticks: how long a scene runs


def test_check_keys_prints_the_reference(capsys):
    from rigidflock.cli import main

    assert main(["check", "--keys", "--markdown"]) == 0
    assert capsys.readouterr().out == markdown()
    assert main(["check", "--keys"]) == 0
    assert capsys.readouterr().out == text() + "\n"
    assert main(["check"]) == 2  # neither scenes nor --keys: one usage line
    assert len(capsys.readouterr().err.strip().splitlines()) == 1

"""Helpers for scene tests: the errors a bad scene text raises."""

from __future__ import annotations

import pytest

from rigidflock.scene import SceneError, parse_scene


def errors_of(text: str, source: str = "x.toml") -> list[str]:
    with pytest.raises(SceneError) as info:
        parse_scene(text, source)
    errors = info.value.errors
    assert errors, "SceneError without errors"
    assert str(info.value) == "\n".join(errors)
    for line in errors:
        assert "\n" not in line
        assert line.startswith(f"{source}: ")
    return errors


def one_error(text: str, source: str = "x.toml") -> str:
    errors = errors_of(text, source)
    assert len(errors) == 1, errors
    return errors[0]


def with_group(extra: str, group: str = "count = 3") -> str:
    return f"{extra}\n\n[[groups]]\n{group}\n"

"""The TOML line finder that decorates messages (rigidflock.scene.lines)."""

from __future__ import annotations

from rigidflock.scene.lines import key_lines, key_parts, parent_path

TEXT = '''\
name = "x"            # 1
[world]               # 2
size = [1, 2]         # 3
[[groups]]            # 4
count = 1             # 5
spawn.radius = 3      # 6
[[groups]]            # 7
"odd key" = 2         # 8
notes = """           # 9
[not a header]
"""
[groups.spawn]        # 12
center = [             # 13
  1,
  2,
]
[player]              # 17
'''


def test_key_lines_follow_tables_and_arrays_of_tables():
    lines = key_lines(TEXT)
    assert lines["name"] == 1
    assert lines["world"] == 2
    assert lines["world.size"] == 3
    assert lines["groups[0]"] == 4
    assert lines["groups[0].count"] == 5
    assert lines["groups[0].spawn.radius"] == 6
    assert lines["groups[1]"] == 7
    assert lines["groups[1].odd key"] == 8
    assert lines["groups[1].spawn"] == 12
    assert lines["groups[1].spawn.center"] == 13
    assert lines["player"] == 17
    assert "not a header" not in lines  # inside a multi-line string
    assert "1" not in lines and "groups[1].spawn.1" not in lines  # inside a multi-line array


def test_key_parts_and_parent_path():
    assert key_parts("a.\"b.c\".'d'") == ["a", "b.c", "d"]
    assert parent_path("groups[1].spawn.radius") == "groups[1].spawn"
    assert parent_path("groups[1].spawn") == "groups[1]"
    assert parent_path("groups[1]") == "groups"
    assert parent_path("groups") == ""
    assert parent_path("buildings[0] corner 3") == "buildings[0]"

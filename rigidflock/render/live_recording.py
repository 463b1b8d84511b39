"""Recording from the live viewer: every non-default command since the start, and the replay
file being written.

A recording started mid-run still re-simulates from tick 0 (``rigidflock verify``): the commands
logged before it (a few bytes each) go into the file's header as its prelude.
"""

from __future__ import annotations

import datetime
from collections.abc import Callable
from pathlib import Path

from rigidflock.replay import command_matters
from rigidflock.sim import Command


class LiveRecording:
    """``log`` every tick's command; ``start`` / ``stop`` a replay file. ``on_change`` runs when
    a recording starts or ends (the HUD shows it)."""

    def __init__(self, sim, on_change: Callable[[], None] = lambda: None):
        self.sim = sim
        self.on_change = on_change
        self.recorder = None  # a rigidflock.replay.Recorder while recording
        self.input_log: list[tuple[int, Command]] = []  # non-default commands since the start

    def log(self, tick: int, command: Command, events) -> None:
        """The command of ``tick`` and the events of stepping it."""
        if command_matters(command):
            self.input_log.append((tick, command))
        if self.recorder is not None:
            self.recorder.record(command, events)

    def start(
        self, path: str | Path | None = None, precision: str = "compact", directory: Path = Path()
    ) -> Path:
        """Record from now on (default: a timestamped file in ``directory``)."""
        from rigidflock.replay import Recorder

        self.stop()
        if path is None:
            stem = Path(str(self.sim.scene.source)).stem or "rigidflock"
            stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
            path = directory / f"rigidflock-{stem}-{stamp}.rfr"
        self.recorder = Recorder(path, self.sim, precision=precision, prelude=self.input_log)
        self.on_change()
        print(f"rigidflock: recording to {path}")
        return Path(path)

    def stop(self) -> Path | None:
        """End the recording, if one runs; returns its file."""
        rec, self.recorder = self.recorder, None
        if rec is None:
            return None
        rec.close()
        self.on_change()
        print(f"rigidflock: saved replay {rec.path} ({rec.ticks} ticks)")
        return rec.path

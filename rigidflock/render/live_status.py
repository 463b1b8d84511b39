"""The live viewer's side-panel state: frame and tick rates, the status cached between rebuilds,
and short messages ("goal moved ...") shown for a few seconds."""

from __future__ import annotations

import time
from collections import deque

from rigidflock.render.hud import STATUS_WIDTH, Hud, fit_text

HUD_INTERVAL = 0.25  # seconds between HUD text updates
MESSAGE_SECONDS = 4.0  # how long a message stays in the side panel


class Rate:
    """Events per second over the last second."""

    def __init__(self):
        self.times: deque[float] = deque()

    def add(self, t: float, n: int = 1) -> None:
        for _ in range(n):
            self.times.append(t)
        while self.times and t - self.times[0] > 1.0:
            self.times.popleft()

    def value(self, t: float) -> float:
        while self.times and t - self.times[0] > 1.0:
            self.times.popleft()
        return float(len(self.times))


class LiveStatus:
    """The HUD rebuilt at most every HUD_INTERVAL seconds (sooner after :meth:`invalidate`), with
    the recording's file and the current message added."""

    def __init__(self):
        self.fps, self.tps = Rate(), Rate()
        self.hud: Hud | None = None
        self.time = -1.0  # when ``hud`` was built
        self.message: str | None = None  # shown in the side panel until message_until
        self.message_until = 0.0

    def invalidate(self) -> None:
        """Rebuild the HUD at the next frame (something it shows changed)."""
        self.hud = None

    def due(self, now: float) -> bool:
        return self.hud is None or now - self.time >= HUD_INTERVAL

    def show(self, hud: Hud, now: float, recording: str | None = None) -> Hud:
        """Keep ``hud`` (built at ``now``) with the recording's file name and the message."""
        if recording is not None:
            hud.status.append(("REC", fit_text(recording, STATUS_WIDTH)))
        if self.message is not None and now < self.message_until:
            hud.notes.append(self.message)
        self.hud, self.time = hud, now
        return hud

    def say(self, text: str) -> None:
        """Show ``text`` in the side panel for a few seconds (and on stdout)."""
        self.message = text
        self.message_until = time.perf_counter() + MESSAGE_SECONDS
        self.hud = None
        print(f"rigidflock: {text}")

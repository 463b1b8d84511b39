"""What an environment writes and draws of its simulation: each episode's replay (``record_to``,
``{episode}`` in it numbered) and its frames (``render_mode`` "rgb_array" or "human"). Shared by
the Gymnasium and PettingZoo environments, which hold ``sim``, ``record_to``, ``episode``,
``render_mode`` and ``render_size``."""

from __future__ import annotations

import warnings
from pathlib import Path


class EpisodeOutputs:
    """The replay of the episode under way (``recorder``; ``replay_path``: the last one's) and
    the viewer window of ``"human"`` frames (opened on first use; with no display, the frames
    are skipped with one warning, so that an environment made for "human" still runs headless,
    as Gymnasium's and PettingZoo's checkers make every declared mode)."""

    recorder = None
    replay_path: Path | None = None
    _viewer = None
    _warned_headless = False

    def _start_recording(self) -> None:
        if self.record_to is None:
            return
        from rigidflock.replay import Recorder

        path = Path(self.record_to.replace("{episode}", str(self.episode)))
        self.recorder = Recorder(path, self.sim)
        self.replay_path = path

    def _stop_recording(self) -> None:
        if self.recorder is not None:
            self.recorder.close()
            self.recorder = None

    def _draw(self):
        """The frame of ``render_mode``: (H, W, 3) uint8 for "rgb_array"; for "human" drawn in
        the window, or skipped with one warning when there is no display, None; no render
        mode: None."""
        if self.render_mode == "human" and self._viewer is None:
            from rigidflock.envs.drawing import has_display

            if not has_display():
                if not self._warned_headless:
                    warnings.warn(
                        "render_mode='human' has no display to draw on (no DISPLAY or "
                        "WAYLAND_DISPLAY, or RIGIDFLOCK_HEADLESS is set): frames are skipped; "
                        "use render_mode='rgb_array' to draw offscreen",
                        stacklevel=3,
                    )
                    self._warned_headless = True
                return None
        if self.render_mode == "rgb_array":
            from rigidflock.envs.drawing import rgb_array

            return rgb_array(self.sim, self.render_size)
        if self.render_mode == "human":
            from rigidflock.envs.drawing import HumanView

            if self._viewer is None:
                self._viewer = HumanView(self.sim, self.render_size)
            self._viewer.show()
        return None

    def _close_outputs(self) -> None:
        """Finish the replay under way and close the window."""
        self._stop_recording()
        if self._viewer is not None:
            self._viewer.close()
            self._viewer = None

"""Replay files: recorder, reader, verification and playback of recorded runs.

A replay holds everything needed to see a run again and to run it again: the scene, seed and
versions, every input that changed the run, and every unit's state at every tick::

    with Recorder("run.rfr", sim) as rec:          # records sim's current state first
        for _ in range(600):
            events = sim.step(command)
            rec.record(command, events)
    with ReplayReader("run.rfr") as r:
        r.state(300).pos                           # stored positions at tick 300
    verify(ReplayReader("run.rfr")).ok             # re-simulate and compare every tick

Modules: :mod:`~rigidflock.replay.container` (file framing, checksums, bounds),
:mod:`~rigidflock.replay.states` (state encodings),
:mod:`~rigidflock.replay.payload` (data chunk contents), :mod:`~rigidflock.replay.codec`
(commands as JSON), :mod:`~rigidflock.replay.recorder`, :mod:`~rigidflock.replay.reader`,
:mod:`~rigidflock.replay.verify`, :mod:`~rigidflock.replay.info` and
:mod:`~rigidflock.replay.playback` (stored ticks as something to draw).
"""

from rigidflock.replay.codec import command_matters, from_jsonable, to_jsonable
from rigidflock.replay.container import CHUNK, CHUNK_HEAD, FORMAT_VERSION, PREAMBLE
from rigidflock.replay.errors import ReplayError
from rigidflock.replay.info import format_info, info
from rigidflock.replay.reader import ReplayReader, open_replay
from rigidflock.replay.recorder import Recorder
from rigidflock.replay.states import quantize
from rigidflock.replay.verify import VerifyResult, verify

__all__ = [
    "CHUNK",
    "CHUNK_HEAD",
    "FORMAT_VERSION",
    "PREAMBLE",
    "Recorder",
    "ReplayError",
    "ReplayReader",
    "VerifyResult",
    "command_matters",
    "format_info",
    "from_jsonable",
    "info",
    "open_replay",
    "quantize",
    "to_jsonable",
    "verify",
]

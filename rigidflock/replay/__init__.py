"""Replay files: recorder, reader, verification and playback of recorded runs."""

from rigidflock.replay.core import (
    CHUNK,
    CHUNK_HEAD,
    FORMAT_VERSION,
    PREAMBLE,
    Recorder,
    ReplayError,
    ReplayReader,
    VerifyResult,
    command_matters,
    format_info,
    from_jsonable,
    info,
    open_replay,
    quantize,
    to_jsonable,
    verify,
)

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

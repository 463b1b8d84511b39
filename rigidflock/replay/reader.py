"""Reading a replay: :class:`ReplayReader` (header, chunk index, states, events, inputs).
Chunks are decoded on demand::

    with ReplayReader("run.rfr") as r:
        r.state(300).pos                           # stored positions at tick 300
"""

from __future__ import annotations

import json
import os
from collections import OrderedDict
from pathlib import Path

import numpy as np
import zstandard

from rigidflock.model.state import State
from rigidflock.replay.codec import COMMAND_TYPES, from_jsonable
from rigidflock.replay.container import (
    CHUNK_HEAD,
    DATA,
    END,
    FORMAT,
    HEADER,
    MAGIC,
    MAX_CHUNK_TICKS,
    MAX_HEADER,
    MAX_UNITS,
    PREAMBLE,
    PRECISIONS,
    ChunkInfo,
    decompress,
    read_chunk_head,
    read_payload,
    version_problem,
)
from rigidflock.replay.errors import fail
from rigidflock.replay.payload import Chunk, decode_chunk, is_input
from rigidflock.replay.states import SCALES, STATE_FIELDS
from rigidflock.scene import SceneError, parse_scene
from rigidflock.scene.overrides import derive
from rigidflock.scene.specs import MAX_FACTOR

# The header fields a reader relies on, and their JSON types.
HEADER_TYPES = {
    "scene_text": str,
    "scene_source": str,
    "seed": int,
    "dt": float,
    "units": int,
    "precision": str,
    "chunk_ticks": int,
    "start_tick": int,
    "prelude": list,
}


def _header_problem(header: dict) -> str | None:
    """Why a header (format and version already checked) is damaged; None when it is not."""
    for key, tp in HEADER_TYPES.items():
        v = header.get(key)
        if not isinstance(v, tp) or isinstance(v, bool):
            return f"replay header damaged (field {key!r})"
    if header["precision"] not in PRECISIONS:
        return f"unknown replay precision {header['precision']!r}"
    if not 0 <= header["units"] <= MAX_UNITS or header["start_tick"] < 0:
        return "replay header damaged (unit count or start tick)"
    if not 1 <= header["chunk_ticks"] <= MAX_CHUNK_TICKS:
        return "replay header damaged (chunk size)"
    return None


def _scan_problem(reason: str, tick: int, offset: int) -> str:
    """What ``problem`` says when the scan stops at ``offset`` after ``tick``."""
    if reason == "eof":
        return f"cut short at tick {tick} (no end mark: the recording stopped)"
    if reason == "cut":
        return f"cut short at tick {tick} (incomplete chunk at byte {offset})"
    return f"damaged chunk at byte {offset}; readable up to tick {tick}"


def model_version_of(header: dict) -> int:
    """The model version a recording was made with (files before the field: model 1)."""
    v = header.get("model_version", 1)
    return v if isinstance(v, int) and not isinstance(v, bool) else 1


class ReplayReader:
    """Reads a replay file: the header at once, the chunk index by scanning every chunk's
    checksums, the data chunk by chunk on demand (a few decoded chunks are cached).

    ``complete`` is False when the file has no end chunk (it was cut short) or a damaged chunk;
    ``problem`` then says where, and the readable ticks are ``first_tick..last_tick``.
    Raises :class:`ReplayError` when the file is not a replay, is of an unknown format version,
    or its header is damaged.
    """

    CACHE = 4

    def __init__(self, path: str | os.PathLike):
        self.path = Path(path)
        try:
            self._fh = open(self.path, "rb")  # noqa: SIM115 - closed by close()
        except FileNotFoundError:
            raise fail(path, "no such file") from None
        except IsADirectoryError:
            raise fail(path, "is a directory, not a replay file") from None
        except OSError as e:
            raise fail(path, f"cannot read: {e.strerror or e}") from None
        try:
            self.size = os.fstat(self._fh.fileno()).st_size
            self._dctx = zstandard.ZstdDecompressor()
            self._cache: OrderedDict[int, Chunk] = OrderedDict()
            self._read_preamble()
            self.header = self._read_header()
            self._scan()
        except BaseException:
            self._fh.close()
            raise

    # -- opening ------------------------------------------------------------------------------

    def _read_preamble(self) -> None:
        data = self._fh.read(PREAMBLE.size)
        if len(data) < len(MAGIC) or not data.startswith(MAGIC):
            what = "empty file" if not data else "no replay signature"
            raise fail(self.path, f"not a rigidflock replay ({what})")
        if len(data) < PREAMBLE.size:
            raise fail(self.path, "replay cut short inside its header")
        _, version, flags, reserved = PREAMBLE.unpack(data)
        self._check_version(version)
        if flags or reserved:  # written as 0 and not checksummed: anything else is damage
            raise fail(self.path, "damaged replay header (preamble flags)")

    def _check_version(self, version) -> None:
        problem = version_problem(version)
        if problem is not None:
            raise fail(self.path, problem)

    def _read_header(self) -> dict:
        got = read_chunk_head(self._fh, PREAMBLE.size, self.size)
        if isinstance(got, str) or got[1] != HEADER:
            if got in ("cut", "eof"):
                raise fail(self.path, "replay cut short inside its header (nothing readable)")
            raise fail(self.path, "replay header damaged (not readable)")
        info, _ = got
        if info.raw_len > MAX_HEADER:
            raise fail(self.path, "replay header damaged (too large)")
        try:
            raw = decompress(self._dctx, info, read_payload(self._fh, info))
            header = json.loads(raw.decode("utf-8"))
        except (ValueError, UnicodeDecodeError) as e:
            raise fail(self.path, f"replay header damaged ({e})") from None
        if not isinstance(header, dict) or header.get("format") != FORMAT:
            raise fail(self.path, "not a rigidflock replay (header has no replay format)")
        self._check_version(header.get("format_version"))
        problem = _header_problem(header)
        if problem is not None:
            raise fail(self.path, problem)
        self._data_start = info.offset + CHUNK_HEAD + info.payload_len
        return header

    def _scan(self) -> None:
        """Walk the chunks after the header, checking both checksums of each: the index of
        the intact prefix, and whether (and where) the file ends early."""
        self.chunks: list[ChunkInfo] = []
        self.complete = False
        self.problem: str | None = None
        self.end: dict | None = None
        offset = self._data_start
        expected = self.header["start_tick"]
        while True:
            got = self._checked_chunk(offset, expected)
            if isinstance(got, str):
                self.problem = _scan_problem(got, expected - 1, offset)
                return
            info, kind, data = got
            if kind == END:
                self._read_end(info, data, offset)
                return
            self.chunks.append(info)
            expected += info.ticks
            offset = info.offset + CHUNK_HEAD + info.payload_len

    def _checked_chunk(self, offset: int, expected: int) -> tuple[ChunkInfo, int, bytes] | str:
        """The chunk at ``offset`` (expected to start at tick ``expected``) with its checked
        payload, or why the scan stops there ("eof", "cut", "damaged")."""
        got = read_chunk_head(self._fh, offset, self.size)
        if isinstance(got, str):
            return got
        info, kind = got
        n = self.header["units"]
        bad_ticks = kind == DATA and not 1 <= info.ticks <= MAX_CHUNK_TICKS
        if kind == HEADER or info.first_tick != expected or bad_ticks:
            return "damaged"
        if kind == DATA and info.raw_len > 64 * info.ticks * (n + 1) + (1 << 24):
            return "damaged"  # more than any encoding of this many states needs
        try:
            data = read_payload(self._fh, info)
        except ValueError:
            return "damaged"
        return info, kind, data

    def _read_end(self, info: ChunkInfo, data: bytes, offset: int) -> None:
        try:
            end = json.loads(decompress(self._dctx, info, data).decode("utf-8"))
        except (ValueError, UnicodeDecodeError):
            end = None
        if not isinstance(end, dict):
            self.problem = f"damaged end mark at byte {offset}"
            return
        self.end = end
        self.complete = True

    # -- properties ---------------------------------------------------------------------------

    @property
    def units(self) -> int:
        return self.header["units"]

    @property
    def precision(self) -> str:
        return self.header["precision"]

    @property
    def dt(self) -> float:
        return self.header["dt"]

    @property
    def first_tick(self) -> int:
        return self.header["start_tick"]

    @property
    def data_start(self) -> int:
        """The byte offset in the file where the chunks after the header begin (the header's
        end)."""
        return self._data_start

    @property
    def ticks(self) -> int:
        """Readable ticks (states) in the file."""
        return sum(c.ticks for c in self.chunks)

    @property
    def last_tick(self) -> int:
        """The last readable tick (``first_tick - 1`` when there is none)."""
        return self.first_tick + self.ticks - 1

    def scene(self):
        """The recorded scene, parsed again from the header's text, as the model that recorded
        it ran it: before model 12 the flocking's neighbours were found on the snapshot the
        rules decided on (``world.neighbour_ticks = 0``; the key did not exist); before model
        15 ordered units felt the world's walls as far as obstacles (``navigation.wall_feeler``
        at its most, which no feeler exceeds)."""
        try:
            scene = parse_scene(self.header["scene_text"], self.header["scene_source"])
        except SceneError as e:
            raise fail(self.path, f"recorded scene does not parse: {e.errors[0]}") from None
        world = scene.world
        if model_version_of(self.header) < 12 and world.neighbour_ticks != world.reaction_ticks:
            scene = derive(scene, {"world.neighbour_ticks": world.reaction_ticks})
        if model_version_of(self.header) < 15:
            scene = derive(scene, {"navigation.wall_feeler": MAX_FACTOR})
        return scene

    # -- data ---------------------------------------------------------------------------------

    def chunk_index(self, tick: int) -> int:
        if not self.first_tick <= tick <= self.last_tick:
            raise IndexError(f"tick {tick} not in {self.first_tick}..{self.last_tick}")
        lo, hi = 0, len(self.chunks) - 1
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if self.chunks[mid].first_tick <= tick:
                lo = mid
            else:
                hi = mid - 1
        return lo

    def chunk(self, index: int) -> Chunk:
        """Decoded data chunk number ``index`` (cached). Raises ReplayError when it does not
        decode (only a crafted file gets past both checksums to here)."""
        if index in self._cache:
            self._cache.move_to_end(index)
            return self._cache[index]
        info = self.chunks[index]
        try:
            raw = decompress(self._dctx, info, read_payload(self._fh, info))
            c = decode_chunk(info, raw, self.units, self.precision)
        except (ValueError, KeyError, TypeError, UnicodeDecodeError) as e:
            raise fail(self.path, f"chunk at byte {info.offset} does not decode ({e})") from None
        self._cache[index] = c
        while len(self._cache) > self.CACHE:
            self._cache.popitem(last=False)
        return c

    def raw(self, tick: int) -> dict[str, np.ndarray]:
        """The stored arrays of ``tick`` as stored: int64 fixed point (compact) or float64."""
        c = self.chunk(self.chunk_index(tick))
        k = tick - c.first_tick
        out = {name: c.raw[name][k] for name in STATE_FIELDS}
        out["leader"] = c.leader[k]
        return out

    def state(self, tick: int) -> State:
        """The stored state of ``tick`` as floats (fixed point divided out for compact files)."""
        c = self.chunk(self.chunk_index(tick))
        k = tick - c.first_tick
        vals = {}
        for name in STATE_FIELDS:
            v = c.raw[name][k]
            vals[name] = v / SCALES[name] if self.precision == "compact" else v.copy()
        return State(tick, vals["pos"], vals["vel"], vals["angle"], vals["omega"], c.leader[k])

    def player_command(self, tick: int) -> tuple[float, float]:
        c = self.chunk(self.chunk_index(tick))
        t, s = c.player_command[tick - c.first_tick]
        return float(t), float(s)

    def events(self, tick: int) -> dict | None:
        """The contact events of the step that led to ``tick`` (None for the first tick)."""
        c = self.chunk(self.chunk_index(tick))
        e = c.events[tick - c.first_tick]
        if isinstance(e, dict):
            e = {k: v for k, v in e.items() if k != "__type__"}
        return e

    def inputs(self) -> dict[int, object]:
        """Every recorded command, by tick, as Command objects (prelude included)."""
        out: dict[int, object] = {}
        items = list(self.header["prelude"])
        for i in range(len(self.chunks)):
            items += self.chunk(i).inputs
        for item in items:
            if not is_input(item):
                raise fail(self.path, "bad input entry")
            tick, data = item
            try:
                cmd = from_jsonable(data, COMMAND_TYPES)
            except (ValueError, TypeError) as e:
                raise fail(self.path, f"command at tick {tick}: {e}") from None
            out[tick] = cmd
        return out

    def close(self) -> None:
        self._fh.close()

    def __enter__(self) -> ReplayReader:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def open_replay(path) -> ReplayReader:
    return ReplayReader(path)

"""Data chunk payloads: packing and unpacking arrays, and what a malformed payload raises."""

import json
import struct

import numpy as np
import pytest

from rigidflock.replay.payload import pack_payload, payload_parts, unpack_payload


def arrays():
    return [
        ("state", np.arange(24, dtype=np.uint32).reshape(2, 3, 4), "planes"),
        ("leader", np.array([[1, 2], [3, 4]], dtype=np.uint8), "raw"),
        ("player_command", np.array([[0.5, -1.0]]), "raw"),
    ]


def test_payload_round_trips():
    meta = {"first_tick": 3, "ticks": 4, "inputs": [], "events": [None] * 4}
    raw = pack_payload(meta, arrays())
    assert raw == b"".join(bytes(p) for p in payload_parts(meta, arrays()))
    got, out = unpack_payload(raw)
    assert got["first_tick"] == 3 and [a[0] for a in got["arrays"]] == list(out)
    for name, a, _ in arrays():
        assert out[name].dtype == a.dtype and np.array_equal(out[name], a)


def test_planes_are_byte_planes():
    raw = pack_payload({}, [("x", np.array([0x0102, 0x0304], dtype="<u4"), "planes")])
    (n,) = struct.unpack_from("<I", raw)
    assert raw[4 + n :] == bytes([2, 4, 1, 3, 0, 0, 0, 0])


def payload_with(spec, body=b""):
    head = json.dumps({"arrays": [spec]}).encode()
    return struct.pack("<I", len(head)) + head + body


@pytest.mark.parametrize(
    "raw, message",
    [
        (b"\1\0", "payload too short"),
        (struct.pack("<I", 99) + b"{}", "runs past its end"),
        (struct.pack("<I", 2) + b"[]", "not an object"),
        (payload_with(["a", "<f8", [1], "raw"]), "runs past the payload"),
        (payload_with(["a", "|O", [1], "raw"], b"\0" * 8), "unsupported dtype"),
        (payload_with(["a", "<f8", [-1], "raw"]), "bad shape"),
        (payload_with(["a", "<f8"]), "bad array entry"),
        (payload_with(["a", "|u1", [1], "raw"], b"\0\0"), "trailing bytes"),
    ],
)
def test_malformed_payloads_raise_value_error(raw, message):
    with pytest.raises(ValueError, match=message):
        unpack_payload(raw)

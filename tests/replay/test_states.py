"""State encodings: compact fixed point (delta coded) and exact float64 (XOR), both lossless
with respect to what they promise."""

import numpy as np
import pytest

from rigidflock.replay import quantize
from rigidflock.replay.states import (
    SCALES,
    STATE_FIELDS,
    Scratch,
    decode_compact,
    decode_exact,
    decode_states,
    encode_compact,
    encode_exact,
    fields,
    quantize_state,
)
from tests.conftest import ROOT
from tests.replay.recording import record_run


def random_states(t=9, n=5, seed=3):
    """(T, N, 6) float64: x, y, vx, vy, angle, omega of a smooth-ish run."""
    rng = np.random.default_rng(seed)
    return np.cumsum(rng.normal(0.0, 3.0, (t, n, 6)), axis=0)


def test_quantize_is_round_to_the_scale():
    assert quantize(np.array([0.5 / 1024, 1.0, -2.0]), "pos").tolist() == [0, 1024, -2048]
    assert quantize(np.array([1.0]), "angle").tolist() == [65536]
    assert quantize(np.array([1.0]), "omega").dtype == np.int64


@pytest.mark.parametrize("t", [1, 2, 9])
def test_compact_encoding_decodes_to_the_quantized_states(t):
    x = random_states(t)
    out = fields(decode_compact(encode_compact(x)))
    assert np.array_equal(out["pos"], quantize(x[..., 0:2], "pos"))
    assert np.array_equal(out["vel"], quantize(x[..., 2:4], "vel"))
    assert np.array_equal(out["angle"], quantize(x[..., 4], "angle"))
    assert np.array_equal(out["omega"], quantize(x[..., 5], "omega"))


def test_compact_encoding_uses_uint32_when_the_deltas_fit_and_reuses_scratch():
    x = random_states()
    scratch = Scratch()
    a = encode_compact(x, scratch)
    assert a.dtype == np.uint32 and a.shape == (6, 5, 9)
    assert encode_compact(x, scratch) is a
    big = x.copy()
    big[3, 0, 0] = 1e12  # a jump too large for 32 bits
    wide = encode_compact(big)
    assert wide.dtype == np.uint64
    assert np.array_equal(fields(decode_compact(wide))["pos"], quantize(big[..., 0:2], "pos"))


def test_exact_encoding_is_bit_for_bit():
    x = random_states()
    x[2, 1, 3] = np.nan
    x[4, 0, 0] = -0.0
    out = decode_exact(encode_exact(x))
    assert np.array_equal(out.view(np.uint64), x.transpose(2, 1, 0).view(np.uint64))


def test_decode_states_checks_shape_and_dtype():
    x = random_states()
    enc = encode_compact(x)
    assert decode_states(enc, 5, 9, "compact")["angle"].shape == (9, 5)
    with pytest.raises(ValueError, match="states have shape"):
        decode_states(enc, 4, 9, "compact")
    with pytest.raises(ValueError, match="states have dtype"):
        decode_states(enc.astype(np.int32), 5, 9, "compact")
    with pytest.raises(ValueError, match="states have dtype"):
        decode_states(enc, 5, 9, "exact")


def test_quantize_state_covers_every_stored_field():
    class St:
        pos = np.ones((2, 2))
        vel = np.zeros((2, 2))
        angle = np.ones(2)
        omega = np.ones(2)

    q = quantize_state(St())
    assert tuple(q) == STATE_FIELDS
    assert q["omega"].tolist() == [SCALES["omega"]] * 2


def test_compact_recording_of_flock500_is_small(tmp_path):
    path = tmp_path / "f.rfr"
    record_run(path, ROOT / "scenes" / "flock500.toml", 240)
    per = path.stat().st_size / (500 * 241)
    assert per <= 8.0, per

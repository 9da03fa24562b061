"""Bit-level casts against NumPy and ml_dtypes: every 16-bit widening, every
float32 narrowing, plus a table of ties, carries and specials."""
import ml_dtypes
import numpy as np
import pytest
from numba import njit, prange

import swishgrad_numba as sg
from swishgrad_numba.casts import (HARDWARE_F16, bf16_bits_to_f32, f16_bits_to_f32, f16_bits_to_f32_soft,
                                   f32_to_bf16_bits, f32_to_f16_bits, f32_to_f16_bits_soft, narrow_rint_not_nan,
                                   rint_16_widened, widen_16_quieting)

BF16 = np.dtype(ml_dtypes.bfloat16)
CHUNK = 1 << 24


# float16 conversions come in two versions: the one the kernels use (the
# CPU's instructions where casts.HARDWARE_F16, else the integer one) and the
# integer one; every float16 test runs on both.
F16_VERSIONS = pytest.mark.parametrize("soft", [False, True], ids=["kernel", "soft"])


@njit(parallel=True, cache=True)
def _widen(bits, is_bf16, soft, out):
    for i in prange(bits.size):
        if is_bf16:
            out[i] = bf16_bits_to_f32(bits[i])
        elif soft:
            out[i] = f16_bits_to_f32_soft(bits[i])
        else:
            out[i] = f16_bits_to_f32(bits[i])


@njit(parallel=True, cache=True)
def _narrow(first, n, is_bf16, soft, out):
    for i in prange(n):
        f = np.uint32(first + i).view(np.float32)
        if is_bf16:
            out[i] = f32_to_bf16_bits(f)
        elif soft:
            out[i] = f32_to_f16_bits_soft(f)
        else:
            out[i] = f32_to_f16_bits(f)


def _nan_equal_bits(got_bits, ref_bits, ref_is_nan, got_is_nan):
    same = got_bits == ref_bits
    return same | (ref_is_nan & got_is_nan)


@pytest.mark.parametrize("dtype, soft", [(np.dtype(np.float16), False), (np.dtype(np.float16), True),
                                         (BF16, False)], ids=["float16-kernel", "float16-soft", "bfloat16"])
def test_all_widenings(dtype, soft):
    bits = np.arange(65536, dtype=np.uint16)
    out = np.empty(65536, np.float32)
    _widen(bits, dtype == BF16, soft, out)
    ref = bits.view(dtype).astype(np.float32)
    ok = _nan_equal_bits(out.view(np.uint32), ref.view(np.uint32), np.isnan(ref), np.isnan(out))
    assert ok.all(), f"first bad 16-bit pattern 0x{int(bits[~ok][0]):04x}"
    # NaNs stay NaN and keep their sign.
    assert (np.signbit(out) == np.signbit(ref)).all()


@njit(parallel=True, cache=True)
def _narrow_and_compare(first, step, is_bf16, soft, ref, bad):
    """Narrow the float32 patterns ``first + i * step`` and set ``bad[i]`` where the bits differ
    from ``ref[i]`` (the 16-bit bits NumPy or ml_dtypes gave), a NaN matching any NaN."""
    nan_above = np.uint16(0x7F80 if is_bf16 else 0x7C00)
    for i in prange(ref.size):
        f = np.uint32(first + i * step).view(np.float32)
        if is_bf16:
            h = f32_to_bf16_bits(f)
        elif soft:
            h = f32_to_f16_bits_soft(f)
        else:
            h = f32_to_f16_bits(f)
        r = ref[i]
        both_nan = (h & np.uint16(0x7FFF)) > nan_above and (r & np.uint16(0x7FFF)) > nan_above
        bad[i] = h != r and not both_nan


def _check_range(first, count, dtype, sample_step=1, soft=False):
    """Narrow float32 patterns [first, first+count) (every ``sample_step``-th) and compare with
    NumPy/ml_dtypes. The chunks' buffers are made once and the comparison runs in Numba: NumPy's
    temporaries over 2^32 patterns cost several times the casts themselves."""
    offsets = np.arange(CHUNK, dtype=np.uint32) * np.uint32(sample_step)
    src = np.empty(CHUNK, np.uint32)
    ref = np.empty(CHUNK, dtype)
    bad = np.empty(CHUNK, np.bool_)
    span = CHUNK * sample_step
    for lo in range(first, first + count, span):
        n = -(-min(span, first + count - lo) // sample_step)
        np.add(offsets[:n], np.uint32(lo), out=src[:n])
        with np.errstate(all="ignore"):
            np.copyto(ref[:n], src[:n].view(np.float32), casting="unsafe")
        _narrow_and_compare(lo, sample_step, dtype == BF16, soft, ref[:n].view(np.uint16), bad[:n])
        if bad[:n].any():
            raise AssertionError(f"{int(bad[:n].sum())} narrowings differ; first float32 bits "
                                 f"0x{int(src[:n][bad[:n]][0]):08x}")


def test_all_narrowings_bfloat16():
    _check_range(0, 1 << 32, BF16)


@njit(parallel=True, cache=True)
def _f16_outside_count_bad(first, n):
    """Narrowings of |f| <= 2^-26 or |f| >= 2^17 or NaN, against the format's rule.

    Below 2^-26 every value rounds to a signed zero; from 2^17 on to a
    signed inf; NaN to a NaN of the same sign.
    """
    bad = 0
    for i in prange(n):
        u = np.uint32(first + i)
        h = f32_to_f16_bits(u.view(np.float32))
        sign = np.uint16((u >> np.uint32(16)) & np.uint32(0x8000))
        a = u & np.uint32(0x7FFFFFFF)
        if a > np.uint32(0x7F800000):
            ok = (h & np.uint16(0x7C00)) == np.uint16(0x7C00) and (h & np.uint16(0x3FF)) != 0 and (h & np.uint16(0x8000)) == sign
        elif a >= np.uint32(0x48000000):
            ok = h == (sign | np.uint16(0x7C00))
        else:
            ok = h == sign
        bad += 0 if ok else 1
    return bad


@njit(parallel=True, cache=True)
def _f16_soft_vs_kernel_count_bad(first, n):
    bad = 0
    for i in prange(n):
        f = np.uint32(first + i).view(np.float32)
        bad += 0 if f32_to_f16_bits_soft(f) == f32_to_f16_bits(f) else 1
    return bad


def test_all_narrowings_float16():
    """All 2^32 patterns through the kernels' version: NumPy for every value
    whose rounding is not trivial.

    NumPy's float16 cast takes a slow path wherever it raises floating-point
    flags, so values of magnitude up to 2^-26 (all round to a signed zero)
    and from 2^17 (all round to inf), and NaNs, are checked in full against
    the format's rule and against NumPy on a 1-in-97 sample.
    """
    lo, hi = 0x32800000, 0x48000000  # 2^-26 .. 2^17: everything in between goes to NumPy
    for sign in (0, 0x80000000):
        _check_range(sign + lo, hi - lo, np.dtype(np.float16))
        for first, last in ((sign, sign + lo), (sign + hi, sign + 0x80000000)):
            for c in range(first, last, CHUNK):
                n = min(CHUNK, last - c)
                assert _f16_outside_count_bad(c, n) == 0, hex(c)
            _check_range(first, last - first, np.dtype(np.float16), sample_step=97)


@pytest.mark.skipif(not HARDWARE_F16, reason="the kernels use the integer version here: covered above")
def test_all_narrowings_float16_soft():
    """The integer version where the kernels use the CPU's instruction: equal
    to that instruction's result on all 2^32 patterns (the CPU is an
    implementation independent of this code), and to NumPy on a 1-in-97
    sample."""
    for c in range(0, 1 << 32, CHUNK):
        assert _f16_soft_vs_kernel_count_bad(c, CHUNK) == 0, hex(c)
    _check_range(0, 1 << 32, np.dtype(np.float16), sample_step=97, soft=True)


# Ties, carries, subnormals, range limits, specials: (float32 bits, f16 bits, bf16 bits),
# worked out by hand from the formats' definitions.
CURATED = [
    (0x3F800000, 0x3C00, 0x3F80),  # 1.0
    (0xBF800000, 0xBC00, 0xBF80),  # -1.0
    (0x80000000, 0x8000, 0x8000),  # -0.0
    (0x7F800000, 0x7C00, 0x7F80),  # inf
    (0x3F801000, 0x3C00, 0x3F80),  # 1 + 2^-11: f16 tie, kept part even -> down
    (0x3F803000, 0x3C02, 0x3F80),  # 1 + 3*2^-11: f16 tie, odd -> up
    (0x3F808000, 0x3C04, 0x3F80),  # 1 + 2^-8: bf16 tie, even -> down
    (0x3F818000, 0x3C0C, 0x3F82),  # 1 + 3*2^-8: bf16 tie, odd -> up
    (0x477FE000, 0x7BFF, 0x4780),  # 65504: f16 max
    (0x477FEFFF, 0x7BFF, 0x4780),  # just below the overflow tie
    (0x477FF000, 0x7C00, 0x4780),  # 65520: tie -> even -> inf
    (0x7F7FFFFF, 0x7C00, 0x7F80),  # float32 max: bf16 rounds up to inf
    (0x33000000, 0x0000, 0x3300),  # 2^-25: tie between 0 and 2^-24 -> even -> 0
    (0x33000001, 0x0001, 0x3300),  # just above 2^-25 -> smallest subnormal 2^-24
    (0x33800000, 0x0001, 0x3380),  # 2^-24: smallest float16 subnormal
    (0x33C00000, 0x0002, 0x33C0),  # 1.5 * 2^-24 : tie between 1 and 2 -> 2
    (0x38800000, 0x0400, 0x3880),  # 2^-14: smallest f16 normal
    (0x387FE000, 0x0400, 0x3880),  # just below 2^-14, rounds up into the normals
    (0x00000001, 0x0000, 0x0000),  # float32 subnormal
    (0x00408000, 0x0000, 0x0040),  # float32 subnormal, bf16 tie even -> down
    (0x00418000, 0x0000, 0x0042),  # float32 subnormal, bf16 tie odd -> up
]


@F16_VERSIONS
@pytest.mark.parametrize("f32, f16, bf16", CURATED, ids=[f"0x{c[0]:08x}" for c in CURATED])
def test_curated_narrowings(f32, f16, bf16, soft):
    out = np.empty(1, np.uint16)
    _narrow(f32, 1, False, soft, out)
    assert int(out[0]) == f16
    _narrow(f32, 1, True, soft, out)
    assert int(out[0]) == bf16


@F16_VERSIONS
def test_nan_narrowing_is_the_canonical_quiet_nan_with_sign(soft):
    for bits in (0x7FC00000, 0xFFC00000, 0x7F800001, 0xFF800001, 0x7FFFFFFF):
        out = np.empty(1, np.uint16)
        _narrow(bits, 1, False, soft, out)
        assert int(out[0]) == (0xFE00 if bits >> 31 else 0x7E00)
        for is_bf16, dt in ((False, np.float16), (True, BF16)):
            _narrow(bits, 1, is_bf16, soft, out)
            v = out.view(dt)[0]
            assert np.isnan(np.float32(v))
            assert np.signbit(np.float32(v)) == bool(bits >> 31)


def test_hardware_f16_detection(monkeypatch):
    from swishgrad_numba import casts as dtypes

    monkeypatch.setattr(dtypes.platform, "machine", lambda: "aarch64")
    assert dtypes._target_converts_f16()
    monkeypatch.setattr(dtypes.platform, "machine", lambda: "x86_64")
    monkeypatch.setattr(dtypes.numba.config, "CPU_FEATURES", "+avx2,-f16c,+fma")
    assert not dtypes._target_converts_f16()
    monkeypatch.setattr(dtypes.numba.config, "CPU_FEATURES", "+avx2,+f16c,+fma")
    assert dtypes._target_converts_f16()
    monkeypatch.setattr(dtypes.platform, "machine", lambda: "riscv64")
    assert not dtypes._target_converts_f16()
    assert isinstance(HARDWARE_F16, bool)


@njit(parallel=True, cache=True)
def _hot_tier_casts(first, step, is_bf16, wide, narrow):
    """The hot tier's casts (:func:`swishgrad_numba.casts.widen_16_quieting` of every 16-bit pattern,
    :func:`swishgrad_numba.casts.narrow_rint_not_nan` of the float32 patterns ``first + i * step``)."""
    code = np.int64(2 if is_bf16 else 1)
    for i in prange(wide.size):
        wide[i] = widen_16_quieting(np.uint16(i), code)
    for i in prange(narrow.size):
        narrow[i] = narrow_rint_not_nan(np.uint32(first + i * step).view(np.float32), code)


@pytest.mark.parametrize("dtype", [np.dtype(np.float16), BF16], ids=["float16", "bfloat16"])
def test_the_hot_tiers_casts_agree_but_on_nans(dtype):
    """Every 16-bit pattern widened, every 4099th float32 pattern narrowed: NumPy's / ml_dtypes' bits for
    every value that is not a NaN; a NaN widened is a NaN of its sign (a float16 signalling one may come
    back quieted)."""
    assert sg.dtypes.FLOAT16.code == 1 and sg.dtypes.BFLOAT16.code == 2     # the Casts' dtype codes
    step = 4099
    src = np.arange(0, 1 << 32, step, dtype=np.uint64).astype(np.uint32)
    wide, narrow = np.empty(65536, np.float32), np.empty(src.size, np.uint16)
    _hot_tier_casts(0, step, dtype == BF16, wide, narrow)
    ref = np.arange(65536, dtype=np.uint16).view(dtype).astype(np.float32)
    nan = np.isnan(ref)
    assert np.array_equal(wide.view(np.uint32)[~nan], ref.view(np.uint32)[~nan])
    assert np.isnan(wide[nan]).all() and (np.signbit(wide) == np.signbit(ref)).all()
    with np.errstate(all="ignore"):
        ref16 = src.view(np.float32).astype(dtype).view(np.uint16)
    keep = ~np.isnan(src.view(np.float32))
    assert np.array_equal(narrow[keep], ref16[keep])


@njit(parallel=True, cache=True)
def _rint_widened_count_bad(code):
    """rint_16_widened against the narrowing and the widening it fuses (each checked against NumPy / ml_dtypes
    on all 2^32 patterns above), over all 2^32 float32 patterns."""
    bad = 0
    for hi in prange(1 << 16):
        for lo in range(1 << 16):
            f = np.uint32((hi << 16) | lo).view(np.float32)
            want = f16_bits_to_f32(f32_to_f16_bits(f)) if code == 1 else bf16_bits_to_f32(f32_to_bf16_bits(f))
            bad += 0 if np.float32(rint_16_widened(f, code)).view(np.uint32) == np.float32(want).view(np.uint32) else 1
    return bad


@njit(parallel=True, cache=True)
def _rint_widened(first, step, code, out):
    for i in prange(out.size):
        out[i] = rint_16_widened(np.uint32(first + i * step).view(np.float32), code)


@pytest.mark.slow
@pytest.mark.parametrize("dtype", [np.dtype(np.float16), BF16], ids=["float16", "bfloat16"])
def test_the_row_machines_rint_and_widen_in_one(dtype):
    """The row machine's R_CAST_RINT (narrowed to nearest even, widened back in 32-bit steps): on all 2^32
    patterns the bits of the two casts it fuses; on every 4099th, NumPy's / ml_dtypes' round trip for every
    value but a NaN, which becomes the dtype's quiet NaN of its sign, widened."""
    code = 1 if dtype == np.float16 else 2
    assert _rint_widened_count_bad(code) == 0
    step = 4099
    src = np.arange(0, 1 << 32, step, dtype=np.uint64).astype(np.uint32)
    got = np.empty(src.size, np.float32)
    _rint_widened(0, step, code, got)
    f = src.view(np.float32)
    nan = np.isnan(f)
    with np.errstate(all="ignore"):
        ref = f.astype(dtype).astype(np.float32)
    assert np.array_equal(got.view(np.uint32)[~nan], ref.view(np.uint32)[~nan])
    quiet = np.uint32(0x7FC00000) if code == 1 else (src[nan] & np.uint32(0x7FFF0000)) | np.uint32(0x7FC00000)
    assert np.array_equal(got.view(np.uint32)[nan], (src[nan] & np.uint32(0x80000000)) | quiet)

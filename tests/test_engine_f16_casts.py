"""float16's widening (CAST_NONE) and narrowing (CAST_RINT) as the machine and the fused loops run them (the CPU's
F16C conversions plus fix-ups, swishgrad_numba.casts), bit for bit, NaN payloads and signs included, against a
plain reference written here: every one of the 65,536 float16 patterns widened; the float32 patterns around every
float16 rounding boundary (the subnormals' midpoints, the smallest normal, the overflow threshold), every NaN
class and a random sample narrowed, in both overflow modes (inf/NaN and saturation)."""
import numpy as np
import pytest
from numba import njit

from swishgrad_numba.casts import f16_bits_to_f32, f16_bits_to_f32_soft
from swishgrad_numba.dtypes import BFLOAT16, FLOAT16
from swishgrad_numba.engine import machine
from swishgrad_numba.engine import opcodes as O
from swishgrad_numba.intrinsics import vectorise_full_width
from swishgrad_numba.program import semantics as S

F16 = FLOAT16.code


def ref_widen(h):
    """float32 bits of each float16 pattern ``h``: sign, exponent rebiased (15 -> 127), mantissa shifted up 13;
    a subnormal m * 2^-24 normalised by hand; inf/NaN keep their payload (no quieting)."""
    h = np.asarray(h, np.uint32)
    sign, e, m = (h >> 15) << 31, (h >> 10) & 0x1F, h & 0x3FF
    out = np.where(e == 0x1F, 0x7F800000 | (m << 13), ((e + 112) << 23) | (m << 13))
    sub = (e == 0) & (m != 0)
    lead = np.floor(np.log2(np.maximum(m, 1))).astype(np.uint32)       # m's top bit: 0 .. 9
    sub_bits = ((lead + 103) << 23) | (((m << (23 - lead)) & 0x7FFFFF))   # m * 2^-24 = 1.f * 2^(lead - 24)
    out = np.where(sub, sub_bits, np.where((e == 0) & (m == 0), 0, out))
    return (out | sign).astype(np.uint32)


def ref_rint(u, sat):
    """float16 bits of each float32 pattern ``u`` rounded to nearest, ties to even (by exact float64 distances
    to the two neighbouring float16 values); from 65520 on inf. Saturation: inf -> the largest finite of its
    sign, NaN -> +0; else NaN -> the quiet NaN 0x7E00 with its sign."""
    u = np.asarray(u, np.uint32)
    with np.errstate(invalid="ignore"):     # signalling NaNs among the sources
        x = (u & 0x7FFFFFFF).view(np.float32).astype(np.float64)
    halves = np.arange(0x7C00, dtype=np.uint16).view(np.float16).astype(np.float64)   # +0 .. 65504, exact
    nan = np.isnan(x)
    mag = np.where(nan, 0.0, x)
    low = np.minimum(np.searchsorted(halves, mag, side="right") - 1, 0x7BFF)
    up = np.minimum(low + 1, 0x7BFF)
    below, above = mag - halves[low], np.where(low == 0x7BFF, 2.0 ** 16, halves[up]) - mag
    k = np.where((above < below) | ((above == below) & (low % 2 == 1)), low + 1, low)   # 0x7C00 is inf
    if sat:
        k = np.minimum(k, 0x7BFF)
    sign = ((u >> 16) & 0x8000).astype(np.int64)
    return np.where(nan, 0 if sat else sign | 0x7E00, k | sign).astype(np.uint16)


def test_the_references_on_hand_worked_values():
    """The references themselves on values worked out by hand from the format."""
    assert list(ref_widen([0x0001, 0x03FF, 0x0400, 0x3C00, 0xFBFF, 0x7C00, 0x7C01, 0xFE00, 0x8200])) == [
        0x33800000, 0x387FC000, 0x38800000, 0x3F800000, 0xC77FE000, 0x7F800000, 0x7F802000, 0xFFC00000, 0xB8000000]
    src = [0x33000000, 0x33000001, 0x3F801000, 0x3F803000, 0x477FEFFF, 0x477FF000, 0xFF800000, 0x7F800001, 0xFFC00000]
    assert list(ref_rint(src, False)) == [0, 1, 0x3C00, 0x3C02, 0x7BFF, 0x7C00, 0xFC00, 0x7E00, 0xFE00]
    assert list(ref_rint(src, True)) == [0, 1, 0x3C00, 0x3C02, 0x7BFF, 0x7BFF, 0xFBFF, 0, 0]


@njit(cache=True, error_model="numpy")
def _widen_loop(bits, soft, out):
    vectorise_full_width()      # as the machine's loops: the vectorised form is the one under test
    if soft:
        for i in range(bits.size):
            out[i] = f16_bits_to_f32_soft(bits[i])
    else:
        for i in range(bits.size):
            out[i] = f16_bits_to_f32(bits[i])


@njit(cache=True, error_model="numpy")
def _narrow_loop(src, sat, out):
    vectorise_full_width()
    if sat:
        for i in range(src.size):
            out[i] = S.cast_rint(src[i], F16, True)
    else:
        for i in range(src.size):
            out[i] = S.cast_rint(src[i], F16, False)


def _frozen(a):
    a = np.ascontiguousarray(a)
    a.flags.writeable = False
    return a


def _machine(op, src, sat, mode=F16):
    """One instruction ``op`` (mode float16, or ``mode``) over ``src`` (float32 row values) on the machine itself."""
    n = src.size
    code = np.zeros((1, O.FIELDS), np.int64)
    code[0, O.OP], code[0, O.DST], code[0, O.MODE] = op, n, mode
    arena = np.zeros(2 * n, np.float32)
    arena[:n] = src
    machine.execute(_frozen(code), _frozen(np.zeros(1, np.float32)), _frozen(np.zeros((1, 1), np.float32)), arena,
                    n, sat)
    return arena[n:]


def _first_bad(got, want, src):
    bad = got != want
    return (f"{int(bad.sum())} differ; first source 0x{int(src[bad][0]):08x}: 0x{int(got[bad][0]):x}, "
            f"expected 0x{int(want[bad][0]):x}") if bad.any() else ""


ALL16 = np.arange(65536, dtype=np.uint16)


@pytest.mark.parametrize("soft", [False, True], ids=["kernel", "soft"])
def test_every_float16_widens_exactly_with_its_nan_payload(soft):
    out = np.empty(65536, np.float32)
    _widen_loop(ALL16, soft, out)
    got, want = out.view(np.uint32), ref_widen(ALL16)
    assert not _first_bad(got, want, ALL16), _first_bad(got, want, ALL16)


def test_the_machine_widens_every_float16_exactly():
    got = _machine(O.CAST_NONE, ALL16.astype(np.float32), False).view(np.uint32)
    want = ref_widen(ALL16)
    assert not _first_bad(got, want, ALL16), _first_bad(got, want, ALL16)


def test_the_machine_widens_every_bfloat16_exactly():
    # issue 38 (6f): a bfloat16 is float32's top half, NaN payload and signalling bit kept
    got = _machine(O.CAST_NONE, ALL16.astype(np.float32), False, BFLOAT16.code).view(np.uint32)
    want = ALL16.astype(np.uint32) << 16
    assert not _first_bad(got, want, ALL16), _first_bad(got, want, ALL16)


def _around(centres, k):
    return (np.asarray(centres, np.int64)[:, None] + np.arange(-k, k + 1)).ravel()


def _near_boundaries():
    """float32 patterns (positive, then the same negated) within 3 float32 ulps of every midpoint between two
    neighbouring float16 subnormals (and zero), 2^-25, the smallest normal 2^-14 and its neighbours, within 4,096
    ulps of 65504, 65520 (the overflow tie) and 2^16; every NaN class (quiet, signalling, payload in the top, the
    bottom, all bits), inf, float32's extremes; 2^18 random patterns."""
    rng = np.random.default_rng(3916)
    mids = (np.arange(0, 1024) * 2 + 1).astype(np.float64) * 2.0 ** -25            # subnormal midpoints, exact
    pos = np.concatenate([
        _around(mids.astype(np.float32).view(np.uint32), 3),
        _around([0x33000000, 0x38800000, 0x387FE000, 0x387FF000, 0x38801000], 64),
        _around([0x477FE000, 0x477FF000, 0x47800000], 4096),
        [0, 1, 0x007FFFFF, 0x00800000, 0x7F7FFFFF, 0x7F800000, 0x7F800001, 0x7F801FFF, 0x7F802000, 0x7FBFFFFF,
         0x7FC00000, 0x7FC00001, 0x7FDFE000, 0x7FFFFFFF],
    ]).astype(np.uint32)
    rand = rng.integers(0, 1 << 32, 1 << 18, dtype=np.uint64).astype(np.uint32)
    return np.concatenate([pos, pos | np.uint32(0x80000000), rand])


NEAR = _near_boundaries()


@pytest.mark.parametrize("sat", [False, True], ids=["infnan", "saturation"])
def test_float32_narrows_to_float16_as_the_reference(sat):
    out = np.empty(NEAR.size, np.uint16)
    _narrow_loop(NEAR.view(np.float32), sat, out)
    want = ref_rint(NEAR, sat)
    assert not _first_bad(out, want, NEAR), _first_bad(out, want, NEAR)


@pytest.mark.parametrize("sat", [False, True], ids=["infnan", "saturation"])
def test_the_machine_narrows_to_float16_as_the_reference(sat):
    got = _machine(O.CAST_RINT, NEAR.view(np.float32), sat)
    assert (got == np.floor(got)).all() and (got >= 0).all() and (got < 65536).all()   # the bits as their number
    want = ref_rint(NEAR, sat)
    assert not _first_bad(got.astype(np.uint16), want, NEAR), _first_bad(got.astype(np.uint16), want, NEAR)

"""The directed narrowings' overflow rule (issue 43), both offered: IEEE 754's (the default: the largest finite
where the mode rounds toward zero) and every overflow to inf (``Platform(cast_overflow="inf")``), bit for bit
against the plain reference (cast_reference.directed_bits) over every overflowing float32 binade, on the
semantics and a read kernel (the engine: test_casts_directed's engine test, over both rules)."""
import numpy as np
import pytest
from numba import njit

from cast_reference import DTYPES, MODES, directed_bits

from swishgrad_numba.dtypes import dtype_info
from swishgrad_numba.platform import CAST_OVERFLOWS, Platform
from swishgrad_numba.program import semantics as S


@njit(cache=True)
def _run(src, code, sat, how, out):
    for i in range(src.size):
        out[i] = S.cast_directed(src[i], code, sat, how)


def _overflowing():
    """float32 from float16's largest finite up: every binade (exponent 15 .. 127) at its ends and at 64 random
    mantissas, around 65504 .. 2^16 and bfloat16's largest finite densely, inf and NaN; both signs."""
    rng = np.random.default_rng(4343)
    exps = np.arange(142, 255, dtype=np.uint32) << np.uint32(23)
    mant = np.concatenate([[0, 1, 2, 0x7FFFFF, 0x7FFFFE, 0x400000, 0x3FFFFF],
                           rng.integers(0, 1 << 23, 64)]).astype(np.uint32)
    grid = (exps[:, None] | mant[None, :]).ravel()
    near16 = (np.arange(-8192, 8192, dtype=np.int64) + 0x47800000).astype(np.uint32)   # 65504 .. past 2^16
    near_bf = (np.arange(-65536, 0, dtype=np.int64) + 0x7F800000).astype(np.uint32)    # up to FLT_MAX
    pos = np.concatenate([grid, near16, near_bf, np.array([0x7F800000, 0x7FC00000], np.uint32)])
    return np.concatenate([pos, pos | np.uint32(0x80000000)]).view(np.float32)


SOURCES = _overflowing()


@pytest.mark.parametrize("sat", [False, True], ids=["infnan", "saturation"])
@pytest.mark.parametrize("overflow", CAST_OVERFLOWS)
@pytest.mark.parametrize("dtype_name", list(DTYPES))
def test_both_overflow_rules_match_the_reference(dtype_name, overflow, sat):
    code = dtype_info(dtype_name).code
    out = np.empty(SOURCES.size, np.uint16)
    for i, mode in enumerate(MODES):
        _run(SOURCES, code, sat, i + (4 if overflow == "inf" else 0), out)
        ref = directed_bits(SOURCES, dtype_name, mode, sat, overflow)
        nan = np.isnan(SOURCES)
        ok = np.where(nan, (out & 0x7FFF) > DTYPES[dtype_name][1] if not sat else out == 0, out == ref)
        assert ok.all(), (f"{dtype_name} {mode} {overflow}: {int((~ok).sum())} differ, first float32 "
                          f"{SOURCES[~ok][0]!r}: 0x{int(out[~ok][0]):04x}, expected 0x{int(ref[~ok][0]):04x}")


def test_the_rules_differ_only_on_float16_toward_zero():
    """The reference's two rules part where a float16 result would round toward zero past 2^16 (TRUNC, ODD,
    FLOOR of positives, CEIL of negatives), and nowhere for bfloat16 (float32's largest truncates into range)."""
    big = np.float32([70000.0, -70000.0, 3e38, -3e38])
    for mode, differ in zip(MODES, ([1, 0, 1, 0], [0, 1, 0, 1], [1, 1, 1, 1], [1, 1, 1, 1])):
        ieee, inf = (directed_bits(big, "float16", mode, overflow=o) for o in CAST_OVERFLOWS)
        assert list((ieee != inf).astype(int)) == differ, mode
        assert (directed_bits(big, "bfloat16", mode) == directed_bits(big, "bfloat16", mode, overflow="inf")).all()


def test_platform_checks_cast_overflow():
    assert Platform().cast_overflow == "ieee" and Platform(cast_overflow="inf").cast_overflow == "inf"
    with pytest.raises(ValueError, match="Platform.cast_overflow must be one of 'ieee', 'inf'"):
        Platform(cast_overflow="saturate")
    with pytest.raises(ValueError, match="Platform.cast_int_overflow must be one of 'saturate', 'wrap'"):
        Platform(cast_int_overflow="inf")
    from swishgrad_numba.program.lower import lower
    from swishgrad_numba.program import Program, Tensor
    from swishgrad_numba.program.form import V
    with pytest.raises(ValueError, match="cast_overflow must be one of"):
        lower(Program("P", (Tensor("x"),), Tensor("out"), (), (V.Abs("out", "x"),)), cast_overflow="IEEE")


@pytest.mark.parametrize("mode", MODES)
def test_a_read_kernel_takes_the_platforms_overflow_rule(tmp_path, mode):
    from reader_variants import fixture_variant
    from reference import assert_bits_equal
    from swishgrad_numba.ops import read_kernel

    folder, _ = fixture_variant(tmp_path, "dtype_flags", "Cast(yLocal, xf, RoundMode::CAST_RINT",
                                f"Cast(yLocal, xf, RoundMode::{mode}")
    op = read_kernel(folder)
    bits = np.arange(65536, dtype=np.uint16)
    x = np.where((bits & 0x7FFF) > 0x7C00, 0x3800, bits).astype(np.uint16).view(np.float16)
    wide = x.astype(np.float32) * np.float32(1.5) + np.float32(0.25)     # the kernel's float32 body
    got = {}
    for overflow in CAST_OVERFLOWS:
        got[overflow] = op.run(x=x, platform=Platform(cast_overflow=overflow))
        want = directed_bits(wide, "float16", mode, overflow=overflow).view(np.float16)
        assert_bits_equal(got[overflow], want, f"dtype_flags float16 {mode} {overflow}")
    assert (got["ieee"].view(np.uint16) != got["inf"].view(np.uint16)).any()   # the option reaches the kernel

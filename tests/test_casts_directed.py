"""The directed narrowings float32 -> float16/bfloat16 (CAST_FLOOR, CAST_CEIL, CAST_TRUNC, CAST_ODD, issue 43)
bit for bit against a plain reference: each 16-bit value as an exact float64, the float32 placed between two
neighbours by a search, the neighbour picked by the mode's rule. Sources: specials, ties, near-overflow,
subnormals of both widths and a million random bit patterns; saturation mode on top."""
import numpy as np
import pytest
from numba import njit

from cast_reference import DTYPES, MODES, directed_bits

from swishgrad_numba.dtypes import dtype_info
from swishgrad_numba.program import semantics as S


@njit(cache=True)
def _run(src, code, sat, how, out):
    for i in range(src.size):
        out[i] = S.cast_directed(src[i], code, sat, how)


def _sources():
    rng = np.random.default_rng(43)
    special = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, -np.nan, 1.0, -1.0, 65504.0, -65504.0, 65519.99,
                        65520.0, 65536.0, -65536.0, 3.4028235e38, -3.4028235e38, 1e-45, -1e-45, 1.1754942e-38,
                        2.0 ** -24, 2.0 ** -25, -2.0 ** -25, 2.0 ** -14, 2.0 ** -15, 0.5 + 2.0 ** -12,
                        0.5 + 2.0 ** -11 + 2.0 ** -12], np.float32)
    ties = []
    # float32 patterns with 0..2 low bits set around each dropped-bit boundary, in every binade
    hi = rng.integers(0, 1 << 16, 20000, dtype=np.uint32) << np.uint32(16)
    for low in (0, 1, 0x1000, 0x1001, 0x0FFF, 0x2000, 0x8000, 0x8001, 0x7FFF, 0xFFFF, 0xE000):
        ties.append(hi | np.uint32(low))
    near = (np.arange(-4096, 4096, dtype=np.int64) + 0x477FE000).astype(np.uint32)       # around 65504 .. 2^16
    near_bf = (np.arange(-4096, 4096, dtype=np.int64) + 0x7F7F8000).astype(np.uint32)    # around the bf16 max
    small = rng.integers(0, 0x39000000, 200000, dtype=np.uint32)                          # f16 subnormal range
    f32sub = rng.integers(0, 0x00800000, 20000, dtype=np.uint32)                          # float32 subnormals
    random = rng.integers(0, 1 << 32, 1_000_000, dtype=np.uint64).astype(np.uint32)
    pos = np.concatenate([special.view(np.uint32), *ties, near, near_bf, small, f32sub, random])
    return np.concatenate([pos, pos ^ np.uint32(0x80000000)]).view(np.float32)


SOURCES = _sources()


@pytest.mark.parametrize("sat", [False, True], ids=["inf", "sat"])
@pytest.mark.parametrize("dtype_name", list(DTYPES))
@pytest.mark.parametrize("mode", MODES)
def test_directed_narrowing(mode, dtype_name, sat):
    code = dtype_info(dtype_name).code
    out = np.empty(SOURCES.size, np.uint16)
    _run(SOURCES, code, sat, MODES.index(mode), out)
    ref = directed_bits(SOURCES, dtype_name, mode, sat)
    _, inf_bits = DTYPES[dtype_name]
    ref_nan = (ref & 0x7FFF) > inf_bits
    got_nan = (out & 0x7FFF) > inf_bits      # any NaN of the reference's sign (bfloat16 keeps a payload)
    ok = np.where(ref_nan, got_nan & ((out & 0x8000) == (ref & 0x8000)), out == ref)
    if not ok.all():
        i = np.flatnonzero(~ok)[0]
        raise AssertionError(f"{int((~ok).sum())} differ; first float32 0x{int(SOURCES.view(np.uint32)[i]):08x}: "
                             f"0x{int(out[i]):04x}, expected 0x{int(ref[i]):04x}")


# ---------------------------------------------------------------- the engine and the reader


@pytest.mark.parametrize("overflow", ["ieee", "inf"])   # Platform.cast_overflow's rules (issue 43)
@pytest.mark.parametrize("saturation", [False, True], ids=["infnan", "saturation"])
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_directed_casts_run_on_the_engine_as_interpreted(dtype, saturation, overflow):
    from program_interpreter import interpret
    from reference import assert_bits_equal
    from swishgrad_numba.engine.runner import run_program
    from swishgrad_numba.program import Attr, Program, Tensor
    from swishgrad_numba.program.form import V

    x = np.arange(65536, dtype=np.uint16).view(DTYPES[dtype][0])        # every 16-bit input
    for mode in MODES[:3] if dtype == "bfloat16" else MODES:
        body = (V.Cast("xf", "x", "CAST_NONE"), V.Muls("xf", "xf", Attr("alpha")), V.Cast("out", "xf", mode))
        program = Program("Directed", (Tensor("x", dtype),), Tensor("out", dtype), (Tensor("xf"),), body,
                          ("alpha",))
        for alpha in (np.float32(1.0 / 3.0), np.float32(-1e5), np.float32(1.75)):
            got = run_program(program, [x], {"alpha": alpha}, saturation, grain=512, cast_overflow=overflow)
            want = interpret(program, {"x": x}, {"alpha": alpha}, saturation, cast_overflow=overflow)
            assert_bits_equal(got, want, f"{dtype} {mode} {alpha}")


@pytest.mark.parametrize("mode", MODES)
def test_a_read_kernel_narrows_in_the_mode_it_names(tmp_path, mode):
    from reader_variants import fixture_variant
    from reference import assert_bits_equal
    from swishgrad_numba.ops import read_kernel
    from swishgrad_numba.reader import KernelSourceError

    folder, _ = fixture_variant(tmp_path, "dtype_flags", "Cast(yLocal, xf, RoundMode::CAST_RINT",
                                f"Cast(yLocal, xf, RoundMode::{mode}")
    op = read_kernel(folder)
    assert f"{mode}" in str(op.program("float16"))
    if mode == "CAST_ODD":     # float32 -> half only (asc-devkit: asc_float2half has ODD, asc_float2bf16 not)
        with pytest.raises(KernelSourceError, match="CAST_ODD narrows float32 to float16 only"):
            op.program("bfloat16")
    for dtype in ("float16",) if mode == "CAST_ODD" else ("float16", "bfloat16"):
        bits = np.arange(65536, dtype=np.uint16)
        x = np.where((bits & 0x7FFF) > DTYPES[dtype][1], 0x3800, bits).astype(np.uint16).view(DTYPES[dtype][0])
        with np.errstate(over="ignore"):
            wide = x.astype(np.float32) * np.float32(1.5) + np.float32(0.25)   # the kernel's float32 body
        want = directed_bits(wide, dtype, mode).view(DTYPES[dtype][0])
        assert_bits_equal(op.run(x=x), want, f"dtype_flags {dtype} {mode}")


@pytest.mark.parametrize("value, mode", [(2, "CAST_FLOOR"), (3, "CAST_CEIL"), (5, "CAST_TRUNC"), (6, "CAST_ODD")])
def test_a_dag_kernels_vec_cast_narrows_in_the_mode_it_names(tmp_path, value, mode):
    """Vec::Cast<T, float, mode> in an arch35 DAG (the RoundMode enum's value, asc-devkit Cast.md)."""
    from reader_variants import fixture_variant
    from reference import assert_bits_equal
    from swishgrad_numba.ops import read_kernel

    folder, _ = fixture_variant(tmp_path, "dag_ratio_16b", "Vec::Cast<T, float, 1>", f"Vec::Cast<T, float, {value}>",
                                file="arch35/ratio_dag.h")
    op = read_kernel(folder)
    for dtype in ("float16",) if mode == "CAST_ODD" else ("float16", "bfloat16"):
        bits = np.arange(65536, dtype=np.uint16)
        x = np.where((bits & 0x7FFF) > DTYPES[dtype][1], 0x3800, bits).astype(np.uint16).view(DTYPES[dtype][0])
        with np.errstate(all="ignore"):
            xf = x.astype(np.float32)
            want = directed_bits(xf / (xf * xf + np.float32(1.0)), dtype, mode).view(DTYPES[dtype][0])
        assert_bits_equal(op.run(x=x), want, f"dag_ratio_16b {dtype} {mode}")

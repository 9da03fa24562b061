"""Casts between float and integer dtypes in every round mode asc-devkit's Cast page lists for the A2 (issue 43),
bit for bit against the plain reference (int_cast_reference): every 16-bit source (float16, bfloat16, int16),
sampled float32 and int32 with their edges; on the engine against the interpreter, and through read_kernel,
refusals named."""
import numpy as np
import pytest
from numba import njit

from int_cast_reference import MODES, NP, cast

from swishgrad_numba.program.int_casts import INT_ROUNDINGS
from swishgrad_numba.dtypes import dtype_info
from swishgrad_numba.platform import Platform
from swishgrad_numba.program import int_casts as IC


@njit(cache=True)
def _to_int(src, code, how, lo, hi, wrap, out):
    for i in range(src.size):
        out[i] = IC.cast_to_int(src[i], code, how, lo, hi, wrap)


@njit(cache=True)
def _from_int(src, how, half, out):
    for i in range(src.size):
        out[i] = np.float32(IC.cast_int_to_16(src[i], how)) if half else IC.cast_int_to_f32(src[i], how)


def _check(got, want, src, what):
    ok = got == want
    if not ok.all():
        i = np.flatnonzero(~ok)[0]
        raise AssertionError(f"{what}: {int((~ok).sum())} differ; first source {src[i]!r}: {got[i]!r}, "
                             f"expected {want[i]!r}")


def _float_to_int(src, src_name, dst):
    code = -1 if src_name == "float32" else dtype_info(src_name).code
    lo, hi = IC.INT_RANGES[dst]
    raw = src if src_name == "float32" else src.view(np.uint16)
    out = np.empty(src.size, np.int64)
    for wrap in (False, True):      # saturate (the default) and Platform.cast_int_overflow "wrap"
        for mode in IC.ROUNDED_INT_CASTS[dst, src_name]:
            _to_int(raw, code, INT_ROUNDINGS.index("CAST_RINT" if mode == "CAST_NONE" else mode), lo, hi, wrap, out)
            _check(out, cast(src, dst, mode, wrap).astype(np.int64), src, f"{src_name} -> {dst} {mode} wrap {wrap}")


@pytest.mark.parametrize("pair", [("int32", "float16"), ("int16", "float16"), ("int8", "float16"),
                                  ("uint8", "float16"), ("int32", "bfloat16")], ids=lambda p: f"{p[1]}-{p[0]}")
def test_every_16bit_float_to_int(pair):
    dst, src_name = pair
    _float_to_int(np.arange(65536, dtype=np.uint16).view(NP[src_name]), src_name, dst)


def _f32_sources():
    rng = np.random.default_rng(4343)
    edges = []
    for b in (2.0 ** 31, 2.0 ** 15, 2.0 ** 7, 2.0 ** 8, 2.0 ** 24, 1.0, 3.0):
        for k in np.arange(-3, 3.5, 0.5):
            edges += [b + k, -b + k, b - k * 2.0 ** -20]
    edges += [0.0, -0.0, np.inf, -np.inf, np.nan, 0.49999997, 0.5, 1.5, 2.5, -0.5, -1.5, 3.4e38, -3.4e38, 1e-45]
    halves = rng.integers(-2 ** 20, 2 ** 20, 100_000) + 0.5                              # ties of every parity
    small = rng.standard_normal(100_000) * 300
    bits = rng.integers(0, 1 << 32, 200_000, dtype=np.uint64).astype(np.uint32).view(np.float32)
    return np.concatenate([np.array(edges, np.float32), halves.astype(np.float32), small.astype(np.float32), bits])


@pytest.mark.parametrize("dst", ["int32", "int16"])
def test_sampled_float32_to_int(dst):
    _float_to_int(_f32_sources(), "float32", dst)


def test_every_int16_to_half_and_float():
    src = np.arange(-32768, 32768, dtype=np.int64).astype(np.int16)
    out = np.empty(src.size, np.float32)
    for mode in IC.ROUNDED_INT_CASTS["float16", "int16"]:
        _from_int(src, INT_ROUNDINGS.index("CAST_RINT" if mode == "CAST_NONE" else mode), True, out)
        _check(out.astype(np.uint16), cast(src, "float16", mode).view(np.uint16), src, f"int16 -> float16 {mode}")
    assert (cast(src, "float32", "CAST_NONE") == src).all()


def test_sampled_int32_to_float32():
    rng = np.random.default_rng(434343)
    edges = [b + k for b in (0, 2 ** 24, 2 ** 25, 2 ** 31 - 1, 2 ** 30, 3 << 24) for k in range(-6, 7)]
    edges = np.array([e for e in edges + [-e for e in edges] + [-2 ** 31] if -2 ** 31 <= e < 2 ** 31], np.int64)
    src = np.concatenate([edges, rng.integers(-2 ** 31, 2 ** 31, 300_000), rng.integers(-2 ** 26, 2 ** 26, 100_000)])
    src = src.astype(np.int32)
    out = np.empty(src.size, np.float32)
    for mode in IC.ROUNDED_INT_CASTS["float32", "int32"]:
        _from_int(src, INT_ROUNDINGS.index("CAST_RINT" if mode == "CAST_NONE" else mode), False, out)
        _check(out.view(np.uint32), cast(src, "float32", mode).view(np.uint32), src, f"int32 -> float32 {mode}")


def test_the_reference_follows_the_cast_pages_examples():
    """asc-devkit Cast.md, Table 1: float 2^22 + 0.5 -> int32 and half -1.5 -> int32 by mode; -> int16 past the
    range saturates (2^15 - 1)."""
    x = np.float32([2 ** 22 + 0.5])
    assert [int(cast(x, "int32", m)[0]) - 2 ** 22 for m in MODES] == [0, 0, 1, 1, 0]
    h = np.float16([-1.5])
    assert [int(cast(h, "int32", m)[0]) for m in MODES] == [-2, -2, -1, -2, -1]
    assert all(int(cast(x, "int16", m)[0]) == 2 ** 15 - 1 for m in MODES)
    # the wrap rule keeps the low bits (rounding_mode.md: int32 511 -> int8 -1); +-inf the bounds, NaN 0
    assert [int(v) for v in cast(np.float32([511.0, 256.0, -256.0, 1029.9, 2.0 ** 40, -np.inf, np.nan]), "int8",
                                 "CAST_TRUNC", wrap=True)] == [-1, 0, 0, 5, 0, -128, 0]


# ---------------------------------------------------------------- the program form, the engine, the reader


def _programs():
    from swishgrad_numba.program import Attr, Program, Tensor
    from swishgrad_numba.program.form import V

    def prog(dtype, inner, mode, back):
        wide = [V.Cast("xf", "x", "CAST_NONE")] if dtype != "float32" else [V.Muls("xf", "x", Attr("alpha"))]
        if dtype != "float32":
            wide.append(V.Muls("xf", "xf", Attr("alpha")))
        body = wide + [V.Cast("xi", "xf", mode), V.Cast("yf", "xi", back), V.Adds("yf", "yf", Attr("alpha"))]
        body.append(V.Cast("out", "yf", "CAST_RINT") if dtype != "float32" else V.Muls("out", "yf", Attr("alpha")))
        return Program(f"IntCast_{inner}", (Tensor("x", dtype),), Tensor("out", dtype),
                       (Tensor("xf"), Tensor("xi", inner), Tensor("yf")), tuple(body), ("alpha",))

    yield "float32", prog("float32", "int32", "CAST_FLOOR", "CAST_CEIL")
    yield "float32", prog("float32", "int16", "CAST_ROUND", "CAST_NONE")
    yield "bfloat16", prog("bfloat16", "int32", "CAST_TRUNC", "CAST_ROUND")
    for mode in MODES:
        yield "float16", prog("float16", "int32", mode, "CAST_TRUNC")
    from swishgrad_numba.program import Program as P, Tensor as T
    # int16 -> half by a mode, int8 and uint8 from half
    yield "float16", P("Int16Half", (T("x", "float16"),), T("out", "float16"), (T("xi", "int16"),),
                       (V.Cast("xi", "x", "CAST_CEIL"), V.Cast("out", "xi", "CAST_FLOOR")), ())
    yield "float16", P("Int8Half", (T("x", "float16"),), T("out", "float16"), (T("xi", "int8"),),
                       (V.Cast("xi", "x", "CAST_ROUND"), V.Cast("out", "xi", "CAST_NONE")), ())


@pytest.mark.parametrize("saturation", [False, True], ids=["infnan", "saturation"])
def test_int_casts_run_on_the_engine_as_interpreted(saturation):
    from program_interpreter import interpret
    from reference import assert_bits_equal
    from swishgrad_numba.engine.runner import run_program

    rng = np.random.default_rng(7)
    for i, (dtype, program) in enumerate(_programs()):
        if dtype == "float32":
            x = np.concatenate([_f32_sources()[:4000], rng.standard_normal(4000).astype(np.float32) * 1e5])
        else:
            x = np.arange(65536, dtype=np.uint16).view(NP[dtype])
        for alpha in ([np.float32(1.0)] if not program.attrs else [np.float32(1.0), np.float32(-3.75)]):
            attrs = {"alpha": alpha} if program.attrs else {}
            got = run_program(program, [x], attrs, saturation, grain=512)
            with np.errstate(all="ignore"):
                want = interpret(program, {"x": x}, attrs, saturation)
            assert_bits_equal(got, want, f"{program.name} {dtype} {alpha}")
            if i < 3:      # float32 and bfloat16 sources past the integer's range: the wrap rule too
                wrapped = run_program(program, [x], attrs, saturation, grain=512, cast_int_overflow="wrap")
                with np.errstate(all="ignore"):
                    want_wrap = interpret(program, {"x": x}, attrs, saturation, cast_int_overflow="wrap")
                assert_bits_equal(wrapped, want_wrap, f"{program.name} {dtype} {alpha} wrap")
                assert not np.array_equal(wrapped.view(np.uint8), got.view(np.uint8))


def _int_variant(tmp_path, ctype, mode, back="CAST_NONE"):
    from reader_variants import fixture_variant

    folder, path = fixture_variant(
        tmp_path, "dtype_flags", "        Muls(xf, xf, 1.5f, this->tileLength);",
        f"        LocalTensor<{ctype}> xi = intBuf.Get<{ctype}>();\n"
        f"        Cast(xi, xf, RoundMode::{mode}, this->tileLength);\n"
        f"        Cast(xf, xi, RoundMode::{back}, this->tileLength);\n"
        "        Muls(xf, xf, 1.5f, this->tileLength);")
    text = path.read_text().replace("    TBuf<TPosition::VECCALC> floatBuf;",
                                    "    TBuf<TPosition::VECCALC> floatBuf;\n    TBuf<TPosition::VECCALC> intBuf;")
    text = text.replace("        pipe.InitBuffer(floatBuf, tileLength * sizeof(float));",
                        "        pipe.InitBuffer(floatBuf, tileLength * sizeof(float));\n"
                        "        pipe.InitBuffer(intBuf, tileLength * sizeof(int32_t));")
    path.write_text(text)
    return folder, path


@pytest.mark.parametrize("mode", ["CAST_FLOOR", "CAST_ROUND", "CAST_TRUNC"])
def test_a_read_kernel_casts_through_int32(tmp_path, mode):
    from reference import assert_bits_equal
    from swishgrad_numba.ops import read_kernel

    folder, _ = _int_variant(tmp_path, "int32_t", mode)
    op = read_kernel(folder)
    assert f"Cast(xi, xf, {mode})" in str(op.program("float16"))
    for dtype in ("float16", "bfloat16"):
        x = np.arange(65536, dtype=np.uint16).view(NP[dtype])
        with np.errstate(all="ignore"):
            i = cast(x.astype(np.float32), "int32", mode)
            want = (i.astype(np.float32) * np.float32(1.5) + np.float32(0.25)).astype(NP[dtype])
        assert_bits_equal(op.run(x=x), want, f"dtype_flags {dtype} {mode}")
    x = np.arange(65536, dtype=np.uint16).view(NP["bfloat16"])     # past 2^31: the platform's wrap rule
    with np.errstate(all="ignore"):
        i = cast(x.astype(np.float32), "int32", mode, wrap=True)
        want = (i.astype(np.float32) * np.float32(1.5) + np.float32(0.25)).astype(NP["bfloat16"])
    assert_bits_equal(op.run(x=x, platform=Platform(cast_int_overflow="wrap")), want, f"bfloat16 {mode} wrap")


def test_the_reader_refuses_casts_it_does_not_model(tmp_path):
    from swishgrad_numba.ops import read_kernel
    from swishgrad_numba.reader import KernelSourceError

    folder, path = _int_variant(tmp_path / "odd", "int32_t", "CAST_ODD")
    with pytest.raises(KernelSourceError, match=r"dtype_flags\.cpp:\d+.*a Cast from float32 to int32 takes "
                                                r"CAST_RINT, CAST_FLOOR, CAST_CEIL, CAST_ROUND, CAST_TRUNC.*not CAST_ODD"):
        read_kernel(folder).program("float16")
    folder, path = _int_variant(tmp_path / "i8", "int8_t", "CAST_FLOOR")
    with pytest.raises(KernelSourceError, match=r"dtype_flags\.cpp:\d+.*no Cast from float32 to int8"):
        read_kernel(folder).program("float16")
    folder, path = _int_variant(tmp_path / "i64", "int64_t", "CAST_FLOOR")
    with pytest.raises(KernelSourceError, match=r"dtype_flags\.cpp:\d+.*int64_t.*not float, half"):
        read_kernel(folder).program("float16")

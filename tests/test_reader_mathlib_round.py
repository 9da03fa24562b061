"""AscendC's Round, Floor, Ceil, Trunc, Frac, Sin, Cos and Tan in a read kernel (issue 43, reader.mathlib_calls): each
expanded into the instructions asc-devkit's A2 implementation runs, on the whole-number ``Cast<float, float>``,
bit for bit against a reference written here instruction by instruction (NumPy float32, each instruction one
float32 operation; on half the float32 formula between the exact widening and one narrowing to nearest even):
every half pattern, and a float32 sample with the specials, +-0, subnormals, huge values and .5 ties.

The fixture tests/fixtures/kernels/mathlib_floor_sin is a course-style kernel (op_host and op_kernel) computing
``Floor(x) + Sin(x)``; the per-call tests put each call into mathlib_acts (a tutorial-style class kernel)."""
import numpy as np
import pytest

from activation_checks import every16
from reader_variants import fixture_variant
from reference import SPECIALS, assert_bits_equal, random_inputs
from reference_family import narrow

from swishgrad_numba.ops import read_kernel
from swishgrad_numba.reader import KernelSourceError
from swishgrad_numba.reader.mathlib import EXPANDED, NOT_EXPANDED

from pathlib import Path

F32, F16 = np.float32, np.float16
KERNELS = Path(__file__).parent / "fixtures" / "kernels"
CALL = "AscendC::Silu(yLocal, xLocal, this->tileLength);"


def whole(x, mode):
    """Cast<float, float> by ``mode``: the float32 rounded to a whole number in float64 (exact), sign kept."""
    d = np.asarray(x, F32).astype(np.float64)
    if mode == "CAST_ROUND":
        t = np.trunc(d)
        with np.errstate(invalid="ignore"):      # inf - inf: NaN, not >= 0.5, so inf stays
            r = np.where(np.abs(d - t) >= 0.5, t + np.sign(d), t)
    else:
        r = {"CAST_RINT": np.rint, "CAST_FLOOR": np.floor, "CAST_CEIL": np.ceil, "CAST_TRUNC": np.trunc}[mode](d)
    return r.astype(F32)


def f(v):
    return F32(v)


def ref_sin(x):
    """sin_common_impl.h: SinRound, SinKpi, SinSignCompute, SinPolynomialApproximation."""
    k = whole(x * f(0.3183098733425140380859375), "CAST_ROUND")
    x0 = x - k * f(3.140625)
    x0 = x0 - k * f(0.0009670257568359375)
    x0 = x0 - k * f(6.2771141529083251953125e-7)
    x0 = x0 - k * f(1.21644916362129151821136474609375e-10)
    return _sign_poly(x0, k)


def _sign_poly(x0, k):
    sq = x0 * x0
    s = k * f(0.5)
    s = whole(s, "CAST_FLOOR")
    s = s * f(4.0)
    k = k * f(-2.0)
    s = s + k
    s = s + f(1.0)
    p = sq * f(2.604926501e-6)
    for c in (-0.0001980894471, 0.008333049340, -0.1666665792):      # p = p + c, then p = p * x0^2
        p = (p + f(c)) * sq
    p = p + f(1.0)
    p = p * x0
    return p * s


def ref_cos(x):
    """cos_common_impl.h: CosRound, KPI, SignCompute, CosPolynomialApproximation, clipped to [-1, 1]."""
    k = x * f(0.3183098733425140380859375)
    k = k + f(0.5)
    k = whole(k, "CAST_RINT")
    x0 = x - k * f(3.140625)
    x0 = x0 - k * f(0.0009670257568359375)
    x0 = x0 + f(1.57079637050628662109375)
    x0 = x0 - k * f(6.2771141529083251953125e-7)
    x0 = x0 - k * f(1.21644916362129151821136474609375e-10)
    x0 = x0 - k * f(-1.0290623200529979163359041220560e-13)
    x0 = x0 + f(-0.00000004371139000189375)
    r = _sign_poly(x0, k)
    r = np.where(np.isnan(r) | (r <= f(1.0)), r, f(1.0)).astype(F32)       # Mins, NaN kept
    return np.where(np.isnan(r) | (r >= f(-1.0)), r, f(-1.0)).astype(F32)   # Maxs


def ref_tan(x, half=False):
    """tan_common_impl.h: Adds(x, 0) on float (a Cast on half), TanRound with KPI_0..KPI_4, the rational form."""
    x0 = x if half else x + f(0.0)
    k = whole(x0 * f(0.3183098733425140380859375), "CAST_RINT")
    x0 = x0 - k * f(3.140625)
    x0 = x0 - k * f(0.0009670257568359375)
    down = x0 + f(1.57079637050628662109375)
    up = x0 + f(-1.57079637050628662109375)
    for i, part in enumerate((6.2771141529083251953125e-7, 1.21644916362129151821136474609375e-10,
                              -1.0291767438275201129727065563201904296875e-13)):
        kp = k * f(part)
        x0, down, up = x0 - kp, down - kp, up - kp
        if i == 0:
            down = down + f(-0.00000004371139000189375)
            up = up + f(0.00000004371139000189375)
    sq = x0 * x0
    p = sq * f(0.0698520831551998762793)
    p = p + f(-6.8711573651634203789)
    p = p * sq
    p = p + f(61.20362572811089435388)
    p = p * x0
    q = sq + f(-24.8048928861126769186219)
    q = q * down
    q = q * up
    return p / q


#: call -> the reference on float32 (``half``: on the widened half)
REFS = {
    "Round": lambda x, half: whole(x, "CAST_RINT"),
    "Floor": lambda x, half: whole(x, "CAST_FLOOR"),
    "Ceil": lambda x, half: whole(x, "CAST_CEIL"),
    "Trunc": lambda x, half: whole(x, "CAST_TRUNC"),
    "Frac": lambda x, half: x - whole(x, "CAST_TRUNC"),
    "Sin": lambda x, half: ref_sin(x),
    "Cos": lambda x, half: ref_cos(x),
    "Tan": lambda x, half: ref_tan(x, half),
}


def _inputs(dtype):
    if dtype == "float16":
        return every16("float16")
    rng = np.random.default_rng(4343)
    wide = np.ldexp(rng.uniform(1, 2, 3000), rng.integers(-140, 128, 3000)) * rng.choice([-1, 1], 3000)
    ties = np.array([k + 0.5 for k in range(-20, 20)] + [2.0 ** 23 - 0.5, -(2.0 ** 23 - 0.5), 0.49999997,
                                                          -0.49999997, 2.0 ** 24 + 2, 3e9, -3e9, 1e-40, -1e-40])
    trig = np.array([np.pi / 2, -np.pi / 2, np.pi, 1e4, -1e4, 1e6, 123456.7, 2.0 ** 30], np.float64)
    return np.concatenate([random_inputs(rng, 6000, F32)[1], wide.astype(F32), SPECIALS.astype(F32),
                           ties.astype(F32), trig.astype(F32), (rng.standard_normal(4000) * 20).astype(F32)])


def _op(tmp_path, call, dtype):
    folder, _ = fixture_variant(tmp_path, "mathlib_acts", CALL, call)
    if dtype == "float16":
        path = folder / "mathlib_acts.cpp"
        path.write_text(path.read_text().replace("KernelMathlibActs<float> op;", "KernelMathlibActs<half> op;"))
    return read_kernel(folder)


def _want(x, ref, dtype):
    with np.errstate(all="ignore"):
        r = ref(x.astype(F32), dtype == "float16")
    return r.astype(F32) if dtype == "float32" else narrow(r, F16, ties_away=False)


@pytest.mark.parametrize("dtype", ["float32", "float16"])
@pytest.mark.parametrize("name", list(REFS))
def test_each_call_is_bit_exact(tmp_path, name, dtype):
    x = _inputs(dtype)
    tmp = "sharedTmp, " if name in ("Floor", "Sin", "Frac") else ""       # with and without the shared buffer
    got = _op(tmp_path, f"AscendC::{name}(yLocal, xLocal, {tmp}this->tileLength);", dtype).run(x=x)
    assert_bits_equal(got, _want(x, REFS[name], dtype), f"{name} {dtype}")


def test_round_is_ties_to_even_and_the_others_differ(tmp_path):
    x = np.array([0.5, 1.5, 2.5, -0.5, -2.5, -0.3, 2.7] * 8, F32)
    got = {n: _op(tmp_path / n, f"AscendC::{n}(yLocal, xLocal, this->tileLength);", "float32").run(x=x)[:7]
           for n in ("Round", "Floor", "Ceil", "Trunc")}
    assert got["Round"].tolist() == [0.0, 2.0, 2.0, -0.0, -2.0, -0.0, 3.0]
    assert got["Floor"].tolist() == [0.0, 1.0, 2.0, -1.0, -3.0, -1.0, 2.0]
    assert got["Ceil"].tolist() == [1.0, 2.0, 3.0, -0.0, -2.0, -0.0, 3.0]
    assert got["Trunc"].tolist() == [0.0, 1.0, 2.0, -0.0, -2.0, -0.0, 2.0]
    assert np.signbit(got["Ceil"][5])


@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_the_course_fixture_floor_plus_sin(dtype):
    x = _inputs(dtype)
    x = x[:x.size // 2048 * 2048]     # 8 cores x 8 tiles x 2 buffers, whole tiles of 16 elements
    got = read_kernel(KERNELS / "mathlib_floor_sin").run(x=x)
    with np.errstate(all="ignore"):
        w = x.astype(F32)
        if dtype == "float32":
            want = whole(w, "CAST_FLOOR") + ref_sin(w)
        else:       # each call narrowed to half, then the half Add: the float32 sum rounded once
            fl = narrow(whole(w, "CAST_FLOOR"), F16, ties_away=False).astype(F32)
            sn = narrow(ref_sin(w), F16, ties_away=False).astype(F32)
            want = narrow(sn + fl, F16, ties_away=False)
    assert_bits_equal(got, want, f"Floor + Sin {dtype}")


def test_frac_in_place_follows_the_library_order(tmp_path):
    # FracCompute: Cast(dst, src, CAST_TRUNC) then Sub(dst, src, dst): in place src is already trunc(x): 0
    x = _inputs("float32")
    op = _op(tmp_path, "AscendC::Frac(xLocal, xLocal, this->tileLength);\n"
                       "        AscendC::Muls(yLocal, xLocal, 1.0f, this->tileLength);", "float32")
    with np.errstate(all="ignore"):
        t = whole(x, "CAST_TRUNC")
        assert_bits_equal(op.run(x=x), t - t, "in-place Frac")


def test_sin_reusing_its_source_reduces_into_it(tmp_path):
    # Sin<T, true>: x0 = x - k pi is written into src (sin_common_impl.h 196), which the kernel then reads
    x = _inputs("float32")
    op = _op(tmp_path, "AscendC::Sin<T, true>(yLocal, xLocal, this->tileLength);\n"
                       "        AscendC::Add(yLocal, yLocal, xLocal, this->tileLength);", "float32")
    with np.errstate(all="ignore"):
        k = whole(x * f(0.3183098733425140380859375), "CAST_ROUND")
        x0 = x - k * f(3.140625)
        x0 = x0 - k * f(0.0009670257568359375)
        x0 = x0 - k * f(6.2771141529083251953125e-7)
        x0 = x0 - k * f(1.21644916362129151821136474609375e-10)
        assert_bits_equal(op.run(x=x), ref_sin(x) + x0, "Sin reusing its source")


def test_bfloat16_is_refused_by_name(tmp_path):
    folder, _ = fixture_variant(tmp_path, "mathlib_acts", CALL, "AscendC::Floor(yLocal, xLocal, this->tileLength);")
    path = folder / "mathlib_acts.cpp"
    path.write_text(path.read_text().replace("KernelMathlibActs<float> op;", "KernelMathlibActs<bfloat16_t> op;"))
    with pytest.raises(KernelSourceError, match="AscendC::Floor on bfloat16"):
        read_kernel(folder)


@pytest.mark.parametrize("cast, words", [
    ("Cast(yLocal, xLocal, RoundMode::CAST_NONE, this->tileLength);", "a Cast from float to float with CAST_NONE"),
    ("Cast(yLocal, xLocal, RoundMode::CAST_ODD, this->tileLength);", "a Cast from float to float with CAST_ODD"),
])
def test_a_float_to_float_cast_names_its_mode(tmp_path, cast, words):
    folder, path = fixture_variant(tmp_path, "mathlib_acts", CALL, cast)
    with pytest.raises(KernelSourceError) as e:
        read_kernel(folder)
    assert e.value.line == 50 and words in str(e.value), str(e.value)


def test_a_float_to_float_cast_in_the_kernel_reads(tmp_path):
    x = _inputs("float32")
    for mode in ("CAST_RINT", "CAST_FLOOR", "CAST_CEIL", "CAST_ROUND", "CAST_TRUNC"):
        folder, _ = fixture_variant(tmp_path / mode, "mathlib_acts", CALL,
                                    f"AscendC::Cast(yLocal, xLocal, AscendC::RoundMode::{mode}, this->tileLength);")
        assert_bits_equal(read_kernel(folder).run(x=x), whole(x, mode), mode)


def test_the_lists_agree():
    assert {"Round", "Floor", "Ceil", "Trunc", "Frac", "Sin", "Cos", "Tan"} <= set(EXPANDED)
    assert {"Power", "Pow"} <= NOT_EXPANDED and not set(EXPANDED) & NOT_EXPANDED

"""EluBackward on the Atlas A2 (swishgrad_numba.ops.elu_grad_a2): the host tiling's records worked by hand from
experimental/activation/elu_grad_v2/op_host/elu_grad_v2_tiling.cpp, and the bits against
ref_elu_backward(kernel="a2", a2_skips=...) with each core's class (which Muls it leaves out when nearly one)
read by hand from the record: the near-one skip per variant, including one launch whose cores differ."""
from __future__ import annotations

import numpy as np
import pytest

import swishgrad_numba as sg
from activation_checks import every16
from reference import SPECIALS, assert_bits_equal
from reference_activations import BF16
from program_interpreter import interpret
from reference_activations_tier2 import ref_elu_backward
from swishgrad_numba.ops import elu_grad_a2, get_operator

A2 = sg.REFERENCE_PLATFORM          # 196,608-byte UB, 48 cores
NP = {"float32": np.dtype(np.float32), "float16": np.dtype(np.float16), "bfloat16": np.dtype(BF16)}
#: Factors in (0.999, 1.001) but not 1: a Muls by them changes bits, so a class that leaves it out differs.
NEAR = (1.0005, 1.0005, 1.0005)
OTHER = [(1.0, 0.9995, 1.0008), (0.5, 1.7, 0.3), (1.0, 1.0, 1.0), (0.0, 1.0002, 0.0), (2.0, -1.0, -3.0)]


def _hand(n, dtype):
    t = sg.compute_tiling(n, dtype, op="elu_grad")
    f = t.fields
    return (t.tiling_key, t.block_dim, f["tileDataNum"], f["bigCoreNum"], f["bigCoreDataNum"], f["smallCoreDataNum"],
            f["lastCoreDataNum"], f["bufferOpen"])


@pytest.mark.parametrize("n,dtype,want", [
    # n <= 1,024: SINGLE_TILE_EXP (2), one core, the tile aligned up to 256 bytes
    (1000, "float32", (2, 1, 1024, 0, 0, 0, 1000, 0)),
    # 48 cores of 33 / 32 blocks of 64; a 4,096 double-buffered tile undone (one tile per core): single
    (100_000, "float32", (0, 48, 2112, 27, 2112, 2048, 2016, 0)),
    # bfloat16 aligned >= 4,096 would be MixedAlignedFast, but one tile of <= 1,024 per core is SINGLE_TILE first
    (8192, "bfloat16", (2, 8, 1024, 0, 1024, 1024, 1024, 0)),
    # float16 aligned >= 4,096 with every attribute ~1 and not isResult: FLOAT16_EXP_FAST (6)
    (65536, "float16", (6, 48, 1408, 32, 1408, 1280, 1280, 0)),
    (65536, "bfloat16", (4, 48, 1408, 32, 1408, 1280, 1280, 0)),
    # two tiles of 4,096 per core: double buffered, SAFE_EXP
    (300_000, "float16", (0, 48, 4096, 40, 6272, 6144, 6112, 1)),
])
def test_host_tiling_worked_by_hand(n, dtype, want):
    assert _hand(n, dtype) == want
    t = sg.compute_tiling(n, dtype, op="elu_grad")
    assert len(t.tobytes()) == 52 and t.workspace_size == 0
    assert not [f for f in sg.validate_tiling(t, n, dtype).findings if f.severity == "error"]


def test_validator_sees_coverage_and_the_compare_alignment():
    t = sg.compute_tiling(100_000, "float32", op="elu_grad")
    data = t.data.copy()
    data["lastCoreDataNum"] = 1000
    data["tileDataNum"] = 2100                        # not a multiple of 64 float32: Compare's count overruns
    bad = type(t)(t.op, t.architecture, data, t.block_dim, t.tiling_key, t.workspace_size)
    codes = {f.code for f in sg.validate_tiling(bad, 100_000, "float32").findings}
    assert {"COVERAGE_GAP", "FIELD_RANGE"} <= codes
    data = t.data.copy()
    data["tileDataNum"] = 30_016                      # the chunk scratch and its uint8 mask no longer fit
    big = type(t)(t.op, t.architecture, data, t.block_dim, t.tiling_key, t.workspace_size)
    assert "UB_OVERFLOW" in {f.code for f in sg.validate_tiling(big, 100_000, "float32").findings}


def _check(n, dtype, attrs, is_result, skips, seed=0):
    rng = np.random.default_rng(seed)
    a = rng.uniform(-6, 6, n).astype(np.float32)
    a[:len(SPECIALS)] = SPECIALS
    with np.errstate(all="ignore"):
        a, g = a.astype(NP[dtype]), rng.uniform(-4, 4, n).astype(np.float32).astype(NP[dtype])
    got = sg.elu_backward(g, a, *attrs, is_result=is_result, platform=A2)
    if isinstance(skips, str):
        skips = [(0, n, skips)]
    want = np.empty_like(got)
    for s, e, sk in skips:
        want[s:e] = ref_elu_backward(g[s:e], a[s:e], *attrs, is_result, kernel="a2", a2_skips=sk)
    assert_bits_equal(got, want, f"A2 elu_backward {dtype} n={n} {attrs} {is_result}")
    return got


@pytest.mark.parametrize("is_result", [False, True])
@pytest.mark.parametrize("attrs", [NEAR] + OTHER)
@pytest.mark.parametrize("n,dtype,skips", [
    (1000, "float32", "all"), (800, "float16", "all"), (8192, "bfloat16", "all"),    # KernelEluGradV2SingleTile
    (100_000, "float32", None),           # KernelEluGradV2, chunked: float32 result mode leaves out inputScale
    (100_001, "float16", "none"), (100_001, "bfloat16", "none"),                      # 16-bit chunked: nothing
    (65536, "bfloat16", "none"),          # MixedAlignedFast (key 4; with isResult 5)
])
def test_a2_near_one_skips_per_class(n, dtype, skips, attrs, is_result):
    if is_result and attrs[0] < 0:
        return
    _check(n, dtype, attrs, is_result, skips or ("input_scale" if is_result else "none"))


def test_a2_near_one_skip_differs_between_classes():
    """The same inputs and attributes give other bits on a SINGLE_TILE launch and a chunked one."""
    a = _check(1000, "float32", NEAR, False, "all")
    rng = np.random.default_rng(0)
    x = rng.uniform(-6, 6, 1000).astype(np.float32)
    x[:len(SPECIALS)] = SPECIALS
    g = rng.uniform(-4, 4, 1000).astype(np.float32)
    none = ref_elu_backward(g, x, *NEAR, False, kernel="a2", a2_skips="none")
    assert not np.array_equal(a.view(np.uint32), none.view(np.uint32))


def test_a2_float16_aligned_fast_and_cores_of_two_classes():
    """float16, aligned, attributes ~1, exp mode: Float16AlignedFast leaves out all three. And n = 49,900
    float16 (SAFE_EXP, tile 1,152): the 6 big cores (1,152 elements, one tile > 1,024) compute in full, the
    41 small ones (1,024) and the last (1,004) take KernelEluGradV2's direct path, which leaves them out."""
    _check(65536, "float16", NEAR, False, "all")
    assert _hand(49_900, "float16")[:7] == (0, 48, 1152, 6, 1152, 1024, 1004)
    _check(49_900, "float16", NEAR, False, [(0, 6 * 1152, "none"), (6 * 1152, 49_900, "all")])
    _check(49_900, "float16", NEAR, True, [(0, 6 * 1152, "none"), (6 * 1152, 49_900, "all")])


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("is_result", [False, True])
def test_a2_16bit_exhaustive(dtype, is_result):
    """Every 16-bit activation (65,536 elements, aligned: MixedAlignedFast for bfloat16; float16 chunked or,
    with these non-unit attributes, SAFE): nothing left out."""
    a = every16(dtype)
    g = np.random.default_rng(2).permutation(a)
    attrs = (0.5, 1.7, 0.3)
    assert_bits_equal(sg.elu_backward(g, a, *attrs, is_result=is_result, platform=A2),
                      ref_elu_backward(g, a, *attrs, is_result, kernel="a2", a2_skips="none"),
                      f"A2 elu_backward {dtype} {is_result}")


@pytest.mark.parametrize("is_result", [False, True])
def test_a2_saturation_mode_matches_the_interpreter(is_result):
    # factors far from 1: every core runs the class's full program; dy near FLT_MAX overflows the products
    sat = sg.Platform(overflow_mode="saturation")
    rng = np.random.default_rng(13)
    x = np.concatenate([rng.uniform(-90, 90, 3000), SPECIALS]).astype(np.float32)
    dy = rng.uniform(-3e38, 3e38, x.size).astype(np.float32)
    attrs = (2.5, 1.7, 3.0)
    got = sg.elu_backward(dy, x, *attrs, is_result=is_result, platform=sat)
    tiling = get_operator("elu_grad").host_tiling(x.size, sg.dtypes.FLOAT32, attrs + (is_result,), sat)
    f = elu_grad_a2.factors(tiling.data)
    program = elu_grad_a2.programs("float32", elu_grad_a2.program_variant(is_result, "none", f["scale"],
                                                                         f["input_scale"], f["factor_neg"]))
    want = interpret(program, {"g": dy, "a": x}, {a: f[a] for a in program.attrs}, saturation=True)
    assert_bits_equal(got, want)
    assert not np.isnan(got).any() and np.isfinite(got).all()


def test_a2_kept_schedule_follows_the_attributes_and_the_shape():
    """The launch keeps each record's runs of cores and factors (elu_grad.a2._schedule): calls of one shape
    whose attributes change (near one and not, 0.0 and -0.0: equal but other bits) and of another shape with
    the same attributes each get their own bits, in any order."""
    for attrs, n in [(NEAR, 4096), ((1.0, 1.0, 1.0), 4096), (NEAR, 4096), ((0.5, 0.0, 1.0), 4096),
                     ((0.5, -0.0, 1.0), 4096), (NEAR, 49_900), ((0.5, -0.0, 1.0), 1000)]:
        # 4,096 float32: four cores of 1,024, SINGLE_TILE_EXP (key 2); 49,900 float16: two classes (above)
        skips = [(0, 6 * 1152, "none"), (6 * 1152, n, "all")] if n == 49_900 else "all"
        _check(n, "float16" if n == 49_900 else "float32", attrs, False, skips)

"""Elu and EluBackward (swishgrad_numba.ops.elu, .elu_grad, .elu_api), bit for bit against the plain references
of tests/reference_activations_tier2.py (ref_elu, ref_elu_backward); their tilings against hand-worked ones
and the ops-nn UT; Elu refused on the A2 (no public kernel registers op type Elu)."""
from __future__ import annotations

import numpy as np
import pytest

import swishgrad_numba as sg
from activation_checks import every16
from reference import SPECIALS, assert_bits_equal
from reference_activations import BF16
from reference_activations_tier2 import ref_elu, ref_elu_backward
from swishgrad_numba.ops import elu as E
from swishgrad_numba.ops import elu_grad as EG
from swishgrad_numba.ops import get_operator

DTYPES = ("float32", "float16", "bfloat16")
NP = {"float32": np.dtype(np.float32), "float16": np.dtype(np.float16), "bfloat16": np.dtype(BF16)}
P950, A2 = sg.ASCEND950_PLATFORM, sg.REFERENCE_PLATFORM
UT_950 = sg.Platform(soc_version="ascend950", ub_size=245760, core_num=64)
SMALL_950 = sg.Platform(soc_version="ascend950", ub_size=8192, core_num=7)
#: EluGradV2 needs 9 or 11 float32 buffers of 256 elements: a small 950 it runs on.
SMALL_GRAD = sg.Platform(soc_version="ascend950", ub_size=40960, core_num=7)
#: (alpha, scale, input_scale): defaults, alpha 0, negative alpha and input_scale, a tiny input_scale
#: (every z in the polynomial's range), a huge one (Exp overflows), scale 0 and negative.
ATTRS = [(1.0, 1.0, 1.0), (0.0, 1.0, 1.0), (-1.3, 2.0, -0.7), (1.6732632, 1.0507010, 1e-3), (0.5, -3.0, 40.0),
         (2.0, 0.0, 1.0)]


def _f32_inputs(rng, n):
    """Random float32 around the Elu range, random bit patterns, the 0.1 polynomial edge and specials."""
    t = np.float32(0.1)
    edge = np.concatenate([np.nextafter(t, np.float32(0)) - np.arange(4, dtype=np.float32) * np.float32(1e-8),
                           t + np.arange(4, dtype=np.float32) * np.float32(1e-8)])
    parts = [rng.uniform(-20, 20, n), rng.uniform(-0.2, 0.2, n),
             rng.integers(0, 1 << 32, n, dtype=np.uint64).astype(np.uint32).view(np.float32), edge, -edge,
             np.asarray(SPECIALS), np.array([1e-45, -1e-45, 1e-39, -1e-39, -88.7, -104.0, 88.8])]
    return np.concatenate([np.asarray(p).astype(np.float32) for p in parts])

# ---------------------------------------------------------------- host tilings


def _hand_tiling(n, bits_min, divisor_bits, ub, cores):
    """opbase ElewiseTiling (elewise_tiling.cpp:33-102), worked by hand: cores by minDtypeBits, 512-element
    blocks, ubFormer = ub * 8 / divisor aligned down to 256 bytes of the smallest dtype."""
    core = min(cores, -(-n * bits_min // (8 * 4096)))
    former = -(-(-(-n // core)) // 512) * 512
    align = 256 * 8 // bits_min
    return core, former, -(-n // former), (ub * 8 // divisor_bits) // align * align


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n,platform", [(1, P950), (1000, P950), (300_001, P950), (8192, UT_950), (70_000, SMALL_950)])
def test_elu_host_tiling_by_hand(dtype, n, platform):
    t = sg.compute_tiling(n, dtype, platform=platform, op="elu")
    bits = 8 * NP[dtype].itemsize
    core, former, blocks, ub_former = _hand_tiling(n, bits, 4 * bits, platform.ub_size, platform.core_num)
    f = t.fields
    assert (f["coreNum"], f["blockFormer"], f["blockNum"], f["ubFormer"]) == (core, former, blocks, ub_former)
    assert (t.block_dim, t.tiling_key, t.workspace_size) == (blocks, 101, 16 * 1024 * 1024)
    assert len(t.tobytes()) == 96 and (f["alpha"], f["scale"], f["inputScale"]) == (1.0, 1.0, 1.0)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("is_result", [True, False])
@pytest.mark.parametrize("n,platform", [(1, P950), (8192, UT_950), (300_001, P950), (70_000, SMALL_GRAD)])
def test_elu_grad_host_tiling_by_hand(dtype, is_result, n, platform):
    info = sg.dtypes.dtype_info(dtype)
    t = EG.host_tiling(n, info, 0.5, 3.0, 2.0, is_result, platform)
    divisor = 32 * (11 if info.itemsize == 2 else 9)
    core, former, blocks, ub_former = _hand_tiling(n, 8, divisor, platform.ub_size, platform.core_num)
    f = t.fields
    assert (f["coreNum"], f["blockFormer"], f["blockNum"], f["ubFormer"]) == (core, former, blocks, ub_former)
    template = {"float16": 1, "bfloat16": 2, "float32": 3}[dtype] + (0 if is_result else 3)
    assert t.tiling_key == 1 + 2 * template and len(t.tobytes()) == 96
    assert (f["negcoef"], f["scale"], f["inputScale"]) == (1.5, 3.0, 2.0)


def test_elu_grad_tiling_is_the_ut_one():
    """activation/elu_grad_v2/tests/ut/op_host/arch35/test_elu_grad_v2_tiling.cpp: float16, isResult,
    (1,64,2,64), UB 245,760, 64 cores: key 3 and the base struct's words (ubFormer 5,376 = BufferNum 11 at
    32 bits, aligned to 256 elements by the uint8 mask); key 7 for float32."""
    t = EG.host_tiling(8192, sg.dtypes.dtype_info("float16"), 1.0, 1.0, 1.0, True, UT_950)
    words = " ".join(str(w) for w in np.frombuffer(t.tobytes()[:80], dtype="<i8"))
    assert t.tiling_key == 3 and words == "8192 23089744183298 4096 2 1 1 4096 4096 5376 1"
    assert EG.host_tiling(8192, sg.dtypes.dtype_info("float32"), 1.0, 1.0, 1.0, True, UT_950).tiling_key == 7


def test_refusals():
    x = np.linspace(-3, 3, 10, dtype=np.float32)
    with pytest.raises(ValueError, match=r"ascend910b.*op type Elu"):
        sg.elu(x, platform=A2)
    with pytest.raises(ValueError, match=r"ascend910b.*op type Elu"):
        sg.compute_tiling(100, "float32", platform=A2, op="elu")
    with pytest.raises(TypeError, match="grad_output.dtype float64 .*aclnnEluBackward accepts float32"):
        sg.elu_backward(x.astype(np.float64), x.astype(np.float64))
    with pytest.raises(ValueError, match="alpha must be >= 0 when is_result"):
        sg.elu_backward(x, x, alpha=-0.5, is_result=True)
    with pytest.raises(ValueError, match="alpha .* must be >= 0 when is_result"):
        EG.host_tiling(10, sg.dtypes.dtype_info("float32"), -1.0, 1.0, 1.0, True, P950)
    with pytest.raises(TypeError, match="is_result must be a bool"):
        sg.elu_backward(x, x, is_result=1)
    with pytest.raises(TypeError, match="alpha must be a real number"):
        sg.elu(x, alpha="1")
    with pytest.raises(TypeError, match="input_scale must be a real number"):
        sg.elu_backward(x, x, input_scale=1j)
    with pytest.raises(TypeError, match="same dtype"):
        sg.elu_backward(x, x.astype(np.float16))
    with pytest.raises(ValueError, match="same shape"):
        sg.elu_backward(x, x[:5])
    with pytest.raises(TypeError, match="x must be a numpy.ndarray"):
        sg.elu([1.0])
    with pytest.raises(ValueError, match="overflow"):
        sg.elu(x, platform=sg.Platform(soc_version="ascend950", overflow_mode="saturation"))


def test_default_platform_and_program_text():
    assert get_operator("elu").default_platform is P950 and get_operator("elu_grad").default_platform is A2
    text = str(get_operator("elu").program("float16"))
    assert "CompareScalar" in text and "Abs" in text and "CAST_RINT" in text
    assert "Compare" in str(EG.programs("float32", "result")) and "Exp" in str(EG.programs("float32"))

# ---------------------------------------------------------------- bits: Elu


@pytest.mark.parametrize("attrs", ATTRS)
def test_elu_float32_bits(attrs):
    x = _f32_inputs(np.random.default_rng(7), 40_000)
    assert_bits_equal(sg.elu(x, *attrs), ref_elu(x, *attrs), f"elu float32 {attrs}")


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("attrs", ATTRS[:4])
def test_elu_16bit_exhaustive(dtype, attrs):
    x = every16(dtype)
    assert_bits_equal(sg.elu(x, *attrs, platform=SMALL_950), ref_elu(x, *attrs), f"elu {dtype} {attrs}")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("attrs", [(np.inf, 2.0, 1.0), (-np.inf, 1.0, 1.0), (np.nan, 1.0, 1.0), (1.0, 3.0, np.inf),
                                   (0.5, -1.0, -np.inf), (1.0, 2.0, np.nan), (1.0, np.inf, 1.0)])
def test_elu_non_finite_attributes(dtype, attrs):
    """alpha or input_scale inf/NaN: the op_api's Threshold path; scale inf stays on the kernel."""
    with np.errstate(all="ignore"):
        x = _f32_inputs(np.random.default_rng(3), 3000).astype(NP[dtype])
    assert_bits_equal(sg.elu(x, *attrs), ref_elu(x, *attrs), f"elu {dtype} {attrs}")


def test_elu_specials_and_out():
    x = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, -np.nan, 1e-45, -1e-45, -0.05, 0.05], dtype=np.float32)
    y = sg.elu(x, 1.0)
    assert np.isnan(y[4]) and y[3] == -1.0 and y[2] == np.inf
    assert (np.signbit(y[0]), np.signbit(y[1])) == (False, True)   # the polynomial keeps the sign of z = +-0
    out = np.empty((20,), dtype=np.float32)[::2]
    assert sg.elu(x, 0.0, out=out) is out
    assert_bits_equal(out, ref_elu(x, 0.0), "elu out= strided")
    assert np.all(np.signbit(out[[1, 3, 7, 8]])) and out[0] == 0   # alpha 0: x < 0 (and -0) give -0

# ---------------------------------------------------------------- bits: EluBackward


@pytest.mark.parametrize("attrs,is_result", [(a, r) for a in ATTRS for r in (False, True) if a[0] >= 0 or not r])
def test_elu_backward_float32_bits(attrs, is_result):
    rng = np.random.default_rng(11)
    a = _f32_inputs(rng, 30_000)
    g = np.concatenate([rng.uniform(-5, 5, a.size - len(SPECIALS)).astype(np.float32),
                        np.asarray(SPECIALS, np.float32)])
    rng.shuffle(g)
    assert_bits_equal(sg.elu_backward(g, a, *attrs, is_result=is_result, platform=SMALL_GRAD),
                      ref_elu_backward(g, a, *attrs, is_result), f"elu_backward float32 {attrs} {is_result}")


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("is_result", [False, True])
@pytest.mark.parametrize("attrs", [(1.0, 1.0, 1.0), (0.5, 1.7, 0.3), (0.0, -2.0, 3.0)])
def test_elu_backward_16bit_exhaustive(dtype, is_result, attrs):
    """Every 16-bit activation, against gradients of every kind (random, specials, the pattern itself)."""
    a = every16(dtype)
    rng = np.random.default_rng(5)
    g = rng.permutation(a) if is_result else rng.uniform(-4, 4, a.size).astype(np.float32).astype(NP[dtype])
    assert_bits_equal(sg.elu_backward(g, a, *attrs, is_result=is_result, platform=P950),
                      ref_elu_backward(g, a, *attrs, is_result), f"elu_backward {dtype} {attrs} {is_result}")


def test_elu_backward_nan_activation_takes_the_positive_branch():
    g = np.array([2.0, 2.0, 2.0], dtype=np.float32)
    a = np.array([np.nan, -0.0, 0.0], dtype=np.float32)
    for platform in (P950, A2):
        got = sg.elu_backward(g, a, alpha=1.0, scale=3.0, input_scale=1.0, platform=platform)
        assert got[0] == 6.0 and got[1] == 2.0 * 3.0 * 1.0 and got[2] == 6.0


def test_device_time_model_covers_the_950_kernels():
    from swishgrad_numba.devicetime import estimate

    for op in ("elu", "elu_grad"):
        e = estimate(None, 1 << 16, "float16", op=op, platform=P950)
        assert e.valid and e.duration_us > 0


def test_a_warm_call_follows_the_attributes_and_the_shape():
    """Each record's launch (its variant and attributes, the 950's walk fields) is read once and kept on its
    tiling: calls that alternate attribute values (the Threshold path and the kernel's, -0.0 and 0.0) and
    sizes, each twice, are each their own reference's bits."""
    x = _f32_inputs(np.random.default_rng(17), 6000)
    g = x[::-1].copy()
    calls = [(1.0, 1.0, 1.0), (np.inf, 2.0, 1.0), (0.0, 1.0, 1.0), (-0.0, 1.0, 1.0), (1.0, 3.0, np.nan)]
    for attrs in calls * 2:
        for n in (6000, 1000):
            assert_bits_equal(sg.elu(x[:n], *attrs), ref_elu(x[:n], *attrs), f"elu {attrs} {n}")
            assert_bits_equal(sg.elu_backward(g[:n], x[:n], *attrs[:3], platform=sg.ASCEND950_PLATFORM),
                              ref_elu_backward(g[:n], x[:n], *attrs[:3]), f"elu_backward {attrs} {n}")

"""leaky_relu and leaky_relu_backward (ops/leaky_relu/, ops/leaky_relu_grad/: described), bit
for bit against the plain references of tests/reference_activations_tier2.py: the 950 kernels in the three
dtypes (every 16-bit x, specials, slopes at their edges, broadcasting), the float64 AICPU model, the host
tiling against opbase's ElewiseTiling worked by hand, the A2 refusal and the argument errors."""
from __future__ import annotations

import numpy as np
import pytest

import swishgrad_numba as sg
from activation_checks import DT16, every16
from program_interpreter import interpret
from reference import SPECIALS, assert_bits_equal
from reference_activation_tiling import arch35_tiling
from reference_activations_tier2 import ref_leaky_relu, ref_leaky_relu_backward
from swishgrad_numba.dtypes import dtype_info
from swishgrad_numba.ops import get_operator
from swishgrad_numba.ops import leaky_relu as LR
from swishgrad_numba.ops import leaky_relu_grad as LRG

DTYPES = ("float32", "float16", "bfloat16")
NP = {"float32": np.dtype(np.float32), **DT16}
F32 = np.float32
#: Slopes at their edges: torch's default, 0, 1 (the identity), negative, huge, the largest float, inf, NaN.
SLOPES = (0.01, 0.0, 1.0, -0.5, -1.0, 3.0, 1e30, float(np.finfo(F32).max), np.inf, -np.inf, np.nan)
A2 = sg.REFERENCE_PLATFORM
P950 = sg.ASCEND950_PLATFORM


def assert_f64_equal(actual, expected, context=""):
    """float64 bit patterns equal, every NaN one pattern (tests/reference.py's bits() reads 16 and 32 bits)."""
    assert actual.dtype == expected.dtype == np.float64 and actual.shape == expected.shape, context
    a, e = (np.where(np.isnan(v), np.nan, v).view(np.uint64) for v in (actual, expected))
    assert np.array_equal(a, e), context


def _x(dtype, rng):
    """Every 16-bit pattern; for float32 seeded samples over 80 decades, the subnormals' edges, the specials."""
    if dtype != "float32":
        return every16(dtype)
    x = rng.standard_normal(40_000) * 10.0 ** rng.integers(-40, 39, 40_000)
    with np.errstate(over="ignore"):
        return np.concatenate([x, SPECIALS]).astype(F32)


# ------------------------------------------------------------------ forward


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("slope", SLOPES)
def test_leaky_relu_bit_exact(dtype, slope):
    x = _x(dtype, np.random.default_rng(30))
    assert_bits_equal(sg.leaky_relu(x, slope), ref_leaky_relu(x, F32(slope)), f"{dtype} slope {slope}")


def test_leaky_relu_specials_against_compare():
    """A NaN fails ``x > 0`` and takes ``x * slope`` (NaN); -0 gives -0 * slope; slope 0 at -inf is NaN."""
    x = np.array([np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, -2.0, 2.0], F32)
    y = sg.leaky_relu(x, 0.0)
    assert np.isnan(y[:2]).all() and y[2] == np.inf and np.isnan(y[3])
    assert y[4] == 0 and not np.signbit(y[4]) and y[5] == 0 and np.signbit(y[5]) and np.signbit(y[6])
    assert_bits_equal(sg.leaky_relu(x, 1.0), x, "slope 1: x itself, NaN payloads and -0 too")
    yn = sg.leaky_relu(x, -1.0)
    assert yn[5] == 0 and not np.signbit(yn[5]) and yn[6] == 2.0 and yn[3] == np.inf


def test_leaky_relu_slope_rounds_once_to_float32():
    x = np.array([-1.0], F32)
    assert sg.leaky_relu(x, 1e300)[0] == -np.inf                  # ToFloat past float32's range: inf
    assert sg.leaky_relu(x, 0.1)[0] == -F32(0.1)
    assert sg.leaky_relu(x, 2**24 + 1)[0] == -F32(2**24)          # an integer rounded once


def test_leaky_relu_out_views_and_inplace():
    rng = np.random.default_rng(31)
    x = rng.standard_normal((40, 33)).astype(F32)
    want = ref_leaky_relu(x.reshape(-1), F32(0.2)).reshape(x.shape)
    out = np.empty((40, 66), F32)[:, ::2]
    assert sg.leaky_relu(x, 0.2, out=out) is out
    assert_bits_equal(out, want, "strided out")
    assert_bits_equal(sg.leaky_relu(x.T, 0.2), want.T, "strided x")
    y = x.copy()
    assert sg.leaky_relu(y, 0.2, out=y) is y                      # aclnnInplaceLeakyRelu
    assert_bits_equal(y, want, "in place")
    assert sg.leaky_relu(np.empty((0, 3), F32)).shape == (0, 3)


def test_leaky_relu_float64_aicpu_model():
    x = np.array([1.5, -1.5, 0.0, -0.0, np.nan, -np.inf], np.float64)
    for platform in (None, A2, P950):          # the AICPU kernel, whatever the AI Core has
        assert_f64_equal(sg.leaky_relu(x, 0.1, platform=platform), ref_leaky_relu(x, 0.1, kernel="aicpu"))
    assert sg.leaky_relu(x, 0.1)[1] == -1.5 * float(F32(0.1))


# ------------------------------------------------------------------ backward


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("slope", SLOPES)
def test_leaky_relu_backward_bit_exact(dtype, slope):
    """Every 16-bit x against seeded dy, and every 16-bit dy against seeded x (two sweeps of 2^16)."""
    rng = np.random.default_rng(32)
    x = _x(dtype, rng)
    with np.errstate(over="ignore"):
        dy = np.concatenate([rng.uniform(-8, 8, x.size - SPECIALS.size), SPECIALS]).astype(F32).astype(NP[dtype])
    for a, b in ((dy, x), (x, rng.permutation(dy))):
        assert_bits_equal(sg.leaky_relu_backward(a, b, slope), ref_leaky_relu_backward(a, b, F32(slope)),
                          f"{dtype} slope {slope}")


def test_leaky_relu_backward_specials_against_compare():
    """NaN, +0 and -0 x take the slope branch; +inf the dy branch."""
    x = np.array([np.nan, 0.0, -0.0, np.inf, -np.inf, 1e-45], F32)
    dy = np.full(x.size, -3.0, F32)
    assert_bits_equal(sg.leaky_relu_backward(dy, x, 0.5), np.array([-1.5, -1.5, -1.5, -3, -1.5, -3], F32))
    assert np.isnan(sg.leaky_relu_backward(np.full(2, np.inf, F32), np.array([-1, 1], F32), 0.0)[0])


BROADCASTS = [((3, 1, 70), (5, 70)), ((1,), (2, 3, 4)), ((2, 3, 4), ()), ((7, 1, 1, 9), (1, 6, 5, 1)),
              ((1, 2, 1, 2, 1, 2, 1, 2), (2, 1, 2, 1, 2, 1, 2, 1)), ((4097, 1), (1, 130))]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shapes", BROADCASTS, ids=str)
def test_leaky_relu_backward_broadcasts(dtype, shapes):
    rng = np.random.default_rng(33)
    dy = rng.uniform(-4, 4, shapes[0]).astype(F32).astype(NP[dtype])
    x = rng.uniform(-4, 4, shapes[1]).astype(F32).astype(NP[dtype])
    d, b = (np.ascontiguousarray(a).reshape(-1) for a in np.broadcast_arrays(dy, x))
    want = ref_leaky_relu_backward(d, b, F32(0.3)).reshape(np.broadcast_shapes(*shapes))
    assert_bits_equal(sg.leaky_relu_backward(dy, x, 0.3), want, f"{dtype} {shapes}")
    out = np.empty(want.shape[::-1], NP[dtype]).T                  # a non-contiguous out
    assert sg.leaky_relu_backward(dy, x, 0.3, out=out) is out
    assert_bits_equal(out, want, f"{dtype} {shapes} into a strided out")


def test_leaky_relu_backward_promotes_dtypes():
    rng = np.random.default_rng(34)
    a = rng.uniform(-4, 4, 999).astype(F32)
    h, b = a.astype(np.float16), a[::-1].astype(DT16["bfloat16"])
    got = sg.leaky_relu_backward(h, b, 0.25)
    assert got.dtype == F32                                      # PromoteType(float16, bfloat16) = float32
    assert_bits_equal(got, ref_leaky_relu_backward(h.astype(F32), b.astype(F32), F32(0.25)))
    d = sg.leaky_relu_backward(h, a.astype(np.float64), 0.25)
    assert d.dtype == np.float64
    assert_f64_equal(d, ref_leaky_relu_backward(h, a.astype(np.float64), 0.25, kernel="aicpu"))


def test_leaky_relu_backward_float64_aicpu_model():
    rng = np.random.default_rng(35)
    x = np.concatenate([rng.standard_normal(500), [np.nan, 0.0, -0.0, np.inf, -np.inf]])
    dy = rng.standard_normal((3, x.size))
    for platform in (None, A2):
        assert_f64_equal(sg.leaky_relu_backward(dy, x, 0.1, platform=platform),
                         ref_leaky_relu_backward(dy, x, 0.1, kernel="aicpu"))


def test_leaky_relu_backward_self_is_result():
    x, dy = np.array([1.0, -1.0], F32), np.ones(2, F32)
    assert_bits_equal(sg.leaky_relu_backward(dy, x, 0.5, True), sg.leaky_relu_backward(dy, x, 0.5))
    sg.leaky_relu_backward(dy, x, 0.0, True)
    with pytest.raises(ValueError, match="self_is_result=True needs negative_slope >= 0"):
        sg.leaky_relu_backward(dy, x, -0.01, True)
    with pytest.raises(ValueError, match="negative_slope >= 0"):
        sg.leaky_relu_backward(dy, x, -1e-50, self_is_result=True)     # the op_api checks the double


# ------------------------------------------------------------------ platforms and errors


@pytest.mark.parametrize("dtype", DTYPES)
def test_a2_refused(dtype):
    x = np.ones(4, NP[dtype])
    with pytest.raises(ValueError, match="cannot run leaky_relu: .*Ascend 950 only.*LeakyreluV2"):
        sg.leaky_relu(x, platform=A2)
    with pytest.raises(ValueError, match="cannot run leaky_relu_grad: .*LeakyReluGradV2"):
        sg.leaky_relu_backward(x, x, platform=A2)
    with pytest.raises(ValueError, match="cannot run leaky_relu"):
        sg.compute_tiling(4, dtype, op="leaky_relu", platform=A2)
    with pytest.raises(ValueError, match="cannot run"):
        get_operator("leaky_relu_grad").program(dtype, A2)


def test_bad_arguments():
    x = np.ones(4, F32)
    cases = [
        (lambda: sg.leaky_relu([1.0]), TypeError, "x must be a numpy.ndarray"),
        (lambda: sg.leaky_relu(np.ones(3, np.int32)), ValueError, "x.dtype must be one of .*float64"),
        (lambda: sg.leaky_relu(x, "0.1"), TypeError, "negative_slope must be a real number"),
        (lambda: sg.leaky_relu(x, 1j), TypeError, "negative_slope must be a real number"),
        (lambda: sg.leaky_relu(x, out=np.ones(4, np.float16)), TypeError, "out must have dtype"),
        (lambda: sg.leaky_relu(x, out=np.ones(5, F32)), ValueError, "out must have shape"),
        (lambda: sg.leaky_relu(np.ones((1,) * 9, F32)), ValueError, "at most 8 dimensions"),
        (lambda: sg.leaky_relu(x, platform="ascend950"), TypeError, "platform must be a Platform"),
        (lambda: sg.leaky_relu(x.astype(np.float64), platform="x"), TypeError, "platform must be a Platform"),
        (lambda: sg.leaky_relu_backward(x, np.ones(3, F32)), ValueError, "must broadcast against each other"),
        (lambda: sg.leaky_relu_backward(x, x.astype(np.int8)), ValueError, "x.dtype must be one of"),
        (lambda: sg.leaky_relu_backward(x, x, 0.1, 1), TypeError, "self_is_result must be a bool"),
        (lambda: sg.leaky_relu_backward(x, x, out=np.ones(4, np.float64)), TypeError, "out must have dtype"),
        (lambda: sg.leaky_relu_backward(np.ones((1,) * 9, F32), x), ValueError, "grad_output has at most 8"),
        (lambda: sg.leaky_relu_backward(x, x, platform=3), TypeError, "platform must be a Platform"),
    ]
    for fn, error, match in cases:
        with pytest.raises(error, match=match):
            fn()


# ------------------------------------------------------------------ host tiling, programs


SIZES = (1, 7, 1024, 100_003, 3_000_000)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", SIZES)
def test_950_tiling_by_hand(n, dtype):
    info = dtype_info(dtype)
    fields, block_dim, key = arch35_tiling("leaky_relu", n, dtype)
    t = sg.compute_tiling(n, dtype, op="leaky_relu")
    assert t.fields == {**{k: fields[k] for k in ("dim0", "coreNum", "ubFormer")}, "negativeSlope": F32(0.01)}
    assert (t.block_dim, t.tiling_key, t.workspace_size) == (block_dim, key, 16 << 20)
    raw = LR.host_tiling(n, info, F32(-2.5), P950).tobytes()
    assert len(raw) == 24 and raw[16:20] == F32(-2.5).tobytes() and raw[20:] == bytes(4)
    report = sg.validate_tiling(t, n, dtype, platform=P950)
    assert report.ok, report


@pytest.mark.parametrize("dtype", DTYPES)
def test_grad_tiling_key_and_slope(dtype):
    info = dtype_info(dtype)
    t = LRG.host_tiling((5, 1), (1, 7), info, F32(0.75), P950)
    assert t.tiling_key >> 16 == LRG.DTYPE_TEMPLATE[dtype] and t["negativeSlope"] == F32(0.75)
    assert tuple(t["outputDims"][:int(t["shapeLen"])]) == (5, 7)


@pytest.mark.parametrize("dtype", DTYPES)
def test_programs_match_the_interpreter(dtype):
    """The registered programs read as the DAGs (Muls, Compare GT against zero, Select), and compute what
    the independent interpreter does."""
    rng = np.random.default_rng(36)
    fwd, grad = (get_operator(n).program(dtype) for n in ("leaky_relu", "leaky_relu_grad"))
    core = ("Duplicate", "Muls", "Compare", "Select")
    wide = dtype != "float32"
    assert fwd.instructions() == ("Cast",) * wide + core + ("Cast",) * wide
    assert grad.instructions() == ("Cast",) * 2 * wide + core + ("Cast",) * wide
    x, dy = (_x(dtype, rng)[:20_000] for _ in range(2))
    assert_bits_equal(interpret(fwd, {"x": x}, {"negative_slope": F32(-0.3)}), ref_leaky_relu(x, F32(-0.3)))
    assert_bits_equal(interpret(grad, {"dy": dy, "x": x}, {"negative_slope": F32(0.3)}),
                      ref_leaky_relu_backward(dy, x, F32(0.3)))

"""FastGelu and FastGeluGrad (swishgrad_numba.ops.fast_gelu, its kernel and generated faces), bit for bit against the
plain references of tests/reference_activations.py, their tilings against the hand-worked ones of
tests/reference_activation_tiling.py; the A2 refused everywhere, as ops-nn has no A2 kernel."""
from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import reference_activation_tiling as rt
import swishgrad_numba as sg
from activation_checks import every16
from reference import SPECIALS, assert_bits_equal
from reference_activations import ref_fast_gelu, ref_fast_gelu_backward
from swishgrad_numba.ops import get_operator
from swishgrad_numba.ops import fast_gelu as F

BF16 = np.dtype(ml_dtypes.bfloat16)
DTYPES = {"float32": np.dtype(np.float32), "float16": np.dtype(np.float16), "bfloat16": BF16}
P950 = sg.ASCEND950_PLATFORM
A2 = sg.REFERENCE_PLATFORM
OPS = ("fast_gelu", "fast_gelu_grad")
REF_OP = {"fast_gelu": "fast_gelu", "fast_gelu_grad": "fast_gelu_backward"}   # the tiling reference's names
#: A small 950 for many cores and UB loops per core.
SMALL_950 = sg.Platform(soc_version="ascend950", ub_size=8192, core_num=7)


def _f32_inputs(rng, n):
    """Random float32 over the interesting range, random bit patterns, the Exp overflow edge and specials."""
    edge = np.float32(-52.129)
    parts = [rng.uniform(-12, 12, n), rng.integers(0, 1 << 32, n, dtype=np.uint64).astype(np.uint32).view(np.float32),
             np.nextafter(edge, np.float32(np.inf)) + np.arange(-40, 40, dtype=np.float32) * np.float32(1e-5),
             np.asarray(SPECIALS)]
    return np.concatenate([np.asarray(p).astype(np.float32) for p in parts])

# ---------------------------------------------------------------- host tiling


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("dtype", list(DTYPES))
@pytest.mark.parametrize("n,platform", [(1, P950), (64, P950), (1000, P950), (300_001, P950), (5_000_000, P950),
                                        (8192, sg.Platform(soc_version="ascend950", ub_size=245760, core_num=64)),
                                        (70_000, SMALL_950)])
def test_host_tiling_is_the_hand_worked_one(op, dtype, n, platform):
    t = sg.compute_tiling(n, dtype, platform=platform, op=op)
    want, block_dim, key = rt.arch35_tiling(REF_OP[op], n, dtype, ub=platform.ub_size, cores=platform.core_num)
    assert t.fields == want
    assert (t.block_dim, t.tiling_key, t.workspace_size) == (block_dim, key, 16 * 1024 * 1024)
    assert t.architecture == "arch35" and len(t.tobytes()) == 80


@pytest.mark.parametrize("dtype,words", [
    # activation/fast_gelu_grad/tests/ut/op_host/arch35/test_fast_gelu_grad_tiling.cpp:120-126, 199-205, 278-284
    ("float16", "64 29137058136065 512 1 1 1 512 64 6784 1"),
    ("float32", "64 43980465111041 512 1 1 1 512 64 10240 1"),
])
def test_fast_gelu_grad_struct_bytes_are_the_ut_words(dtype, words):
    t = sg.compute_tiling(64, dtype, platform=sg.Platform(soc_version="ascend950", ub_size=245760, core_num=64),
                          op="fast_gelu_grad")
    assert " ".join(str(w) for w in np.frombuffer(t.tobytes(), dtype="<i8")) == words


def test_default_platform_is_the_950_and_a2_is_refused():
    assert sg.compute_tiling(100, "float16", op="fast_gelu").architecture == "arch35"
    for op in OPS:
        with pytest.raises(ValueError, match=r"ascend910b.*Ascend 950 only"):
            sg.compute_tiling(100, "float32", platform=A2, op=op)
        with pytest.raises(TypeError, match="takes no beta"):
            sg.compute_tiling(100, "float32", 1.5, op=op)
    with pytest.raises(ValueError, match="ub_size"):
        sg.compute_tiling(100, "float16", platform=sg.Platform(soc_version="ascend950", ub_size=4096),
                          op="fast_gelu_grad")

# ---------------------------------------------------------------- bits


def test_fast_gelu_float32_bits():
    x = _f32_inputs(np.random.default_rng(1), 200_000)
    assert_bits_equal(sg.fast_gelu(x), ref_fast_gelu(x), "fast_gelu float32")
    out = np.empty_like(x)
    t = sg.compute_tiling(x.size, "float32", platform=SMALL_950, op="fast_gelu")
    sg.run_tiling(None, x, out, t, platform=SMALL_950)
    assert_bits_equal(out, ref_fast_gelu(x), "fast_gelu float32, small UB")


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_fast_gelu_16bit_exhaustive(dtype):
    x = every16(dtype)
    assert_bits_equal(sg.fast_gelu(x), ref_fast_gelu(x), f"fast_gelu {dtype}, all 2^16")
    assert_bits_equal(sg.fast_gelu(x, platform=SMALL_950), ref_fast_gelu(x), f"fast_gelu {dtype}, small UB")


def test_fast_gelu_backward_float32_bits():
    rng = np.random.default_rng(2)
    x = _f32_inputs(rng, 100_000)
    dy = np.concatenate([rng.standard_normal(x.size - SPECIALS.size).astype(np.float32),
                         np.asarray(SPECIALS, dtype=np.float32)])
    assert_bits_equal(sg.fast_gelu_backward(dy, x), ref_fast_gelu_backward(dy, x), "fast_gelu_backward float32")
    # every special against every special
    sx, sdy = np.meshgrid(np.asarray(SPECIALS, np.float32), np.asarray(SPECIALS, np.float32))
    assert_bits_equal(sg.fast_gelu_backward(sdy, sx, platform=SMALL_950), ref_fast_gelu_backward(sdy, sx),
                      "fast_gelu_backward float32 specials")


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_fast_gelu_backward_16bit_exhaustive_x(dtype):
    """Every x against dy = 1, -3 and random bit patterns (the s'(x) factor is tabulated by x alone)."""
    rng = np.random.default_rng(3)
    x = np.tile(every16(dtype), 3)
    dy = np.concatenate([np.ones(65536), np.full(65536, -3.0)]).astype(DTYPES[dtype])
    dy = np.concatenate([dy, rng.integers(0, 1 << 16, 65536, dtype=np.uint32).astype(np.uint16).view(DTYPES[dtype])])
    assert_bits_equal(sg.fast_gelu_backward(dy, x), ref_fast_gelu_backward(dy, x), f"fast_gelu_backward {dtype}")


def test_upstream_edges():
    """docs/model.md: fast_gelu(-inf) NaN, (+inf) +inf, -0 below the Exp overflow; the backward NaN at ±inf."""
    x = np.array([-np.inf, np.inf, -60.0, 0.0], dtype=np.float32)
    y = sg.fast_gelu(x)
    assert np.isnan(y[0]) and y[1] == np.inf and y[2] == 0 and np.signbit(y[2])
    g = sg.fast_gelu_backward(np.ones(4, np.float32), x)
    assert np.isnan(g[:2]).all() and g[3] == 0.5

# ---------------------------------------------------------------- the public functions' surface


def test_out_views_shapes_and_empty():
    x = np.random.default_rng(4).uniform(-5, 5, (7, 33)).astype(np.float16)
    out = np.zeros((33, 7), np.float16).T
    assert sg.fast_gelu(x[:, ::1], out=out) is out
    assert_bits_equal(out, ref_fast_gelu(x), "out view")
    dy = np.ones_like(x)
    res = sg.fast_gelu_backward(dy, x.T.copy().T)
    assert res.shape == x.shape and res.flags.c_contiguous
    assert_bits_equal(res, ref_fast_gelu_backward(dy, x), "strided x")
    assert sg.fast_gelu(np.empty((0, 3), np.float32)).shape == (0, 3)
    xi = x.copy()
    sg.fast_gelu(xi, out=xi)                      # in place
    assert_bits_equal(xi, ref_fast_gelu(x), "in place")


@pytest.mark.parametrize("call", [
    lambda: sg.fast_gelu([1.0]),
    lambda: sg.fast_gelu(np.ones(3, np.float32), out=np.ones(3, np.float16)),
    lambda: sg.fast_gelu(np.ones(3, np.float32), platform="ascend950"),
    lambda: sg.fast_gelu_backward(np.ones(3, np.float16), np.ones(3, np.float32)),
    lambda: sg.fast_gelu_backward(np.ones(3, np.float32), [1.0, 2.0, 3.0]),
])
def test_bad_input_type_errors(call):
    with pytest.raises(TypeError):
        call()


def test_bad_input_value_errors():
    with pytest.raises(ValueError, match="x.dtype must be one of"):
        sg.fast_gelu(np.ones(3, np.int32))
    with pytest.raises(ValueError, match="same shape"):
        sg.fast_gelu_backward(np.ones(3, np.float32), np.ones(4, np.float32))
    with pytest.raises(ValueError, match="out must have shape"):
        sg.fast_gelu(np.ones(3, np.float32), out=np.ones(4, np.float32))


@pytest.mark.parametrize("platform", [A2, sg.Platform(soc_version="ascend910_93"),
                                      sg.Platform(overflow_mode="saturation")])
def test_a2_platforms_refused_naming_soc_and_reason(platform):
    x = np.ones(4, np.float32)
    for call in (lambda: sg.fast_gelu(x, platform=platform), lambda: sg.fast_gelu_backward(x, x, platform=platform)):
        with pytest.raises(ValueError, match=rf"soc_version {platform.soc_version!r}.*Ascend 950 only.*not public"):
            call()
    # an empty launch asks for no kernel (aclnnFastGelu's phase one returns first): the functional face too,
    # but for an overflow mode the operator does not compute in
    if not platform.saturation:
        assert sg.fast_gelu(x[:0], platform=platform).shape == (0,)
    else:
        with pytest.raises(ValueError, match="overflow_mode"):
            sg.fast_gelu(x[:0], platform=platform)


def test_saturation_refused_naming_overflow_mode():
    x = np.ones(64, np.float32)
    t = sg.compute_tiling(64, "float32", op="fast_gelu")
    with pytest.raises(ValueError, match="overflow_mode"):
        sg.run_tiling(None, x, np.empty_like(x), t, overflow_mode="saturation")

# ---------------------------------------------------------------- generic entry points


def test_validate_run_and_estimate():
    for op in OPS:
        t = sg.compute_tiling(100_000, "bfloat16", op=op)
        report = sg.validate_tiling(t, 100_000, BF16)
        assert report.ok, report
        bad = type(t)(t.op, t.architecture, t.data, t.block_dim, 7, t.workspace_size)
        assert any(f.code == "TILING_KEY_MISMATCH" for f in sg.validate_tiling(bad, 100_000, BF16).findings)
        a2_record = type(t)(t.op, "a2", t.data, t.block_dim, t.tiling_key, t.workspace_size)
        with pytest.raises(ValueError, match="no validator for the a2 kernel.*Ascend 950 only"):
            sg.validate_tiling(a2_record, 100_000, BF16)
        from swishgrad_numba import devicetime
        est = devicetime.estimate(None, 100_000, "float16", op=op)
        assert est.total_us > 0 if hasattr(est, "total_us") else est is not None
        with pytest.raises(ValueError, match="Ascend 950 only"):
            devicetime.estimate(None, 100_000, "float16", op=op, platform=A2)


def test_programs():
    op = get_operator("fast_gelu")
    text = str(op.program("bfloat16"))
    assert "Muls(d, xf, (float)(-1.702));" in text and text.rstrip().endswith("Cast(out, y, CAST_RINT);")
    assert [i for i in F.programs("fast_gelu_grad", "float32").instructions()] == \
        ["Duplicate", "Muls", "Exp", "Adds", "Div", "Adds", "Mul", "Adds", "Mul", "Mul"]
    with pytest.raises(ValueError, match="Ascend 950 only"):
        op.program("float32", A2)

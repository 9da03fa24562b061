"""Mish (swishgrad_numba.ops.mish) on the A2 and the 950, bit for bit against the plain readings of
tests/reference_mish.py; the host tilings against Gelu's template, which both hosts share (docs/model.md,
"Mish")."""
from __future__ import annotations

import numpy as np
import pytest

import swishgrad_numba as sg
from activation_checks import every16
from reference import SPECIALS, assert_bits_equal
from reference_activations import BF16
from reference_mish import mish_a2_f32, mish_arch35_f32, ref_mish, ref_mish_backward, ref_mish_backward_a2
from swishgrad_numba.ops import get_operator

DTYPES = {"float32": np.dtype(np.float32), "float16": np.dtype(np.float16), "bfloat16": BF16}
P950 = sg.ASCEND950_PLATFORM
A2 = sg.REFERENCE_PLATFORM
KERNELS = {"a2": A2, "arch35": P950}
F32 = np.float32


def _f32(rng, n):
    v = rng.uniform(-30, 30, n).astype(F32)
    wide = rng.random(n) < 0.2
    v[wide] = (rng.standard_normal(wide.sum()) * 10.0 ** rng.integers(-44, 39, wide.sum())).astype(F32)
    with np.errstate(over="ignore"):
        edges = np.concatenate([np.float32(c) + np.arange(-20, 20, dtype=F32) * F32(1e-3)
                                for c in (-44.36, 44.36, -88.72, 88.72, -103.9, 0.0)]).astype(F32)
        fixed = np.concatenate([edges, SPECIALS.astype(F32)])
    v[:fixed.size] = fixed
    return v


@pytest.mark.parametrize("dtype", list(DTYPES))
def test_host_tilings_are_gelus_template(dtype):
    gelu, mish = (sg.compute_tiling(100003, dtype, platform=A2, op=op) for op in ("gelu", "mish"))
    assert mish.data.tolist() == gelu.data.tolist() and mish.block_dim == gelu.block_dim
    assert mish.tiling_key == 0 and mish.data.dtype.itemsize == 64
    m950, g950 = (sg.compute_tiling(100003, dtype, platform=P950, op=op) for op in ("mish", "gelu"))
    assert m950.data.tolist() == g950.data.tolist() and m950.tiling_key == g950.tiling_key
    assert m950.tiling_key == {"float32": 7, "float16": 3, "bfloat16": 5}[dtype]
    assert m950.data.dtype.itemsize == 16


@pytest.mark.parametrize("kernel", KERNELS)
def test_float32_bits(kernel):
    x = _f32(np.random.default_rng([41, len(kernel)]), 20011)
    assert_bits_equal(sg.mish(x, platform=KERNELS[kernel]), ref_mish(x, kernel))


@pytest.mark.parametrize("kernel", KERNELS)
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_16_bit_exhaustive(kernel, dtype):
    x = every16(dtype)
    assert_bits_equal(sg.mish(x, platform=KERNELS[kernel]), ref_mish(x, kernel))


def test_950_axpy_roundings():
    x = _f32(np.random.default_rng(2), 20011)
    unfused = sg.Platform(soc_version="ascend950", axpy_rounding="unfused")
    got_u = sg.mish(x, platform=unfused)
    assert_bits_equal(got_u, ref_mish(x, "arch35", "unfused"))
    # unfused, the 950's Axpy is the A2's Muls + Add: the kernels then differ nowhere (their Selects
    # differ at x = 0 only, where both forms give 0.6)
    assert_bits_equal(got_u, ref_mish(x, "a2"))


def test_many_cores_and_tiles_and_out():
    small = {"a2": sg.Platform(soc_version="ascend910b", ub_size=16384, core_num=5),
             "arch35": sg.Platform(soc_version="ascend950", ub_size=16384, core_num=7)}
    x = _f32(np.random.default_rng(3), 30011)
    for kernel, p in small.items():
        out = np.zeros(2 * x.size, F32)[::2]
        assert sg.mish(x, out=out, platform=p) is out
        assert_bits_equal(out, ref_mish(x, kernel))
        assert sg.compute_tiling(x.size, "float32", platform=p, op="mish").block_dim > 1
    y = x.copy()
    assert sg.mish(y, out=y) is y                          # aclnnInplaceMish
    assert_bits_equal(y, ref_mish(x, "a2"))
    assert sg.mish(x.reshape(30011, 1).T).shape == (1, 30011)


def test_specials():
    x = np.array([-np.inf, np.inf, np.nan, 0.0, -0.0, -200.0, 100.0], F32)
    for kernel, p in KERNELS.items():
        got = sg.mish(x, platform=p)
        assert np.isnan(got[0]) and got[1] == np.inf and np.isnan(got[2])      # -inf * 0; inf * 1
        assert got.view(np.uint32)[3:5].tolist() == [0, 0x80000000]             # 0.6 * +-0
        assert got.view(np.uint32)[5] == 0x80000000 and got[6] == 100.0


def test_the_readings_differ_only_by_the_axpy():
    x = _f32(np.random.default_rng(5), 5000)
    assert_bits_equal(mish_arch35_f32(x, "unfused"), mish_a2_f32(x))


def test_a2_saturation_mode():
    sat = sg.Platform(soc_version="ascend910b", overflow_mode="saturation")
    x = np.array([-200.0, 200.0, np.nan], F32)
    got = sg.mish(x, platform=sat)
    assert np.all(np.isfinite(got))
    with pytest.raises(ValueError, match="overflow_mode"):
        sg.mish(x, platform=sg.Platform(soc_version="ascend950", overflow_mode="saturation"))


def test_validator_and_programs():
    import dataclasses

    for p in (A2, P950):
        t = sg.compute_tiling(100003, "bfloat16", platform=p, op="mish")
        assert sg.validate_tiling(t, 100003, "bfloat16").ok
        codes = {f.code for f in sg.validate_tiling(dataclasses.replace(t, tiling_key=9), 100003, "bfloat16").errors}
        assert codes == {"TILING_KEY_MISMATCH"}
    op = get_operator("mish")
    assert "Axpy" in op.program("float32", P950).instructions()
    assert "Axpy" not in op.program("float32", A2).instructions()
    assert op.program("float16", A2).instructions()[-1] == "Cast"

# ---------------------------------------------------------------- MishBackward (MishGrad: the A2's and the 950's)


def _ref_backward(kernel, g, x, axpy="fused"):
    return ref_mish_backward_a2(g, x) if kernel == "a2" else ref_mish_backward(g, x, axpy)


@pytest.mark.parametrize("kernel", KERNELS)
def test_mish_backward_float32_bits(kernel):
    rng = np.random.default_rng(17)
    x, g = _f32(rng, 20011), rng.uniform(-3, 3, 20011).astype(F32)
    g[:6] = np.array([np.inf, -np.inf, np.nan, 0.0, -0.0, 3e38], F32)
    assert_bits_equal(sg.mish_backward(g, x, platform=KERNELS[kernel]), _ref_backward(kernel, g, x))
    if kernel == "arch35":
        unfused = sg.Platform(soc_version="ascend950", axpy_rounding="unfused")
        assert_bits_equal(sg.mish_backward(g, x, platform=unfused), ref_mish_backward(g, x, "unfused"))


@pytest.mark.parametrize("kernel", KERNELS)
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_mish_backward_16_bit_exhaustive(kernel, dtype):
    # every x against a gradient of its own; the A2 also against a handful of fixed gradients (specials too)
    x = every16(dtype)
    g = np.random.default_rng(7).uniform(-3, 3, x.size).astype(DTYPES[dtype])
    p = KERNELS[kernel]
    assert_bits_equal(sg.mish_backward(g, x, platform=p), _ref_backward(kernel, g, x))
    if kernel == "a2":
        for gv in (1.0, -2.5, np.inf, np.nan, -0.0, 1e-7):
            g = np.full(x.size, gv, DTYPES[dtype])
            assert_bits_equal(sg.mish_backward(g, x, platform=p), ref_mish_backward_a2(g, x))


def test_mish_backward_promotes_and_broadcasts_as_the_op_api():
    rng = np.random.default_rng(8)
    x = rng.uniform(-6, 6, (3, 5)).astype(np.float16)
    g = rng.uniform(-2, 2, (5,)).astype(BF16)
    for kernel, p in KERNELS.items():
        got = sg.mish_backward(g, x, platform=p)              # float16 with bfloat16: float32
        assert got.dtype == np.float32 and got.shape == (3, 5)
        want = _ref_backward(kernel, np.broadcast_to(g.astype(F32), (3, 5)), x.astype(F32))
        assert_bits_equal(got, want)
        got = sg.mish_backward(g.astype(np.float16)[None, :], x[:, :1], platform=p)   # (1, 5) with (3, 1)
        assert_bits_equal(got, _ref_backward(kernel, np.broadcast_to(g.astype(np.float16), (3, 5)),
                                             np.broadcast_to(x[:, :1], (3, 5))))
        got = sg.mish_backward(g.astype(F32), x, platform=p)  # float32 with float16: float32
        assert_bits_equal(got, _ref_backward(kernel, np.broadcast_to(g.astype(F32), (3, 5)), x.astype(F32)))
    with pytest.raises(ValueError, match="broadcast"):
        sg.mish_backward(g, x[:, :2])
    with pytest.raises((TypeError, ValueError), match="x.dtype"):
        sg.mish_backward(g, x.astype(np.float64))


def test_mish_backward_host_tilings():
    assert get_operator("mish_grad").default_platform is A2
    t = sg.compute_tiling(100003, "bfloat16", platform=P950, op="mish_grad")
    assert t.tiling_key == 5 and t.workspace_size == 0 and t.data.dtype.itemsize == 16
    assert sg.validate_tiling(t, 100003, "bfloat16").ok
    # the 950 forward and backward agree on t: grad 1 at x where t * t - 1 rounds to 0 gives t
    x = np.array([30.0, 50.0], F32)
    assert sg.mish_backward(np.ones_like(x), x, platform=P950).tolist() == [1.0, 1.0]

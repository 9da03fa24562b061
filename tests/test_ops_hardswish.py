"""Hardswish (950 only) and HardswishBackward (A2 and 950): swishgrad_numba.ops.hardswish, bit for bit
against the plain readings of tests/reference_hardswish.py; the host tilings against the figures worked
by hand from the hosts' sources (docs/model.md, "Hardswish and HardswishBackward")."""
from __future__ import annotations

import numpy as np
import pytest

import swishgrad_numba as sg
from activation_checks import every16
from reference import SPECIALS, assert_bits_equal
from reference_activations import BF16
from reference_hardswish import (hardswish_grad_a2_f32, hardswish_grad_arch35_f32, ref_hardswish,
                                 ref_hardswish_backward, torch_hardswish_f64)
from swishgrad_numba.ops import get_operator
from swishgrad_numba.ops.hardswish import backward as B
from swishgrad_numba.ops.hardswish import forward as F

DTYPES = {"float32": np.dtype(np.float32), "float16": np.dtype(np.float16), "bfloat16": BF16}
P950 = sg.ASCEND950_PLATFORM
A2 = sg.REFERENCE_PLATFORM
KERNELS = {"a2": A2, "arch35": P950}
SMALL_950 = sg.Platform(soc_version="ascend950", ub_size=16384, core_num=7)
SMALL_A2 = sg.Platform(soc_version="ascend910b", ub_size=16384, core_num=5)
F32 = np.float32


def _f32(rng, n):
    """Random float32 of every magnitude, the boundaries -3 and 3 and their neighbours, and the specials."""
    v = rng.uniform(-8, 8, n).astype(F32)
    wide = rng.random(n) < 0.2
    v[wide] = (rng.standard_normal(wide.sum()) * 10.0 ** rng.integers(-44, 39, wide.sum())).astype(F32)
    edges = np.array([-3.0, 3.0, -6.0, 6.0, 0.0], F32)
    near = np.concatenate([np.nextafter(edges, np.inf), np.nextafter(edges, -np.inf), edges])
    with np.errstate(over="ignore"):
        fixed = np.concatenate([near, SPECIALS.astype(F32)])
    v[:fixed.size] = fixed
    return v


# ---------------------------------------------------------------- host tilings


@pytest.mark.parametrize("dtype, ub", [("float32", 10560), ("float16", 7936), ("bfloat16", 7936)])
def test_hardswish_host_tiling_is_the_hand_worked_one(dtype, ub):
    # 253952 // 4 // 6 (float32) or // 8 (16-bit), floored to 32 elements; 100003 over 64 cores
    t = sg.compute_tiling(100003, dtype, platform=P950, op="hardswish")
    assert t.data.tolist() == (100003, 1563, ub)
    assert t.block_dim == 64 and t.tiling_key == F.SCH_MODE[dtype] and t.workspace_size == 0
    assert t.data.dtype.itemsize == 24
    t = sg.compute_tiling(10, dtype, platform=P950, op="hardswish")
    assert t.data.tolist() == (10, 1, ub) and t.block_dim == 10


@pytest.mark.parametrize("dtype, n, ub, key", [
    ("float32", 100000, 7936, 1), ("float32", 1024, 12672, 0), ("float16", 100000, 11520, 3),
    ("float16", 1000, 15872, 2), ("bfloat16", 1025, 11520, 5)])
def test_hardswish_grad_arch35_host_tiling(dtype, n, ub, key):
    # ub / itemsize / bufferNum (8 or 5 float32, 11 or 8 16-bit; double above 1024) floored to 64
    t = sg.compute_tiling(n, dtype, platform=P950, op="hardswish_grad")
    bf = -(-n // 64)
    assert t.data.tolist() == (n, bf, ub) and t.tiling_key == key and t.block_dim == -(-n // bf)


@pytest.mark.parametrize("dtype, key", [("float16", 0), ("float32", 1), ("bfloat16", 2)])
def test_hardswish_grad_a2_host_tiling(dtype, key):
    # (196608 - 1024) // 48 = 4074, floored to 64: 4032, whatever the dtype
    t = sg.compute_tiling(100003, dtype, platform=A2, op="hardswish_grad")
    assert t.data.tolist() == (100003, 2084, 4032) and t.tiling_key == key and t.block_dim == 48


def test_hardswish_refused_on_the_a2():
    x = np.ones(4, F32)
    with pytest.raises(ValueError, match="ascend910b.*HardSwish kernel for the Ascend 950 only"):
        sg.hardswish(x, platform=A2)
    with pytest.raises(ValueError, match="cannot run hardswish"):
        sg.compute_tiling(4, "float32", platform=A2, op="hardswish")
    assert get_operator("hardswish").default_platform is P950
    assert get_operator("hardswish_grad").default_platform is A2

# ---------------------------------------------------------------- bits


def test_hardswish_float32_bits():
    x = _f32(np.random.default_rng(41), 20011)
    assert_bits_equal(sg.hardswish(x), ref_hardswish(x))


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_hardswish_16_bit_exhaustive(dtype):
    x = every16(dtype)
    assert_bits_equal(sg.hardswish(x), ref_hardswish(x))


@pytest.mark.parametrize("kernel", KERNELS)
def test_hardswish_backward_float32_bits(kernel):
    rng = np.random.default_rng([41, len(kernel)])
    x, g = _f32(rng, 20011), _f32(rng, 20011)[::-1].copy()
    assert_bits_equal(sg.hardswish_backward(g, x, platform=KERNELS[kernel]), ref_hardswish_backward(g, x, kernel))


@pytest.mark.parametrize("kernel", KERNELS)
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_hardswish_backward_16_bit_exhaustive(kernel, dtype):
    x = every16(dtype)
    g = np.random.default_rng(7).uniform(-3, 3, x.size).astype(DTYPES[dtype])
    g[:8] = np.array([np.inf, -np.inf, np.nan, 0.0, -0.0, 1.0, 65504 if dtype == "float16" else 1e38, 1e-7],
                     dtype=np.float32).astype(DTYPES[dtype])
    assert_bits_equal(sg.hardswish_backward(g, x, platform=KERNELS[kernel]), ref_hardswish_backward(g, x, kernel))


@pytest.mark.parametrize("op", ["hardswish", "hardswish_grad"])
@pytest.mark.parametrize("dtype", list(DTYPES))
def test_many_cores_and_loops_and_out(op, dtype):
    # small UBs: many cores, many UB loops per core, a tail of each; a non-contiguous out
    rng = np.random.default_rng(3)
    with np.errstate(over="ignore"):
        x = _f32(rng, 30011).astype(DTYPES[dtype])
    g = rng.uniform(-2, 2, x.size).astype(DTYPES[dtype])
    platforms = [SMALL_950] + ([SMALL_A2] if op == "hardswish_grad" else [])
    for p in platforms:
        out = np.zeros(2 * x.size, DTYPES[dtype])[::2]
        if op == "hardswish":
            got, want = sg.hardswish(x, out=out, platform=p), ref_hardswish(x)
        else:
            kernel = "arch35" if p is SMALL_950 else "a2"
            got, want = sg.hardswish_backward(g, x, out=out, platform=p), ref_hardswish_backward(g, x, kernel)
        assert got is out
        assert_bits_equal(out, want)
        t = sg.compute_tiling(x.size, dtype, platform=p, op=op)
        assert t.block_dim > 1 and -(-int(t["blockFactor"]) // int(t["ubFactor"])) > 1


def test_shapes_strides_and_in_place():
    x = _f32(np.random.default_rng(5), 60).reshape(3, 4, 5)
    want = ref_hardswish(x)
    assert_bits_equal(sg.hardswish(x.transpose(2, 0, 1)), want.transpose(2, 0, 1))
    y = x.copy()
    assert sg.hardswish(y, out=y) is y             # aclnnInplaceHardswish
    assert_bits_equal(y, want)
    g = np.full_like(x, 1.5)
    assert sg.hardswish_backward(g, x).shape == (3, 4, 5)
    assert sg.hardswish(x[:0]).shape == (0, 4, 5)

# ---------------------------------------------------------------- quirks (docs/model.md)


def test_quirks():
    # the 950 HardSwish clamps x to >= -3 before its multiply: -inf gives -0 (-3 * 0), torch NaN
    x = np.array([-np.inf, -4.0, np.inf, np.nan, -0.0], F32)
    got = sg.hardswish(x)
    assert got.view(np.uint32)[0] == 0x80000000 and np.isnan(torch_hardswish_f64(-np.inf))
    assert got[2] == np.inf and np.isnan(got[3]) and got.view(np.uint32)[4] == 0x80000000
    # HardswishBackward at +-3: the 950's masks are inclusive, the A2's strict
    g = np.full(4, 2.0, F32)
    x = np.array([-3.0, 3.0, np.nan, -5.0], F32)
    assert sg.hardswish_backward(g, x, platform=P950).tolist() == [-1.0, 3.0, 2.0, 0.0]
    assert sg.hardswish_backward(g, x, platform=A2).tolist() == [0.0, 2.0, 2.0, 0.0]
    # an infinite grad where the slope is 0 gives NaN (they multiply), on both kernels
    for p in (A2, P950):
        assert np.isnan(sg.hardswish_backward(np.array([np.inf], F32), np.array([-5.0], F32), platform=p)[0])
    # both kernels' slope constant: (float)(1.0 / 3.0) is 0.333333343f
    assert F32(1.0 / 3.0) == F32(0.333333343)


def test_references_differ_where_the_kernels_do():
    # the two readings agree away from +-3 (a check on the references themselves)
    x = _f32(np.random.default_rng(9), 5000)
    g = np.ones_like(x)
    a, b = hardswish_grad_a2_f32(g, x), hardswish_grad_arch35_f32(g, x)
    differ = a.view(np.uint32) != b.view(np.uint32)
    assert set(np.abs(x[differ]).tolist()) == {3.0}


def test_a2_saturation_mode():
    # the A2 in the saturation mode: an infinite result saturates to FLT_MAX, a NaN one to +0
    sat = sg.Platform(soc_version="ascend910b", overflow_mode="saturation")
    g = np.array([3e38, np.inf, 1.0, np.nan], F32)
    x = np.array([2.9, -5.0, np.nan, 0.0], F32)
    got = sg.hardswish_backward(g, x, platform=sat)
    fmax = np.finfo(F32).max
    assert got.tolist() == [fmax, 0.0, 1.0, 0.0]


def test_read_only_inputs():
    # a read-only x beside a writable grad: one array type for the jitted walk (it failed to compile)
    x = _f32(np.random.default_rng(4), 100)
    x.flags.writeable = False
    g = np.ones_like(x)
    for kernel, p in KERNELS.items():
        assert_bits_equal(sg.hardswish_backward(g, x, platform=p), ref_hardswish_backward(g, x, kernel))


def test_bad_input():
    x = np.ones(4, F32)
    with pytest.raises(TypeError, match="grad_output and x must have the same dtype"):
        sg.hardswish_backward(x.astype(np.float16), x)
    with pytest.raises(ValueError, match="same shape"):
        sg.hardswish_backward(x[:3], x)
    with pytest.raises((TypeError, ValueError), match="x.dtype"):
        sg.hardswish(x.astype(np.int32))

# ---------------------------------------------------------------- validator


@pytest.mark.parametrize("op, platform", [("hardswish", P950), ("hardswish_grad", P950), ("hardswish_grad", A2)])
def test_validator(op, platform):
    import dataclasses

    t = sg.compute_tiling(100003, "float16", platform=platform, op=op)
    assert sg.validate_tiling(t, 100003, "float16").ok
    data = t.data.copy()
    data["blockFactor"] -= 1
    codes = {f.code for f in sg.validate_tiling(dataclasses.replace(t, data=data), 100003, "float16").errors}
    assert "COVERAGE_GAP" in codes
    codes = {f.code for f in sg.validate_tiling(dataclasses.replace(t, tiling_key=9), 100003, "float16").errors}
    assert codes == {"TILING_KEY_MISMATCH"}
    data = t.data.copy()
    data["ubFactor"] *= 4
    codes = {f.code for f in sg.validate_tiling(dataclasses.replace(t, data=data), 100003, "float16").errors}
    assert "UB_OVERFLOW" in codes

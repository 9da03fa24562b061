"""Softplus and SoftplusBackward (swishgrad_numba.ops.softplus, .softplus_grad, .softplus_api), bit for
bit against the plain references of tests/reference_activations_tier2.py; the host tilings against
tests/reference_activation_tiling_tier2.py and docs/activation_tiling.md's worked figures; Softplus
refused on the A2, which has no public SoftplusV2 kernel."""
from __future__ import annotations

import numpy as np
import pytest

import reference_activation_tiling_tier2 as rt2
import swishgrad_numba as sg
from activation_checks import every16
from program_interpreter import interpret
from reference import SPECIALS, assert_bits_equal
from reference_activations import BF16
from reference_activations_tier2 import ref_softplus, ref_softplus_backward
from swishgrad_numba.ops import get_operator
from swishgrad_numba.ops import softplus as S
from swishgrad_numba.ops import softplus_grad as G
from swishgrad_numba.ops import softplus_grad_arch35 as G35

DTYPES = {"float32": np.dtype(np.float32), "float16": np.dtype(np.float16), "bfloat16": BF16}
P950 = sg.ASCEND950_PLATFORM
A2 = sg.REFERENCE_PLATFORM
KERNELS = {"a2": A2, "arch35": P950}
#: A small 950 / A2: many cores and tiles per core on small tensors.
SMALL_950 = sg.Platform(soc_version="ascend950", ub_size=16384, core_num=7)
SMALL_A2 = sg.Platform(soc_version="ascend910b", ub_size=16384, core_num=5)
#: (beta, threshold): the defaults, ordinary values, and the edges: beta 0, +-2**-23 (invBeta +inf),
#: negative, huge, inf, NaN; threshold 0, negative, inf, NaN.
ATTRS = [(1.0, 20.0), (0.5, 3.0), (2.0, 0.0), (0.0, 20.0), (0.0, -1.0), (2.0 ** -23, 20.0), (-2.0 ** -23, 20.0),
         (-1.0, 0.0), (-3.0, 20.0), (1e30, 20.0), (np.inf, 20.0), (np.nan, 20.0), (1.0, -5.0), (1.0, np.inf),
         (1.0, np.nan)]


def _f32_inputs(rng, n):
    """Random float32 over the interesting range, random bit patterns, the edges (1 + e == 1 near -16.6,
    Exp's overflow near 88.7, the threshold 20) and the specials."""
    edges = np.concatenate([np.float32(c) + np.arange(-40, 40, dtype=np.float32) * np.float32(1e-3)
                            for c in (-16.6, -88.72, 88.72, 20.0, -103.9)])
    parts = [rng.uniform(-30, 30, n), rng.integers(0, 1 << 32, n, dtype=np.uint64).astype(np.uint32).view(np.float32),
             edges, SPECIALS]
    return np.concatenate([np.asarray(p).astype(np.float32) for p in parts])

# ---------------------------------------------------------------- host tilings


@pytest.mark.parametrize("dtype", list(DTYPES))
@pytest.mark.parametrize("n,platform", [(1, P950), (511, P950), (100_000, P950), (3_000_001, P950),
                                        (70_001, SMALL_950), (700, sg.Platform(soc_version="ascend950",
                                                                               ub_size=262144, core_num=3))])
def test_softplus_host_tiling_is_the_hand_worked_one(dtype, n, platform):
    b = DTYPES[dtype].itemsize
    t = sg.compute_tiling(n, dtype, platform=platform, op="softplus")
    block_factor, block_dim = rt2.softplus_v2_split(n, b, platform.core_num)
    tile = rt2.softplus_v2_tile_length(platform.ub_size, b)
    assert t.fields == {"totalLength": n, "blockFactor": block_factor, "tileLength": tile, "beta": 1.0,
                        "threshold": 20.0, "invBeta": 1.0}
    assert (t.block_dim, t.tiling_key, t.workspace_size) == (block_dim, S.DTYPE_TEMPLATE[dtype], 0)
    assert len(t.tobytes()) == 40
    # what the kernel asks of InitBuffer, with the Select reserve, fits the UB
    assert rt2.softplus_v2_kernel_ub_bytes(tile, b) + 8192 <= platform.ub_size


def test_softplus_tile_lengths_are_the_documented_ones():
    # docs/activation_tiling.md: 10,112 / 12,096 at U = 253,952; 10,432 / 12,480 at 262,144
    assert [S.tile_length(b, u) for u in (253952, 262144) for b in (4, 2)] == [10112, 12096, 10432, 12480]


def test_softplus_inv_beta_is_safe_inv_beta():
    assert S.inv_beta(0.0) == np.inf and S.inv_beta(-2.0 ** -23) == np.inf and S.inv_beta(2.0 ** -23) == np.inf
    assert S.inv_beta(np.nextafter(np.float32(2.0 ** -23), np.float32(1))) < np.inf
    assert S.inv_beta(-4.0) == np.float32(-0.25)
    assert np.isnan(S.inv_beta(np.nan))


@pytest.mark.parametrize("dtype,tile", [("float32", 3712), ("float16", 4096), ("bfloat16", 4096)])
def test_softplus_grad_a2_host_tiling(dtype, tile):
    """docs/activation_tiling.md: tileDataNum 3,712 (float32) / 4,096 (16-bit) at U = 196,608; SwishGrad's
    split on 512-byte blocks; the Compute lengths 256-byte aligned."""
    b = DTYPES[dtype].itemsize
    for n in (1, 1000, tile, tile + 1, 1_000_003):
        t = sg.compute_tiling(n, dtype, platform=A2, op="softplus_grad")
        f = t.fields
        assert f["tileDataNum"] == tile and f["typeLength"] == b and t.tiling_key == 0
        blocks = -(-n * b // 512)
        assert t.block_dim == (1 if tile >= n else min(48, blocks))
        assert f["bigTailDataNum"] <= tile and f["smallTailDataNum"] <= tile
        assert f["tailbigprocessDataNum_computes"] == -(-f["bigTailDataNum"] * b // 256) * 256 // b
        assert len(t.tobytes()) == 112
        # the plan with the uint8 mask fits
        assert (6 * b + 6 * 4 + 1) * tile <= A2.ub_size


def test_softplus_grad_arch35_host_tiling():
    per_buf = (P950.ub_size // 4) & ~31
    elems = per_buf // 4
    t = sg.compute_tiling(elems * 70 + 5, "float16", platform=P950, op="softplus_grad")
    d = t.data
    assert int(d["per_buf_bytes"]) == per_buf and int(d["rank"]) == 1 and t.tiling_key == 0
    assert np.asarray(d["split"]).tolist() == (3, elems, 71, 5)          # axis 0 moved right by 4 - 1
    assert np.asarray(d["multicore"]).tolist() == (64, 71, 1, 7)
    assert t.block_dim == 64
    dims, split, multi, _ = G35.arch35_split((1, 6, 1, 40000), P950.ub_size, 64)
    assert dims == [6, 40000] and split == (1, elems, 3, 40000 - 2 * elems) and multi == (18, 18, 1, 0)
    with pytest.raises(ValueError, match="ub_size"):
        G35.arch35_split((3, 300000), 64, 8)


def test_softplus_refused_on_the_a2():
    with pytest.raises(ValueError, match=r"ascend910b.*Ascend 950 only"):
        sg.softplus(np.ones(3, np.float32), platform=A2)
    with pytest.raises(ValueError, match=r"ascend910b.*Ascend 950 only"):
        sg.compute_tiling(100, "float32", platform=A2, op="softplus")
    assert get_operator("softplus").default_platform is P950
    assert get_operator("softplus_grad").default_platform is A2

# ---------------------------------------------------------------- bits


@pytest.mark.parametrize("beta,threshold", ATTRS)
def test_softplus_float32_bits(beta, threshold):
    x = _f32_inputs(np.random.default_rng(11), 20_000)
    assert_bits_equal(sg.softplus(x, beta, threshold), ref_softplus(x, beta, threshold), f"softplus {beta} {threshold}")


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("beta,threshold", [(1.0, 20.0), (0.25, 1.0), (-1.0, 0.0), (0.0, 20.0), (8.0, 20.0)])
def test_softplus_16_bit_exhaustive(dtype, beta, threshold):
    x = every16(dtype)
    assert_bits_equal(sg.softplus(x, beta, threshold), ref_softplus(x, beta, threshold), f"softplus {dtype}")


@pytest.mark.parametrize("kernel", list(KERNELS))
@pytest.mark.parametrize("beta,threshold", ATTRS)
def test_softplus_backward_float32_bits(kernel, beta, threshold):
    rng = np.random.default_rng(12)
    x = _f32_inputs(rng, 20_000)
    dy = np.concatenate([rng.uniform(-4, 4, x.size - SPECIALS.size), SPECIALS]).astype(np.float32)
    got = sg.softplus_backward(dy, x, beta, threshold, platform=KERNELS[kernel])
    assert_bits_equal(got, ref_softplus_backward(dy, x, beta, threshold, kernel), f"{kernel} {beta} {threshold}")


@pytest.mark.parametrize("kernel", list(KERNELS))
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("beta,threshold", [(1.0, 20.0), (-2.0, 0.0)])
def test_softplus_backward_16_bit_exhaustive(kernel, dtype, beta, threshold):
    """Every 16-bit x, each with a random dy, and every dy against a fixed x."""
    dt = DTYPES[dtype]
    x = every16(dtype)
    dy = np.random.default_rng(13).uniform(-8, 8, x.size).astype(np.float32).astype(dt)
    p = KERNELS[kernel]
    for a, b in ((dy, x), (x, np.full_like(x, dt.type(-1.5)))):
        assert_bits_equal(sg.softplus_backward(a, b, beta, threshold, platform=p),
                          ref_softplus_backward(a, b, beta, threshold, kernel), f"{kernel} {dtype}")


@pytest.mark.parametrize("op", ["softplus", "softplus_backward"])
@pytest.mark.parametrize("dtype", list(DTYPES))
def test_many_cores_and_tiles_and_out(op, dtype):
    """Small UBs: many cores and tiles per core; ``out=`` contiguous and strided."""
    dt = DTYPES[dtype]
    rng = np.random.default_rng(14)
    x = rng.uniform(-25, 25, 100_003).astype(np.float32).astype(dt)
    dy = rng.uniform(-2, 2, x.size).astype(np.float32).astype(dt)
    plats = [SMALL_950] if op == "softplus" else [SMALL_950, SMALL_A2]
    for p in plats:
        if op == "softplus":
            f, want = (lambda **kw: sg.softplus(x, 0.75, 4.0, platform=p, **kw)), ref_softplus(x, 0.75, 4.0)
        else:
            kern = "arch35" if p is SMALL_950 else "a2"
            f = lambda **kw: sg.softplus_backward(dy, x, 0.75, 4.0, platform=p, **kw)   # noqa: E731
            want = ref_softplus_backward(dy, x, 0.75, 4.0, kern)
        assert_bits_equal(f(), want, f"{op} {p.soc_version}")
        out = np.empty((2, x.size), dt)[:, ::1][0]
        assert f(out=out) is out
        assert_bits_equal(out, want)
        strided = np.empty(2 * x.size, dt)[::2]
        assert_bits_equal(f(out=strided), want)


def test_shapes_are_kept():
    x = np.linspace(-30, 30, 24, dtype=np.float32).reshape(2, 3, 4)
    assert sg.softplus(x).shape == (2, 3, 4)
    assert sg.softplus_backward(x, x).shape == (2, 3, 4)
    assert sg.softplus(np.empty((0, 3), np.float32)).shape == (0, 3)


def test_quirks():
    # beta 0: invBeta +inf, ln 2 * inf = +inf for threshold >= 0; beta x = 0 > -1 takes x with threshold < 0
    x = np.array([-3.0, 0.0, 5.0], np.float32)
    assert (sg.softplus(x, 0.0) == np.inf).all()
    assert_bits_equal(sg.softplus(x, 0.0, -1.0), x)
    # 1 + e == 1: y is e itself, not 0
    assert sg.softplus(np.float32([-30.0]))[0] == np.float32(np.exp(np.float32(-30.0)))
    # x = threshold is not above it: log1p branch; NaN stays NaN
    assert sg.softplus(np.float32([10.0]), 1.0, 10.0)[0] == np.float32(10.0000454)
    assert np.isnan(sg.softplus(np.float32([np.nan]))[0])
    # the 950's (t1 - t1) + threshold: NaN at +-inf, no visible effect
    g = sg.softplus_backward(np.float32([2.0, 2.0]), np.float32([np.inf, -np.inf]), platform=P950)
    assert g.tolist() == [2.0, 0.0]


def test_a2_saturation_mode_is_the_interpreted_program():
    sat = sg.Platform(soc_version="ascend910b", overflow_mode="saturation")
    x = _f32_inputs(np.random.default_rng(15), 2000)
    dy = np.full_like(x, 3e38)
    got = sg.softplus_backward(dy, x, 1.0, 20.0, platform=sat)
    want = interpret(G.programs("a2", "float32"), {"dy": dy, "x": x}, {"beta": 1.0, "threshold": 20.0},
                     saturation=True)
    assert_bits_equal(got, want)
    with pytest.raises(ValueError, match="overflow_mode"):
        sg.softplus(x, platform=sg.Platform(soc_version="ascend950", overflow_mode="saturation"))


@pytest.mark.parametrize("dy_dtype,x_dtype,result", [
    (BF16, np.float64, np.float64), (np.float16, BF16, np.float32), (np.float32, np.float16, np.float32),
    (np.float64, np.float64, np.float64), (np.float16, np.int32, np.float16), (BF16, np.bool_, BF16),
    (np.float32, np.int64, np.float32), (np.float16, np.uint8, np.float16)])
@pytest.mark.parametrize("kernel", ["a2", "arch35"])
def test_softplus_backward_casts_as_the_op_api(dy_dtype, x_dtype, result, kernel):
    """Mixed dtypes, float64 and an integer or bool x: both inputs Cast to float32, the float32 kernel, the
    result Cast to the promoted dtype (aclnnSoftplusBackward's op_api; issue 40: these were refused)."""
    rng = np.random.default_rng(3)
    x = (rng.integers(0, 2, 300).astype(bool) if x_dtype == np.bool_ else
         rng.uniform(-40, 40, 300).astype(x_dtype))
    dy = rng.uniform(-3, 3, 300).astype(dy_dtype)
    platform = sg.ASCEND950_PLATFORM if kernel == "arch35" else None
    want = ref_softplus_backward(dy.astype(np.float32), x.astype(np.float32), 0.5, 7.0, kernel).astype(result)
    assert_bits_equal(sg.softplus_backward(dy, x, 0.5, 7.0, platform=platform), want)
    out = np.zeros(600, result)[::2]
    assert sg.softplus_backward(dy, x, 0.5, 7.0, out=out, platform=platform) is out
    assert_bits_equal(out, want)


def test_bad_input():
    x = np.ones(4, np.float32)
    with pytest.raises(TypeError, match="beta must be a real number"):
        sg.softplus(x, 1j)
    with pytest.raises(TypeError, match="threshold must be a real number"):
        sg.softplus_backward(x, x, 1.0, "20")
    with pytest.raises(ValueError, match="x.dtype must be one of"):
        sg.softplus(np.ones(4, np.float64))
    with pytest.raises(ValueError, match="grad_output.dtype must be one of"):
        sg.softplus_backward(x.astype(np.int32), x)
    with pytest.raises(ValueError, match="x.dtype must be one of"):
        sg.softplus_backward(x, x.astype(np.complex64))
    with pytest.raises(ValueError, match="same shape"):
        sg.softplus_backward(x, np.ones(5, np.float64))
    with pytest.raises(TypeError, match="out must have dtype float64"):
        sg.softplus_backward(x, x.astype(np.float64), out=np.empty(4, np.float32))
    with pytest.raises(ValueError, match="same shape"):
        sg.softplus_backward(x, np.ones(5, np.float32))
    with pytest.raises(ValueError, match="out"):
        sg.softplus(x, out=np.empty(3, np.float32))
    with pytest.raises(TypeError, match="platform must be a Platform"):
        sg.softplus(x, platform="ascend950")

# ---------------------------------------------------------------- the validator


def _with(tiling, **changes):
    data = np.frombuffer(bytearray(tiling.tobytes()), dtype=tiling.data.dtype).copy()[0:1].reshape(())
    for name, value in changes.items():
        data[name] = value
    return type(tiling)(tiling.op, tiling.architecture, data[()], tiling.block_dim, tiling.tiling_key,
                        tiling.workspace_size)


def _codes(report):
    return {f.code for f in report.findings if f.severity == "error"}


def test_validator_softplus_arch35():
    t = sg.compute_tiling(100_000, "float16", op="softplus")
    assert sg.validate_tiling(t, 100_000, "float16").ok
    assert "COVERAGE_GAP" in _codes(sg.validate_tiling(_with(t, totalLength=99_000), 100_000, "float16"))
    assert "OVERRUN_BEYOND_PADDING" in _codes(sg.validate_tiling(t, 99_000, "float16"))
    assert "FIELD_RANGE" in _codes(sg.validate_tiling(_with(t, tileLength=100), 100_000, "float16"))
    assert "UB_OVERFLOW" in _codes(sg.validate_tiling(_with(t, tileLength=64 * 400), 100_000, "float16"))


def test_validator_softplus_grad_a2_mask_and_overrun():
    n = 128 * 1000                       # whole 512-byte blocks: no overrun
    t = sg.compute_tiling(n, "float32", op="softplus_grad")
    assert sg.validate_tiling(t, n, "float32").ok
    # the Compute length must be the 256-byte aligned count the mask and buffers are sized by
    bad = _with(t, tailbigprocessDataNum_computes=int(t["tailbigprocessDataNum_computes"]) + 64)
    assert "FIELD_RANGE" in _codes(sg.validate_tiling(bad, n, "float32"))
    # the UB plan holds the uint8 mask: a tile whose plan with it exceeds the UB is refused
    rep = sg.validate_tiling(_with(t, tileDataNum=4032, bigTailDataNum=4032, smallTailDataNum=4032,
                                   bigprocessDataNum_computes=4032, smallprocessDataNum_computes=4032,
                                   tailbigprocessDataNum_computes=4032, tailsmallprocessDataNum_computes=4032),
                             n, "float32")
    assert "UB_OVERFLOW" in _codes(rep)
    # a 6-element tensor: the kernel copies one 512-byte block, past the 32-byte padding (upstream's hazard)
    assert "OVERRUN_BEYOND_PADDING" in _codes(sg.validate_tiling(sg.compute_tiling(6, "float32", op="softplus_grad"),
                                                                 6, "float32"))


def test_validator_softplus_grad_arch35():
    t = sg.compute_tiling(300_001, "bfloat16", platform=P950, op="softplus_grad")
    assert sg.validate_tiling(t, 300_001, "bfloat16", platform=P950).ok
    assert "FIELD_RANGE" in _codes(sg.validate_tiling(t, 300_002, "bfloat16", platform=P950))


def test_programs_narrow_as_the_kernels_do():
    """SoftplusV2's 16-bit results are narrowed ties away from zero (softplus_v2.h:322), SoftplusV2Grad's
    to nearest even; the 950 forward has no A2 program."""
    assert str(S.programs("bfloat16").body[-1]) == "Cast(out, r, CAST_ROUND);"
    for arch in ("a2", "arch35"):
        assert str(G.programs(arch, "float16").body[-1]) == "Cast(out, r, CAST_RINT);"
    assert get_operator("softplus").kernels["arch35"].narrowing == "CAST_ROUND"
    with pytest.raises(ValueError, match="Ascend 950 only"):
        get_operator("softplus").program("float32", A2)

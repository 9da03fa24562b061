"""The Swish/Silu forward (swishgrad_numba.ops.swish; the faces generated),
bit for bit against the plain reference in tests/reference_family.py."""
from __future__ import annotations

import struct

import ml_dtypes
import numpy as np
import pytest
from numba import njit

import swishgrad_numba as sg
from reference import SPECIALS, assert_bits_equal, random_inputs
from reference_family import dag_950, narrow, ref_swish, ref_swish_f32
from swishgrad_numba.casts import f32_to_bf16_bits_round, f32_to_f16_bits_round
from swishgrad_numba.ops import OPERATORS, OpTiling, get_operator
from swishgrad_numba.ops import swish as S

BF16 = np.dtype(ml_dtypes.bfloat16)
A2 = sg.REFERENCE_PLATFORM
P950 = sg.ASCEND950_PLATFORM
PLATFORMS = {"a2": A2, "arch35": P950}
DTYPES = {"float32": np.dtype(np.float32), "float16": np.dtype(np.float16), "bfloat16": BF16}

# The 950's tolerance edges (|beta - b| <= 2^-23 in float32).
EPS = 2.0 ** -23
NEAR_NEG_ONE = [-1.0 - EPS, -(1.0 - 2.0 ** -24), -(1.0 - EPS)]
NOT_NEG_ONE = [-1.0 - 2 * EPS, -(1.0 - 3 * 2.0 ** -24)]
NEAR_ZERO = [EPS, -EPS, 1e-30, -1e-45, 0.0, -0.0]
NOT_ZERO = [float(np.nextafter(np.float32(EPS), np.float32(1))), -float(np.nextafter(np.float32(EPS), np.float32(1)))]
BETAS = [1.0, 1.1, -1.0, -2.5, 0.0, 1e-30, 1e30, 3.4e38, np.inf, -np.inf, np.nan] + NEAR_NEG_ONE + NOT_NEG_ONE \
    + NEAR_ZERO[:2] + NOT_ZERO


# ---------------------------------------------------------------- CAST_ROUND


@njit(cache=True)
def _round_f16(a):
    out = np.empty(a.size, dtype=np.uint16)
    for i in range(a.size):
        out[i] = f32_to_f16_bits_round(a[i])
    return out


@njit(cache=True)
def _round_bf16(a):
    out = np.empty(a.size, dtype=np.uint16)
    for i in range(a.size):
        out[i] = f32_to_bf16_bits_round(a[i])
    return out


def _cast_inputs(rng):
    """Every float32 high half with a few low halves (ties, near-ties, random),
    the exact midpoints between neighbouring float16 values, and specials."""
    high = np.arange(1 << 16, dtype=np.uint32) << 16
    lows = np.array([0, 1, 0x0FFF, 0x1000, 0x1001, 0x7FFF, 0x8000, 0x8001, 0xFFFF], dtype=np.uint32)
    u = (high[:, None] | lows[None, :]).reshape(-1)
    u = np.concatenate([u, rng.integers(0, 1 << 32, 200_000, dtype=np.uint64).astype(np.uint32)])
    h = np.arange(0x7C00, dtype=np.uint16).view(np.float16).astype(np.float64)
    mid = ((h[:-1] + h[1:]) / 2).astype(np.float32)          # exact: 12 significant bits
    return np.concatenate([u.view(np.float32), mid, -mid, SPECIALS.astype(np.float32),
                           np.float32([65504, 65519.996, 65520, 65536, 2.0 ** -25, 2.0 ** -26, 3 * 2.0 ** -26])])


def test_cast_round_float16_bit_exact():
    x = _cast_inputs(np.random.default_rng(1))
    assert_bits_equal(_round_f16(x).view(np.float16), narrow(x, np.float16, ties_away=True))


def test_cast_round_bfloat16_bit_exact():
    x = _cast_inputs(np.random.default_rng(2))
    assert_bits_equal(_round_bf16(x).view(BF16), narrow(x, BF16, ties_away=True))


def test_cast_round_differs_from_rint_on_ties():
    # The Ascend C Cast page's example: 0.5 + 2^-12 -> 0.5 + 2^-11 under CAST_ROUND, 0.5 under CAST_RINT.
    x = np.float32([0.5 + 2.0 ** -12, -(0.5 + 2.0 ** -12)])
    assert _round_f16(x).view(np.float16).tolist() == [0.5 + 2.0 ** -11, -(0.5 + 2.0 ** -11)]
    assert x.astype(np.float16).tolist() == [0.5, -0.5]


# ---------------------------------------------------------------- the 950's DAG choice


@pytest.mark.parametrize("beta", BETAS + NEAR_ZERO)
def test_dag_choice(beta):
    attr = S.arch35_attr(np.float32(beta))
    assert {S.ATTR_NEG_ONE: "neg_one", S.ATTR_ZERO: "zero", S.ATTR_OTHER: "other"}[attr] == dag_950(beta)


def test_dag_choice_by_hand():
    assert S.arch35_dag(np.float32(-np.inf)).name == "SwishNegOne"
    assert S.arch35_dag(np.float32(np.inf)).name == "SwishZero"
    assert S.arch35_dag(np.float32(np.nan)).name == "SwishOther"
    for b in NEAR_NEG_ONE:
        assert S.arch35_dag(np.float32(b)).name == "SwishNegOne", b
    for b in NOT_NEG_ONE + NOT_ZERO + [1.0]:
        assert S.arch35_dag(np.float32(b)).name == "SwishOther", b
    for b in NEAR_ZERO:
        assert S.arch35_dag(np.float32(b)).name == "SwishZero", b
    # The A2 host classifies with exact comparisons (only its tiling key sees it).
    assert [S.a2_attr(np.float32(b)) for b in (-1.0, -(1 - EPS), 0.0, -0.0, EPS, np.nan)] == [1, 3, 2, 2, 3, 3]


# ---------------------------------------------------------------- results, bit for bit


def _x(dtype, n=4000, seed=0):
    rng = np.random.default_rng(seed)
    _, x = random_inputs(rng, n, dtype)
    big = np.float32([1e9, -1e9, 3e38, -3e38, 60000, -60000, 100, -100])
    with np.errstate(over="ignore"):
        return np.concatenate([x, big.astype(DTYPES[dtype]), SPECIALS.astype(np.float32).astype(DTYPES[dtype])])


@pytest.mark.parametrize("arch", ["a2", "arch35"])
@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
def test_swish_bits(arch, dtype):
    x = _x(dtype)
    for beta in BETAS:
        if dtype == "bfloat16" and arch == "a2":
            platform = A2      # ascend910b accepts bfloat16
        else:
            platform = PLATFORMS[arch]
        assert_bits_equal(sg.swish(x, beta, platform=platform), ref_swish(x, beta, arch),
                          f"({arch}, {dtype}, beta={beta})")


@pytest.mark.parametrize("arch", ["a2", "arch35"])
def test_silu_is_swish_beta_one(arch):
    x = _x("float32", seed=3)
    assert_bits_equal(sg.silu(x, platform=PLATFORMS[arch]), ref_swish(x, 1.0, arch))


def test_950_dags_differ_from_the_a2_sequence():
    """The tests above have teeth: where the 950 picks NegOne or Zero, its
    results are not those of the general sequence."""
    x = np.float32([1e9, -3.0, 30.0, 80.0, 1e4])
    for beta in (1e-8, np.inf):
        y = sg.swish(x, beta, platform=P950)
        assert_bits_equal(y, x * np.float32(0.5))
        assert not np.array_equal(y, ref_swish_f32(x, beta, "a2"))
    beta = -(1.0 - 2.0 ** -24)
    xs = np.linspace(-20, 20, 4001, dtype=np.float32)
    y = sg.swish(xs, beta, platform=P950)
    assert_bits_equal(y, ref_swish_f32(xs, beta, "neg_one"))
    assert not np.array_equal(y, ref_swish_f32(xs, beta, "other"))


# ---------------------------------------------------------------- exhaustive 16-bit tables

_ALL16 = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("arch, beta", [("a2", 1.0), ("a2", -1.7), ("arch35", 1.0), ("arch35", -1.7),
                                        ("arch35", -1.0), ("arch35", 0.0)])
def test_exhaustive_16bit(dtype, arch, beta):
    x = _ALL16.view(DTYPES[dtype])
    assert_bits_equal(sg.swish(x, beta, platform=PLATFORMS[arch]), ref_swish(x, beta, arch),
                      f"({arch}, {dtype}, beta={beta})")


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_a2_narrows_with_cast_round(dtype):
    """Over all 65,536 inputs the A2's CAST_ROUND and a CAST_RINT narrowing differ somewhere."""
    x = _ALL16.view(DTYPES[dtype])
    y32 = ref_swish_f32(x.astype(np.float32), 1.0, "a2")
    assert not np.array_equal(narrow(y32, DTYPES[dtype], True).view(np.uint16),
                              narrow(y32, DTYPES[dtype], False).view(np.uint16))


# ---------------------------------------------------------------- walk: any tiling, any layout


@pytest.mark.parametrize("dtype", ["float32", "float16"])
@pytest.mark.parametrize("platform", [sg.Platform(ub_size=2048, core_num=5),
                                      sg.Platform(soc_version="ascend950", ub_size=4096, core_num=7)],
                         ids=["a2-small", "950-small"])
def test_many_cores_and_passes(dtype, platform):
    x = _x(dtype, n=50_001, seed=5)
    arch = platform.architecture
    assert_bits_equal(sg.swish(x, 1.3, platform=platform), ref_swish(x, 1.3, arch))


@pytest.mark.parametrize("arch", ["a2", "arch35"])
def test_reference_platforms_many_cores(arch):
    # The reference platforms' launch plans put several cores in one piece
    # (5003 elements: 5 blocks on the 950); every core of a piece is walked.
    for n in (5003, 200_003):
        x = _x("float32", n=n, seed=11)
        assert_bits_equal(sg.swish(x, 1.7, platform=PLATFORMS[arch]), ref_swish(x, 1.7, arch))


def test_strided_and_out():
    x = _x("float32", n=3000, seed=7).reshape(-1, 2)
    view = x[:, ::-1].T
    out = np.zeros((view.shape[1], view.shape[0]), dtype=np.float32).T
    res = sg.swish(view, 0.7, out=out)
    assert res is out
    assert_bits_equal(out, ref_swish(np.ascontiguousarray(view), 0.7, "a2"))
    scalar = np.array(-2.5, dtype=np.float32)
    assert_bits_equal(sg.swish(scalar, 1.1), ref_swish(scalar.reshape(1), 1.1, "a2").reshape(()))
    z = np.zeros((0, 3), dtype=np.float16)
    assert sg.silu(z).shape == (0, 3)


# ---------------------------------------------------------------- host tilings, worked by hand


def test_a2_tiling_by_hand():
    # float32, 2^20 elements: tileBlockNum = (196608/32/2)/2 = 1536 blocks, tileDataNum
    # 12288; 131072 blocks on 48 cores: 2730 each, 32 cores one more.
    t = sg.compute_tiling(1 << 20, "float32", 2.0, op="swish")
    assert isinstance(t, OpTiling) and t.architecture == "a2"
    assert t.as_dict() == {"smallCoreDataNum": 21840, "bigCoreDataNum": 21848, "finalBigTileNum": 2,
                           "finalSmallTileNum": 2, "tileDataNum": 12288, "smallTailDataNum": 9552,
                           "bigTailDataNum": 9560, "tailBlockNum": 32, "scale": 2.0, "blockDim": 48,
                           "tilingKey": 6}
    assert t.workspace_size == 16 * 1024 * 1024
    # float16, 1000 elements: tileBlockNum = 3072/4 = 768, a tile of 12288 holds the
    # tensor: one core, 63 blocks (1008 elements), the big class 64 blocks.
    t = sg.compute_tiling(1000, "float16", op="silu")
    assert t.as_dict() == {"smallCoreDataNum": 1008, "bigCoreDataNum": 1024, "finalBigTileNum": 1,
                           "finalSmallTileNum": 1, "tileDataNum": 12288, "smallTailDataNum": 1008,
                           "bigTailDataNum": 1024, "tailBlockNum": 0, "scale": 1.0, "blockDim": 1, "tilingKey": 6}
    assert t.tobytes() == struct.pack("<8If", 1008, 1024, 1, 1, 12288, 1008, 1024, 0, 1.0)
    # Keys: scale == -1 -> 2, == 0 -> 4 (exact comparisons).
    assert sg.compute_tiling(64, "float32", -1.0, op="swish").tiling_key == 2
    assert sg.compute_tiling(64, "float32", -0.0, op="swish").tiling_key == 4
    assert sg.compute_tiling(64, "float32", -(1 - EPS), op="swish").tiling_key == 6
    # UB plan: the tile fits exactly (2 queues x 2 buffers x 4 bytes; 16-bit: 2 x 2 x 2 + 2 x 4).
    assert S.a2_ub_bytes(12288, 4) == 196608 and S.a2_ub_bytes(12288, 2) == 196608


def test_950_tiling_by_hand():
    # ops-nn arch35 tiling UT: float16 (16,1,4,4,8), scale 29.18, UB 245760, 64 cores:
    # "2048 1 30720", key 6 (SwishOther: BufferNum 4, 245760*8/(4*16) = 30720).
    ut = sg.Platform(soc_version="ascend950", ub_size=245760, core_num=64)
    t = sg.compute_tiling(2048, "float16", 29.17882261333122, ut, op="swish")
    assert (t["dim0"], t["coreNum"], t["ubFormer"], t.tiling_key, t.block_dim) == (2048, 1, 30720, 6, 1)
    assert len(t.tobytes()) == 32 and t.tobytes()[20:] == bytes(12)
    # SwishZero on float16: BufferNum 6 at float32 width: 253952*8/(6*32) = 10581 -> 10496 (128-aligned).
    t = sg.compute_tiling(1000, "float16", 0.0, P950, op="swish")
    assert (t["dim0"], t["coreNum"], t["ubFormer"], t.tiling_key) == (1000, 1, 10496, 4)
    # SwishZero on float32 (its Casts are no-ops): BufferNum 4, 253952*8/(4*32) = 15872.
    assert sg.compute_tiling(1000, "float32", 0.0, P950, op="swish")["ubFormer"] == 15872
    # SwishNegOne, float32, 2^20: 64 cores (2^25 bits / 32768), blocks of 16384.
    t = sg.compute_tiling(1 << 20, "float32", -np.inf, P950, op="swish")
    assert (t["coreNum"], t["ubFormer"], t.block_dim, t.tiling_key) == (64, 15872, 64, 2)
    f = S.walk_fields(t)
    assert (f.blockFormer, f.blockNum, f.ubLoopOfFormerBlock, f.ubTailOfFormerBlock) == (16384, 64, 2, 512)
    # Each DAG's buffers fit the UB: BufferNum slots of ubFormer * MaxDtypeBytes.
    assert S.arch35_ub_bytes(10496, 2, S.DAGS[S.ATTR_ZERO]) == 6 * 10496 * 4 <= 253952
    assert S.arch35_ub_bytes(15872, 4, S.DAGS[S.ATTR_OTHER]) == 253952


def test_registry():
    assert {"swish", "silu"} <= set(OPERATORS)
    assert get_operator("silu").kernel_op == "Swish" and not get_operator("silu").has_beta
    assert get_operator("swish").aclnn == ("aclnnSwishGetWorkspaceSize", "aclnnSwish")
    assert get_operator("swish").kernels["a2"].narrowing == "CAST_ROUND"
    assert get_operator("swish").kernels["arch35"].narrowing == "CAST_RINT"
    assert S.A2_RECORD_DTYPE.itemsize == 36 and S.ARCH35_RECORD_DTYPE.itemsize == 32


# ---------------------------------------------------------------- bad input


def test_bad_inputs():
    x = np.ones(4, dtype=np.float32)
    with pytest.raises(TypeError, match="x must be a numpy.ndarray"):
        sg.swish([1.0, 2.0])
    with pytest.raises(TypeError, match="masked"):
        sg.silu(np.ma.masked_array(x))
    with pytest.raises(ValueError, match="x.dtype"):
        sg.swish(np.ones(3, dtype=np.int32))
    with pytest.raises(TypeError, match="out must have dtype"):
        sg.swish(x, out=np.ones(4, dtype=np.float16))
    with pytest.raises(ValueError, match="out must have shape"):
        sg.silu(x, out=np.ones(5, dtype=np.float32))
    ro = np.ones(4, dtype=np.float32)
    ro.flags.writeable = False
    with pytest.raises(ValueError, match="writeable"):
        sg.swish(x, out=ro)
    with pytest.raises(TypeError, match="platform"):
        sg.swish(x, platform="ascend950")
    with pytest.raises((TypeError, ValueError), match="beta"):
        sg.swish(x, "two")
    with pytest.raises(TypeError):
        sg.silu(x, beta=2.0)
    with pytest.raises(ValueError, match="bfloat16"):
        sg.swish(np.ones(4, dtype=BF16), platform=sg.Platform(soc_version="ascend910_93"))
    with pytest.raises(ValueError, match="op must be one of"):
        sg.compute_tiling(10, "float32", op="swishh")
    with pytest.raises(TypeError, match="takes no beta"):
        sg.compute_tiling(10, "float32", 2.0, op="silu")
    with pytest.raises(ValueError, match="does not fit its C type"):
        sg.compute_tiling(1 << 38, "float32", op="swish")          # smallCoreDataNum > 2^32 - 1 (a uint32)
    with pytest.raises(ValueError, match="ub_size"):
        sg.compute_tiling(10, "float32", op="swish", platform=sg.Platform(ub_size=64))


# ---------------------------------------------------------------- the ops-nn TTK cases, as data

# activation/swish/tests/st/arch35/ttk_kernel_swish_st.csv: (case, dtype, shape, scale, input range).
TTK_CASES = [
    ("Swish_test_000109", "float16", (8, 64, 11008), 1.0, (-1, 1)),
    ("Swish_test_000248", "float16", (197, 8161), 1.0, (-0.001, 0)),
    ("Swish_test_000229", "float16", (1, 1, 1, 1, 1), 1.210267230978015, (-1, 1)),
    ("Swish_test_000324", "float32", (1, 1408), 1.0, (-1, 1)),
    ("Swish_test_000205", "float16", (1, 1, 1, 1, 1), 1.0, (-1, 1)),
]


@pytest.mark.parametrize("case, dtype, shape, scale, bounds", TTK_CASES, ids=[c[0] for c in TTK_CASES])
def test_ttk_cases(case, dtype, shape, scale, bounds):
    rng = np.random.default_rng(int(case[-3:]))
    x = rng.uniform(*bounds, size=shape).astype(np.float32).astype(DTYPES[dtype])
    # The reference once per distinct x (a 16-bit tensor has few), then spread.
    # Distinct bit patterns (np.unique on values would merge -0.0 and +0.0).
    width = np.uint32 if dtype == "float32" else np.uint16
    patterns, inverse = np.unique(x.reshape(-1).view(width), return_inverse=True)
    expected = ref_swish(patterns.view(x.dtype), scale, "arch35")[inverse].reshape(shape)
    assert_bits_equal(sg.swish(x, scale, platform=P950), expected, case)


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
@pytest.mark.parametrize("arch", PLATFORMS)
def test_walk_covers_every_core_of_a_piece(arch, dtype):
    # A launch plan piece may hold several cores (a run of them, stride apart); the
    # forward walk used to run only the first, leaving the rest of the output unwritten.
    x = (np.random.default_rng(21).random(70001, dtype=np.float32) * 10 - 5).astype(dtype)
    out = np.full_like(x, np.nan)
    assert_bits_equal(sg.swish(x, 1.1, out=out, platform=PLATFORMS[arch]), ref_swish(x, 1.1, arch))


@pytest.mark.parametrize("platform", [sg.Platform(ub_size=2**40), sg.Platform(soc_version="ascend950", ub_size=2**40)],
                         ids=["a2", "arch35"])
def test_a_huge_ub_is_blamed_on_ub_size_not_numel(platform):
    with pytest.raises(ValueError, match=r"^platform.ub_size is too large: the tiling field (tileDataNum|ubFormer)"):
        sg.swish(np.ones(12, np.float32), platform=platform)

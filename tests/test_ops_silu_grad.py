"""SiluGrad (aclnnSiluBackward) on both kernels, against tests/reference_silu_grad.py, bit for bit."""
import itertools

import ml_dtypes
import numpy as np
import pytest

from reference import SPECIALS, assert_bits_equal, random_inputs
from reference_silu_grad import ref_silu_grad

import swishgrad_numba as sg
from swishgrad_numba.ops import silu_grad as op
from swishgrad_numba.platform import ASCEND950_PLATFORM, REFERENCE_PLATFORM, Platform

BF16 = np.dtype(ml_dtypes.bfloat16)
DT = {"float32": np.dtype(np.float32), "float16": np.dtype(np.float16), "bfloat16": BF16}
PLATFORMS = {"a2": REFERENCE_PLATFORM, "950": ASCEND950_PLATFORM}


# ------------------------------------------------------------------ values


@pytest.mark.parametrize("kernel", PLATFORMS)
@pytest.mark.parametrize("dtype", DT)
def test_specials_every_pair(kernel, dtype):
    with np.errstate(over="ignore"):
        vals = SPECIALS.astype(np.float32).astype(DT[dtype])
    g, x = (a.reshape(-1) for a in np.meshgrid(vals, vals))
    got = sg.silu_backward(g, x, platform=PLATFORMS[kernel])
    assert_bits_equal(got, ref_silu_grad(g, x), f"{kernel} {dtype}")


@pytest.mark.parametrize("kernel", PLATFORMS)
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_every_16bit_x(kernel, dtype):
    """All 2**16 x, each with a few gradients (the 16-bit path is a table of z(x), then one Mul)."""
    x = np.arange(65536, dtype=np.uint32).astype(np.uint16).view(DT[dtype])
    g_values = np.array([1.0, -2.5, 0.0078125, 1e-3], dtype=np.float32).astype(DT[dtype])
    xs = np.tile(x, g_values.size)
    gs = np.repeat(g_values, x.size)
    got = sg.silu_backward(gs, xs, platform=PLATFORMS[kernel])
    assert_bits_equal(got, ref_silu_grad(gs, xs), f"{kernel} {dtype}")


@pytest.mark.parametrize("kernel", PLATFORMS)
@pytest.mark.parametrize("dtype", DT)
@pytest.mark.parametrize("n", [1, 7, 1000, 5000, 600_001])
def test_random_sizes_across_cores_and_passes(kernel, dtype, n):
    """Sizes off the block grid, one core to every core, one pass to several (A2 600,001: schMode 0 with
    two passes per core)."""
    g, x = random_inputs(np.random.default_rng(n), n, dtype)
    got = sg.silu_backward(g, x, platform=PLATFORMS[kernel])
    assert_bits_equal(got, ref_silu_grad(g, x), f"{kernel} {dtype} n={n}")


@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_double_buffered_a2_walk(dtype):
    n = (1 << 20) + 3
    tiling = op.a2_host_tiling(n, dtype)
    assert tiling.sch_mode == op.SCH_MODE_DOUBLE
    g, x = random_inputs(np.random.default_rng(5), n, dtype)
    assert_bits_equal(sg.silu_backward(g, x), ref_silu_grad(g, x))


def test_equals_swish_backward_at_beta_one_on_a2():
    """SiluGrad's sequence is the A2 SwishGrad's with beta 1 (x * 1 is exact; the products commute)."""
    x = np.arange(65536, dtype=np.uint32).astype(np.uint16).view(np.float16)
    g = np.full(x.shape, -1.5, dtype=np.float16)
    assert_bits_equal(sg.silu_backward(g, x), sg.swish_backward(g, x, 1.0))


def test_result_ignores_tiling():
    g, x = random_inputs(np.random.default_rng(9), 70_001, "float32")
    want = ref_silu_grad(g, x)
    for platform in (Platform(core_num=3, ub_size=4096), Platform(soc_version="ascend950", core_num=5, ub_size=3072)):
        assert_bits_equal(sg.silu_backward(g, x, platform=platform), want, repr(platform))


def test_non_contiguous_inputs_and_out():
    g, x = random_inputs(np.random.default_rng(3), 400, "bfloat16")
    g2, x2 = g.reshape(20, 20)[:, ::2], x.reshape(20, 20).T[:, ::2]
    out = np.zeros((20, 20), dtype=BF16)[:, 1::2]
    res = sg.silu_backward(g2, x2, out=out)
    assert res is out
    assert_bits_equal(out, ref_silu_grad(g2, x2))


def test_zero_d_and_empty():
    g, x = np.full((), 2.0, np.float32), np.ones((), np.float32)
    assert_bits_equal(sg.silu_backward(g, x), ref_silu_grad(g, x))
    e = np.empty((0, 3), np.float16)
    assert sg.silu_backward(e, e).shape == (0, 3)
    assert sg.silu_backward(np.empty((0, 1), np.float16), np.ones(3, np.float32),
                            platform=ASCEND950_PLATFORM).shape == (0, 3)


# ------------------------------------------------------------------ Ascend 950: broadcasting and mixed dtypes


SMALL_950 = Platform(soc_version="ascend950", core_num=3, ub_size=8192)

BROADCASTS = [
    ((3, 1, 5), (4, 5)),
    ((), (6, 7)),
    ((33,), (1,)),
    ((2, 1), (2, 50_000)),                      # dy cached across UB loops (stride 0 on the split axis)
    ((5, 1, 7, 1, 3), (1, 6, 7, 4, 1)),
    ((2, 1, 2, 1, 2, 1, 2), (1, 2, 1, 2, 1, 2, 1)),   # 7 axes inside the UB: the "with loops" kernel
    ((1, 300, 1), (4, 1, 97)),
]


@pytest.mark.parametrize("platform", [ASCEND950_PLATFORM, SMALL_950], ids=["950", "950-small"])
@pytest.mark.parametrize("shapes", BROADCASTS, ids=str)
def test_broadcasting(platform, shapes):
    rng = np.random.default_rng(len(shapes[0]) * 100 + len(shapes[1]))
    g = random_inputs(rng, max(1, int(np.prod(shapes[0]))), "float16")[0].reshape(shapes[0])
    x = random_inputs(rng, max(1, int(np.prod(shapes[1]))), "float16")[1].reshape(shapes[1])
    assert_bits_equal(sg.silu_backward(g, x, platform=platform), ref_silu_grad(g, x), str(shapes))
    assert_bits_equal(sg.silu_backward(x, g, platform=platform), ref_silu_grad(x, g), str(shapes[::-1]))


def test_broadcast_cache_reuse_across_blocks():
    """dy (2, 1) against x (2, 50000) on 2 and 3 cores: blocks of 5 and 4 UB loops whose dy copies are
    skipped from the third loop of a row on (the buffer from two loops back holds the same row)."""
    rng = np.random.default_rng(1)
    g = rng.standard_normal((2, 1)).astype(np.float32)
    x = rng.standard_normal((2, 50_000)).astype(np.float32)
    for cores in (2, 3):
        platform = Platform(soc_version="ascend950", core_num=cores)
        assert_bits_equal(sg.silu_backward(g, x, platform=platform), ref_silu_grad(g, x), f"{cores} cores")


@pytest.mark.parametrize("dy_dtype, x_dtype", [(a, b) for a, b in itertools.permutations(DT, 2)])
def test_mixed_dtypes(dy_dtype, x_dtype):
    rng = np.random.default_rng(len(dy_dtype) + 7 * len(x_dtype))
    g = random_inputs(rng, 3 * 1001, dy_dtype)[0].reshape(3, 1001)
    x = random_inputs(rng, 1001, x_dtype)[1]
    got = sg.silu_backward(g, x, platform=ASCEND950_PLATFORM)
    assert got.dtype == np.float32
    assert_bits_equal(got, ref_silu_grad(g, x), f"{dy_dtype} x {x_dtype}")


def test_mixed_16bit_x_every_pattern():
    x = np.arange(65536, dtype=np.uint32).astype(np.uint16).view(np.float16)
    g = np.array([[0.75], [-3.0]], dtype=BF16)
    assert_bits_equal(sg.silu_backward(g, x, platform=ASCEND950_PLATFORM), ref_silu_grad(g, x))


# ------------------------------------------------------------------ host tilings, worked by hand


def test_struct_layouts():
    assert op.A2_TILING_DTYPE.itemsize == 32
    assert op.A2_TILING_FIELDS == ("smallCoreDataNum", "bigCoreDataNum", "tileDataNum", "tailBlockNum")
    assert op.ARCH35_TILING_DTYPE.itemsize == 9 * 8 + 6 * 8 * 8
    assert op.ARCH35_TILING_DTYPE.fields["input0Dims"][1] == 72


# Reference A2 platform: UB 196,608 bytes = 6144 blocks of 32, 48 cores.
#   single tile: float32 6144 // 5 = 1228 blocks = 9824 elements; 16-bit 6144 // 13 = 472 blocks = 7552
#   double tile: float32 6144 // 8 = 768 blocks = 6144 elements;  16-bit 6144 // 16 = 384 blocks = 6144
A2_EXAMPLES = [
    # n=6 float32: 1 block, ceil(6/1024) = 1 core; every = 1 -> small 8, big 16; 8 <= 2 * 9824 -> schMode 0
    (6, "float32", 1, 0, dict(smallCoreDataNum=8, bigCoreDataNum=16, tileDataNum=9824, tailBlockNum=0)),
    # n=1000 float16: 2000 bytes pad to 2016 = 63 blocks, 1 core; small 63 * 16 = 1008, big 1024
    (1000, "float16", 1, 0, dict(smallCoreDataNum=1008, bigCoreDataNum=1024, tileDataNum=7552, tailBlockNum=0)),
    # n=5000 float32: 625 blocks; ceil(5000/1024) = 5 cores; every 125, tail 0; small 1000, big 1008
    (5000, "float32", 5, 0, dict(smallCoreDataNum=1000, bigCoreDataNum=1008, tileDataNum=9824, tailBlockNum=0)),
    # n=600000 float16: 37500 blocks, 48 cores; every 781 (48 * 781 = 37488), tail 12;
    # small 12496 <= 2 * 7552 -> schMode 0 (two passes: 7552 + 4944), big 12512
    (600_000, "float16", 48, 0, dict(smallCoreDataNum=12496, bigCoreDataNum=12512, tileDataNum=7552,
                                     tailBlockNum=12)),
    # n=2**20 float32: 131072 blocks, 48 cores; every 2730, tail 32; small 21840 > 19648 -> schMode 1
    (1 << 20, "float32", 48, 1, dict(smallCoreDataNum=21840, bigCoreDataNum=21848, tileDataNum=6144,
                                     tailBlockNum=32)),
    # n=2**20 bfloat16: 65536 blocks; every 1365, tail 16; small 21840 > 15104 -> schMode 1, tile 6144
    (1 << 20, "bfloat16", 48, 1, dict(smallCoreDataNum=21840, bigCoreDataNum=21856, tileDataNum=6144,
                                      tailBlockNum=16)),
]


@pytest.mark.parametrize("n, dtype, block_dim, sch_mode, fields", A2_EXAMPLES, ids=lambda v: str(v)[:12])
def test_a2_host_tiling_examples(n, dtype, block_dim, sch_mode, fields):
    t = op.a2_host_tiling(n, dtype)
    assert (t.fields, t.block_dim, t.sch_mode, t.tiling_key) == (fields, block_dim, sch_mode, sch_mode)
    assert len(t.to_bytes()) == 32


@pytest.mark.parametrize("dtype", DT)
@pytest.mark.parametrize("sch_mode", [0, 1])
def test_a2_buffer_plans_fit_the_ub(dtype, sch_mode):
    size = DT[dtype].itemsize
    units = {(0, 4): 5, (0, 2): 13, (1, 4): 8, (1, 2): 16}[sch_mode, size]
    tile = (196608 // 32) // units * 32 // size
    plan_bytes = op.buffer_plan_bytes(op.a2_buffer_plan(tile, dtype, sch_mode))
    assert plan_bytes == units * tile * size <= 196608


def test_a2_host_tiling_rejects_empty():
    with pytest.raises(ValueError, match="numel"):
        op.a2_host_tiling(0, "float32")


# Ascend 950 (253,952 bytes of UB, 64 vector cores).
#   maxElemNum = ub * 8 // bufferDivisor, floored to 256 bytes of the smallest dtype:
#   equal 16-bit (192): 10581 -> 10496 (x128); float32 (192): 10581 -> 10560 (x64);
#   one 16-bit, one float32 (160): 12697 -> 12672 (x128); two 16-bit into float32 (128): 15872 -> 15872
ARCH35_EXAMPLES = [
    # (2**20,) float16: one axis, 2**20 > 10496 -> split 0, ubFormer 10496, ubOuter 100 (99 * 10496 = 1039104),
    # ubTail 9472; 100 loops over 64 cores: blockFormer 2, 50 blocks, blockTail 2
    (((1 << 20,), (1 << 20,), "float16", "float16"), 50, 100000001000100,
     dict(blockFormer=2, ubFormer=10496, ubOuter=100, ubTail=9472, blockTail=2, shapeLen=1, ubSplitAxis=0,
          dimProductBeforeUbInner=100, elemNum=10496),
     dict(input0Dims=[1 << 20], input1Dims=[1 << 20], outputDims=[1 << 20], input0Strides=[1], input1Strides=[1],
          outputStrides=[1])),
    # dy (3,1,5) float16, x (4,5) float32: opKey 5; no axes merge; all 60 fit -> split 0,
    # ubFormer 12672 // 20 = 633, ubOuter 1, ubTail 3
    (((3, 1, 5), (4, 5), "float16", "float32"), 1, 500000001000100,
     dict(blockFormer=1, ubFormer=633, ubOuter=1, ubTail=3, blockTail=1, shapeLen=3, ubSplitAxis=0,
          dimProductBeforeUbInner=1, elemNum=12672),
     dict(input0Dims=[3, 1, 5], input1Dims=[1, 4, 5], outputDims=[3, 4, 5], input0Strides=[5, 0, 1],
          input1Strides=[0, 5, 1], outputStrides=[20, 5, 1])),
    # dy (2,1), x (2,50000) float32, 3 cores: 50000 > 10560 -> split 1, ubFormer 10560, ubOuter 5, ubTail 7760;
    # 10 loops: blockFormer 4, 3 blocks, blockTail 2
    (((2, 1), (2, 50000), "float32", "float32", Platform(soc_version="ascend950", core_num=3)), 3, 300000001000100,
     dict(blockFormer=4, ubFormer=10560, ubOuter=5, ubTail=7760, blockTail=2, shapeLen=2, ubSplitAxis=1,
          dimProductBeforeUbInner=10, elemNum=10560),
     dict(input0Dims=[2, 1], input1Dims=[2, 50000], outputDims=[2, 50000], input0Strides=[1, 0],
          input1Strides=[50000, 1], outputStrides=[50000, 1])),
    # 7 alternating axes, bfloat16: nothing merges; 128 fit -> split 0, ubFormer 10496 // 64 = 164, ubOuter 1;
    # 7 axes inside the UB > 5 -> schedule key 1100 (the "with loops" kernel)
    (((2, 1, 2, 1, 2, 1, 2), (1, 2, 1, 2, 1, 2, 1), "bfloat16", "bfloat16"), 1, 200000001001100,
     dict(blockFormer=1, ubFormer=164, ubOuter=1, ubTail=2, blockTail=1, shapeLen=7, ubSplitAxis=0,
          dimProductBeforeUbInner=1, elemNum=10496),
     dict(outputDims=[2] * 7, input0Strides=[8, 0, 4, 0, 2, 0, 1], input1Strides=[0, 4, 0, 2, 0, 1, 0])),
    # dy (1,) float16, x (3,) bfloat16 -> float32 (opKey 4, divisor 128): 3 fit, ubFormer 15872
    (((1,), (3,), "float16", "bfloat16"), 1, 400000001000100,
     dict(blockFormer=1, ubFormer=15872, ubOuter=1, ubTail=3, blockTail=1, shapeLen=1, ubSplitAxis=0,
          dimProductBeforeUbInner=1, elemNum=15872),
     dict(input0Dims=[1], input1Dims=[3], outputDims=[3], input0Strides=[0], input1Strides=[1], outputStrides=[1])),
]


@pytest.mark.parametrize("args, block_dim, key, scalars, arrays", ARCH35_EXAMPLES, ids=lambda v: str(v)[:30])
def test_arch35_host_tiling_examples(args, block_dim, key, scalars, arrays):
    t = op.arch35_host_tiling(*args)
    f = t.fields
    assert (t.block_dim, t.tiling_key, t.workspace_size) == (block_dim, key, 32)
    assert {k: f[k] for k in scalars} == scalars
    for name, values in arrays.items():
        assert f[name] == values + [0] * (8 - len(values)), name
    assert len(t.to_bytes()) == 456


@pytest.mark.parametrize("dy_dtype, x_dtype", list(itertools.product(DT, DT)))
def test_arch35_buffer_plans_match_the_divisor(dy_dtype, x_dtype):
    t = op.arch35_host_tiling((4096,), (4096,), dy_dtype, x_dtype)
    elem = t.fields["elemNum"]
    divisor = op.ARCH35_COMPUTE_PARAMS[t.tiling_key // 10 ** 14][3]
    plan_bytes = op.buffer_plan_bytes(op.arch35_buffer_plan(elem, dy_dtype, x_dtype))
    assert plan_bytes == elem * divisor // 8 <= 253952


def test_dimension_collapse_merges_like_axes():
    dims, strides = op.dimension_collapse([(2, 3, 1, 1), (2, 3, 4, 5)], (2, 3, 4, 5))
    assert dims == [[6, 1], [6, 20], [6, 20]]
    assert strides == [[1, 0], [20, 1], [20, 1]]
    with pytest.raises(ValueError, match="neither 1"):
        op.dimension_collapse([(2, 3), (2, 4)], (2, 4))


# ------------------------------------------------------------------ bad input


def test_bad_inputs():
    a = np.ones(4, np.float32)
    with pytest.raises(TypeError, match="grad_output"):
        sg.silu_backward([1.0], a)
    with pytest.raises(TypeError, match="masked"):
        sg.silu_backward(np.ma.masked_array(a), a)
    with pytest.raises(ValueError, match="x.dtype"):
        sg.silu_backward(a, a.astype(np.float64))
    with pytest.raises(TypeError, match="same dtype"):
        sg.silu_backward(a, a.astype(np.float16))
    with pytest.raises(ValueError, match="same shape"):
        sg.silu_backward(a, np.ones((2, 4), np.float32))
    with pytest.raises(ValueError, match="broadcast"):
        sg.silu_backward(a, np.ones(3, np.float32), platform=ASCEND950_PLATFORM)
    with pytest.raises(ValueError, match="at most 8"):
        sg.silu_backward(np.ones((1,) * 9, np.float32), np.ones((2,) + (1,) * 8, np.float32),
                         platform=ASCEND950_PLATFORM)
    with pytest.raises(TypeError, match="out must have dtype float32"):
        sg.silu_backward(a.astype(np.float16), a, out=np.empty(4, np.float16), platform=ASCEND950_PLATFORM)
    with pytest.raises(ValueError, match="out must have shape"):
        sg.silu_backward(a, a, out=np.empty(5, np.float32))
    with pytest.raises(ValueError, match="writeable"):
        out = np.empty(4, np.float32)
        out.flags.writeable = False
        sg.silu_backward(a, a, out=out)
    with pytest.raises(TypeError, match="platform"):
        sg.silu_backward(a, a, platform="ascend950")


def test_tiny_ub_is_refused_not_hung():
    with pytest.raises(ValueError, match="tileDataNum"):
        sg.silu_backward(np.ones(8, np.float32), np.ones(8, np.float32), platform=Platform(ub_size=64))


# ------------------------------------------------------------------ the 950's TTK cases, as data

# activation/silu_grad/tests/st/arch35/ttk_kernel_silu_grad_st.csv: (case, dtype, shape, input range, specials)
TTK_CASES = [
    ("silu_grad_baihe_67", "bfloat16", (26,), (-3.389531389251505e+38, 3.389531389251505e+38), ()),
    ("silu_grad_baihe_98", "float32", (83,), (-3.4028235e+38, 3.4028235e+38), ()),
    ("silu_grad_baihe_92", "bfloat16", (39, 69, 23), (-1, 1), (np.nan, -0.0, np.inf)),
    ("silu_grad_baihe_94", "float16", (83,), (-1, 1), (np.nan, -0.0, np.inf)),
    ("silu_grad_baihe_101", "float16", (70,), (-65500.0, 65500.0), ()),
]


@pytest.mark.parametrize("case, dtype, shape, bounds, specials", TTK_CASES, ids=[c[0] for c in TTK_CASES])
def test_ttk_cases(case, dtype, shape, bounds, specials):
    rng = np.random.default_rng(sum(map(ord, case)))
    g, x = (rng.uniform(*bounds, size=shape) for _ in range(2))
    for arr in (g, x):
        if specials:
            flat = arr.reshape(-1)
            flat[rng.choice(flat.size, size=len(specials) * 2, replace=False)] = np.repeat(specials, 2)
    with np.errstate(over="ignore"):
        g, x = (a.astype(np.float32).astype(DT[dtype]) for a in (g, x))
    assert_bits_equal(sg.silu_backward(g, x, platform=ASCEND950_PLATFORM), ref_silu_grad(g, x), case)


def test_run_a2_refuses_arrays_that_do_not_fit_the_tiling():
    tiling = op.a2_host_tiling(8, "float32")
    a = np.ones(8, np.float32)
    with pytest.raises(ValueError, match="dy must be"):
        op.run_a2(np.ones(4, np.float32), a, np.empty(8, np.float32), tiling)
    with pytest.raises(ValueError, match="x must be"):
        op.run_a2(a, a.astype(np.float16), np.empty(8, np.float32), tiling)


@pytest.mark.parametrize("shapes", [((3, 4), (3, 4)), ((2, 1, 5), (1, 3, 5))])
def test_a_huge_ub_sizes_the_950_buffers_from_the_data(shapes):
    # ub_size 2^40: elemNum is ~2^41 elements, the tensor 12-30. The local buffers hold the passes the
    # loops run, not elemNum elements (which raised MemoryError inside the kernel).
    rng = np.random.default_rng(27)
    g = rng.uniform(-5, 5, shapes[0]).astype(np.float32)
    x = rng.uniform(-5, 5, shapes[1]).astype(np.float32)
    huge = Platform(soc_version="ascend950", ub_size=2**40)
    assert_bits_equal(sg.silu_backward(g, x, platform=huge), ref_silu_grad(g, x))


def test_walk_args_are_the_records_fields_in_fresh_arrays_each_call():
    """The broadcast walk's arguments read from a record are kept per record (by its bytes), and each call gets
    arrays of its own: writing one changes neither the record's next arguments nor another call's."""
    from swishgrad_numba.ops.silu_grad.record_walk import _WALK_ARRAYS, _WALK_SCALARS, walk_args

    for shapes in (((64, 48), (48,)), ((3000,), (3000,))):
        record = op.host_tiling(*shapes, "float32", "float32", ASCEND950_PLATFORM).record
        first, second = walk_args(record), walk_args(record)
        n = len(_WALK_SCALARS)
        assert first[:n] == tuple(int(record[f]) for f in _WALK_SCALARS)
        for a, b, field in zip(first[n:], second[n:], _WALK_ARRAYS):
            assert a is not b and a.dtype == np.int64 and a.flags.writeable
            assert a.tolist() == [int(v) for v in record[field]]
            a[:] = -1
            assert b.tolist() == walk_args(record)[n + _WALK_ARRAYS.index(field)].tolist() \
                == [int(v) for v in record[field]]

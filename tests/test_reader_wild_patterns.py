"""Element-wise kernels in the patterns people write outside ops-nn (issue 43), each a fixture written for
these tests (``tests/fixtures/kernels/wild_*``, new ground beside test_reader_wild_styles.py): ops-math's
keyed Neg, the samples' UB-sized host tiling, a struct passed by value, Axpy on a local copy, Select in both
modes, a course's LeakyRelu and tails, events and TBuf-only buffers, uneven former/tail cores on native
half, a tiling key per dtype, a Cast to int32 and back. Each runs with its own tiling, bit for bit against a
reference written here instruction by instruction (each float32 instruction rounded as float32; 16-bit
tensors as docs/model.md "Arithmetic on 16-bit tensors in a read kernel": each result rounded once)."""
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

from reference import assert_bits_equal, fma_f32_array
from reference_family import narrow
from reader_variants import fixture_variant

from swishgrad_numba.ops import read_kernel
from swishgrad_numba.reader import KernelSourceError

KERNELS = Path(__file__).parent / "fixtures" / "kernels"
F32, F16, BF16 = np.float32, np.float16, ml_dtypes.bfloat16
DTYPES = {"float32": F32, "float16": F16, "bfloat16": BF16}
SPECIALS = (0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 0.5, -2.5, 65504.0)


def _x(n, dtype, seed=7, scale=3.0):
    x = np.random.default_rng(seed * 1000 + n).normal(0, scale, n).astype(F32)
    x[:len(SPECIALS)] = SPECIALS[:n]
    return x.astype(dtype)


def _w(x):
    """A 16-bit tensor widened to float32 (exact)."""
    return np.asarray(x).astype(F32)


def _rint(v, dtype):
    """A float32 result narrowed by CAST_RINT (float32 itself unchanged)."""
    return v if dtype == F32 else narrow(v, dtype, ties_away=False)


# -------------------------------------------------------------------- ops-math: Neg by Muls(-1), keyed


def _neg_tiling(n, cores, ub):
    block = -(-n // cores)
    return dict(totalNum=n, blockFactor=block, tailBlockFactor=n - block * (cores - 1), ubFactor=ub)


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
@pytest.mark.parametrize("n, cores, ub", [(5, 1, 64), (1000, 3, 128), (48 * 997 + 5, 48, 512)])
def test_neg_by_muls_minus_one_under_a_tiling_key(dtype, n, cores, ub):
    op = read_kernel(KERNELS / "wild_neg_keyed")
    x = _x(n, DTYPES[dtype])
    with np.errstate(invalid="ignore"):
        want = _rint(_w(x) * F32(-1), DTYPES[dtype])          # half: the exact product rounded once
    got = op.run(x=x, tiling=_neg_tiling(n, cores, ub), block_dim=cores, tiling_key=1)
    assert_bits_equal(got, want, f"neg {dtype} {n}")


def test_neg_computes_nothing_under_another_key():
    op = read_kernel(KERNELS / "wild_neg_keyed")
    x = _x(256, F32)
    got = op.run(x=x, tiling=_neg_tiling(256, 2, 64), block_dim=2, tiling_key=2)
    assert_bits_equal(got, np.zeros_like(x), "neg, key 2")       # no tile stored: left 0


# -------------------------------------------------------------------- samples: UB-sized host tiling


def ref_recip_sqrt(x, eps):
    with np.errstate(all="ignore"):
        t = _w(x) + F32(eps)
        t = np.sqrt(t)
        t = F32(1) / t
    return t if x.dtype == F32 else narrow(t, x.dtype, ties_away=True)      # CAST_ROUND


@pytest.mark.parametrize("dtype", ["float32", "float16"])
@pytest.mark.parametrize("n", [8, 1000, 48 * 4096 + 1234, 48 * 9000 + 3])     # one core; 48 and long tails
def test_recip_sqrt_tiled_from_the_ub_size(dtype, n):
    op = read_kernel(KERNELS / "wild_recip_sqrt_ub")
    x = np.abs(_x(n, DTYPES[dtype], scale=50))
    x[:3] = (-1.0, -0.0, 0.0)
    assert_bits_equal(op.run(x=x, epsilon=1e-3), ref_recip_sqrt(x, 1e-3), f"recip_sqrt {dtype} {n}")
    assert_bits_equal(op.run(x=x), ref_recip_sqrt(x, 0.0), f"recip_sqrt {dtype} {n}, the default epsilon")


def test_recip_sqrt_host_sets_the_tile_from_the_ub():
    op = read_kernel(KERNELS / "wild_recip_sqrt_ub")
    record = op.tiling(48 * 4096 + 1234, "float16")
    assert record["tileLength"] == 4096 and record["coreNum"] == 48        # 192 KiB / 6 / 4, capped


# -------------------------------------------------------------------- kernel launch: a struct by value


@pytest.mark.parametrize("cores, tiles, n", [(1, 1, 128), (8, 2, 8 * 2 * 2 * 512)])
def test_axpy_on_a_local_copy_with_the_struct_by_value(cores, tiles, n):
    op = read_kernel(KERNELS / "wild_axpy_copy")
    x, y = _x(n, F32, seed=1), _x(n, F32, seed=2)[::-1].copy()
    got = op.run(x=x, y=y, tiling=dict(totalLength=n, tileNum=tiles, alpha=0.3), block_dim=cores)
    assert_bits_equal(got, fma_f32_array(x, np.full(n, F32(0.3)), y), f"axpy {n}")     # fused, as the walk


def test_a_read_of_the_copied_source_after_the_axpy_is_refused(tmp_path):
    folder, _ = fixture_variant(tmp_path, "wild_axpy_copy",
                                "AscendC::Axpy(zLocal, xLocal, this->alpha, this->tileLength);",
                                "AscendC::Axpy(zLocal, xLocal, this->alpha, this->tileLength);\n"
                                "        AscendC::Add(zLocal, zLocal, yLocal, this->tileLength);", file="axpy_blend.cpp")
    with pytest.raises(KernelSourceError) as e:
        read_kernel(folder)
    assert "reading yLocal" in str(e.value) and "updated in place" in str(e.value)


# -------------------------------------------------------------------- ops-math: Select in both modes


def ref_softshrink(x, lambd):
    with np.errstate(invalid="ignore"):
        xf = _w(x) + F32(0) if x.dtype == F32 else _w(x)               # float: Adds 0 (-0 becomes +0)
        shifted = xf + F32(lambd)
        part = np.where(xf < F32(-lambd), shifted, F32(0))
        shifted = xf + F32(-lambd)
        y = np.where(xf > F32(lambd), shifted, part)
    return _rint(y, x.dtype.type)


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
def test_softshrink_by_compare_scalar_and_select(dtype):
    op = read_kernel(KERNELS / "wild_softshrink_sel")
    for cores, tile, tiles in ((1, 64, 1), (4, 256, 3)):
        n = cores * tile * tiles
        x = _x(n, DTYPES[dtype], scale=1.0)
        x[10:14] = (0.5, -0.5, 0.25, -0.25)            # at the threshold: kept at 0
        got = op.run(x=x, tiling=dict(blockLength=tile * tiles, tileLength=tile, lambd=0.5), block_dim=cores)
        assert_bits_equal(got, ref_softshrink(x, 0.5), f"softshrink {dtype} {n}")


# -------------------------------------------------------------------- course: LeakyRelu, the last tile


def ref_leaky(x, slope):
    with np.errstate(invalid="ignore"):
        t = _w(x) * F32(slope)
        y = np.where(_w(x) >= 0, _w(x), t)
    return _rint(y, x.dtype.type)


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
def test_course_leaky_relu_with_a_shorter_last_tile(dtype):
    op = read_kernel(KERNELS / "wild_course_leaky")
    for cores, tile, tiles, last in ((1, 64, 1, 64), (3, 512, 4, 128), (8, 1024, 2, 32)):
        block = tile * (tiles - 1) + last
        n = cores * block
        x = _x(n, DTYPES[dtype])
        record = dict(blockLength=block, tileNum=tiles, tileLength=tile, lastTileLength=last, negativeSlope=0.01)
        assert_bits_equal(op.run(x=x, tiling=record, block_dim=cores), ref_leaky(x, 0.01), f"leaky {dtype} {n}")


# -------------------------------------------------------------------- events, TBuf only, half scalars


def ref_clip(x, low, high):
    lo, hi = (np.asarray(F32(v)).astype(x.dtype) for v in (low, high))     # static_cast<T>(float): RINT
    with np.errstate(invalid="ignore"):
        y = np.where(np.isnan(x) | (x >= lo), x, lo)                       # Maxs: a NaN stays
        return np.where(np.isnan(y) | (y <= hi), y, hi)                    # Mins


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
def test_clip_with_events_and_buffers_by_tbuf(dtype):
    op = read_kernel(KERNELS / "wild_clip_events")
    n = 4 * 3 * 256
    x = _x(n, DTYPES[dtype], scale=4)
    got = op.run(x=x, tiling=dict(blockLength=3 * 256, tileLength=256, lowValue=-1.3, highValue=2.7), block_dim=4)
    assert_bits_equal(got, ref_clip(x, -1.3, 2.7), f"clip {dtype}")


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_an_attribute_assigned_to_a_t_member_or_local_is_converted_as_c_does(tmp_path, dtype):
    folder, path = fixture_variant(tmp_path, "wild_clip_events", "low = static_cast<T>(tiling->lowValue);",
                                   "low = tiling->lowValue;", file="clip_by_value.cpp")
    path.write_text(path.read_text().replace("high = static_cast<T>(tiling->highValue);",
                                             "T h = tiling->highValue;\n        this->high = h;"))
    op = read_kernel(folder)
    x = _x(512, DTYPES[dtype], scale=4)
    got = op.run(x=x, tiling=dict(blockLength=512, tileLength=256, lowValue=-1.3, highValue=2.7), block_dim=1)
    assert_bits_equal(got, ref_clip(x, -1.3, 2.7), f"clip, implicit conversions, {dtype}")


# -------------------------------------------------------------------- course: two inputs, op_host


def ref_rel_diff(x, y):
    with np.errstate(all="ignore"):
        xf, yf = _w(x), _w(y)
        d = xf - yf
        a = np.abs(yf) + F32(1)
        z = d / a
    return _rint(z, x.dtype.type)


@pytest.mark.parametrize("dtype", ["float32", "float16"])
@pytest.mark.parametrize("n", [8 * 2048 * 3, 8 * (2048 * 2 + 512), 8 * 16])
def test_course_rel_diff_with_the_tail_in_each_stage(dtype, n):
    op = read_kernel(KERNELS / "wild_course_reldiff")
    x, y = _x(n, DTYPES[dtype], seed=3), _x(n, DTYPES[dtype], seed=4)
    assert_bits_equal(op.run(x=x, y=y), ref_rel_diff(x, y), f"rel_diff {dtype} {n}")


# -------------------------------------------------------------------- native half, former and tail cores


def ref_mul_add_sub(x, y):
    if x.dtype == BF16:                                    # through float, narrowed once
        with np.errstate(all="ignore"):
            return _rint((_w(x) * _w(y) + _w(x)) - _w(y), BF16)
    t = x.dtype.type
    with np.errstate(all="ignore"):                        # each instruction rounded to the tensor's dtype
        z = _rint(_w(x) * _w(y), t)
        z = _rint(_w(z) + _w(x), t)
        return _rint(_w(z) - _w(y), t)


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
def test_native_half_arithmetic_on_former_and_tail_cores(dtype):
    op = read_kernel(KERNELS / "wild_half_former_tail")
    tile = 256
    for former_num, cores, former, tail in ((1, 1, 2 * tile, 0), (3, 7, 4 * tile, 3 * tile)):
        n = former * former_num + tail * (cores - former_num)
        x, y = _x(n, DTYPES[dtype], seed=5), _x(n, DTYPES[dtype], seed=6)
        record = dict(formerNum=former_num, formerLength=former, tailLength=tail, tileLength=tile)
        got = op.run(x=x, y=y, tiling=record, block_dim=cores)
        assert_bits_equal(got, ref_mul_add_sub(x, y), f"mul_add_sub {dtype} {n}")


# -------------------------------------------------------------------- a tiling key per dtype, Exp and Ln


def ref_log_sigmoid(x):
    with np.errstate(all="ignore"):
        t = _w(x) * F32(-1)
        t = np.exp(t.astype(np.float64)).astype(F32)         # the model's Exp: correctly rounded
        t = t + F32(1)
        t = np.log(t.astype(np.float64)).astype(F32)         # and Ln
        t = t * F32(-1)
    return _rint(t, x.dtype.type)


@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_log_sigmoid_picks_its_class_by_the_dtypes_tiling_key(dtype):
    op = read_kernel(KERNELS / "wild_logsigmoid_keys")
    n = 48 * 1024 * 2
    x = _x(n, DTYPES[dtype], scale=6)
    x[20:24] = (88.0, -88.0, 100.0, -100.0)
    assert_bits_equal(op.run(x=x), ref_log_sigmoid(x), f"log_sigmoid {dtype}")


# -------------------------------------------------------------------- mixed int32 and float: Cast


def ref_frac(x):
    xf = _w(x)
    with np.errstate(invalid="ignore"):
        whole = np.trunc(np.nan_to_num(xf, nan=0.0))
        whole = np.clip(whole.astype(np.float64), -2.0 ** 31, 2.0 ** 31 - 1).astype(np.int64)   # saturated
    whole = whole.astype(np.int32).astype(F32)               # int32 -> float32: to nearest even
    with np.errstate(invalid="ignore"):
        return _rint(xf - whole, x.dtype.type)


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
def test_frac_by_a_cast_to_int32_and_back(dtype):
    op = read_kernel(KERNELS / "wild_trunc_cast")
    n = 2 * 3 * 512
    x = _x(n, DTYPES[dtype], scale=1000)
    x[12:16] = (3e9, -3e9, 2.0 ** 24 + 2, -(2.0 ** 31)) if dtype == "float32" else (-65504.0, 2049.5, -0.75, 1.5)
    got = op.run(x=x, tiling=dict(blockLength=3 * 512, tileLength=512), block_dim=2)
    assert_bits_equal(got, ref_frac(x), f"frac {dtype}")


# -------------------------------------------------------------------- integer tensors: refused cleanly


def test_int32_tensors_are_refused_at_the_entry():
    with pytest.raises(KernelSourceError) as e:
        read_kernel(KERNELS / "wild_int32_minmax")
    assert "clamp_add_int.cpp:" in str(e.value) and "int32" in str(e.value)


# -------------------------------------------------------------------- kernel launch: CopyTiling word by word


@pytest.mark.parametrize("cores, tiles", [(1, 1), (6, 3)])
def test_sub_scale_with_the_samples_copy_tiling(cores, tiles):
    op = read_kernel(KERNELS / "wild_copy_tiling")
    assert op.description.tiling.name == "SubScaleTilingData"
    n = cores * tiles * 2 * 256
    x, y = _x(n, F32, seed=8), _x(n, F32, seed=9)
    with np.errstate(all="ignore"):
        want = (x - y) * F32(-1.75)
    got = op.run(x=x, y=y, tiling=dict(totalLength=n, tileNum=tiles, scale=-1.75), block_dim=cores)
    assert_bits_equal(got, want, f"sub_scale {n}")


@pytest.mark.parametrize("old, new", [
    ("i < sizeof(SubScaleTilingData) / sizeof(uint32_t)", "i < sizeof(SubScaleTilingData) / sizeof(uint32_t) - 1"),
    ("*ptr = *(tiling32 + i);", "*ptr = *(tiling32 + i + 1);"),
    ("uint32_t totalLength;", "uint16_t totalLength;"),          # not whole words: no longer the copy
])
def test_another_copy_loop_is_refused(tmp_path, old, new):
    file = "sub_scale_tiling.h" if "totalLength;" in old else "sub_scale.cpp"
    folder, _ = fixture_variant(tmp_path, "wild_copy_tiling", old, new, file=file)
    with pytest.raises(KernelSourceError) as e:
        read_kernel(folder)
    assert "sub_scale.cpp:11" in str(e.value) and "reinterpret_cast" in str(e.value)


# -------------------------------------------------------------------- GET_TILING_DATA in Init, older copy structs


def ref_relu_gain(x, gain):
    with np.errstate(invalid="ignore"):
        xf = _w(x)
        m = np.where(np.isnan(xf) | (xf >= F32(0)), xf, F32(0))       # Max(x, 0): a NaN kept, -0 >= 0 kept
        return _rint(m * F32(gain), x.dtype.type)


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
def test_relu_gain_reads_its_tiling_in_init(dtype):
    op = read_kernel(KERNELS / "wild_init_tiling")
    for cores, core_len, last, tile in ((1, 100, 100, 64), (5, 1024, 333, 256)):
        n = core_len * (cores - 1) + last
        x = _x(n, DTYPES[dtype])
        record = dict(coreLength=core_len, tileLength=tile, lastCoreLength=last, gain=1.5)
        assert_bits_equal(op.run(x=x, tiling=record, block_dim=cores), ref_relu_gain(x, 1.5), f"relu_gain {n}")


# -------------------------------------------------------------------- the newer host: GetTilingData<T>()


def ref_sigmoid_div(x):
    with np.errstate(all="ignore"):
        t = _w(x) * F32(-1)
        t = np.exp(t.astype(np.float64)).astype(F32)
        t = t + F32(1)
        return _rint(F32(1) / t, x.dtype.type)


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
@pytest.mark.parametrize("n", [3, 50001, 48 * 2048 * 2 + 7])
def test_sigmoid_div_tiled_through_get_tiling_data(dtype, n):
    op = read_kernel(KERNELS / "wild_host_struct_ptr")
    x = _x(n, DTYPES[dtype], scale=5)
    assert_bits_equal(op.run(x=x), ref_sigmoid_div(x), f"sigmoid_div {dtype} {n}")


def test_the_host_fills_the_kernels_struct_by_pointer():
    op = read_kernel(KERNELS / "wild_host_struct_ptr")
    record = op.tiling(50001, "float32")
    per_core = -(-(-(-50001 // 48)) // 16) * 16
    used = -(-50001 // per_core)
    assert (record["perCoreNum"], record["tailCoreNum"], record["ubFactor"]) == (per_core, 50001 - per_core * (used - 1), 2048)
    assert record.block_dim == used


# -------------------------------------------------------------------- a VECCALC queue, class constants, block copies


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
def test_square_diff_with_a_calc_queue_and_block_copies(dtype):
    op = read_kernel(KERNELS / "wild_calc_queue")
    cores, tile, tiles = 3, 512, 2
    n = cores * tile * tiles
    x, y = _x(n, DTYPES[dtype], seed=10), _x(n, DTYPES[dtype], seed=11)
    with np.errstate(all="ignore"):
        d = _w(x) - _w(y)
        want = _rint(d * d, DTYPES[dtype])
    got = op.run(x=x, y=y, tiling=dict(blockLength=tile * tiles, tileLength=tile), block_dim=cores)
    assert_bits_equal(got, want, f"square_diff {dtype}")


# -------------------------------------------------------------------- C++14 traits, Exp<float, false>, Compare


def ref_elu(x, alpha):
    with np.errstate(all="ignore"):
        xf = _w(x) if x.dtype == F16 else _w(x) * F32(1)
        e = np.exp(xf.astype(np.float64)).astype(F32)
        e = e + F32(-1)
        e = e * F32(alpha)
        y = np.where(xf > F32(0), xf, e)
        return _rint(y, x.dtype.type) if x.dtype == F16 else y * F32(1)


@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_elu_with_cxx14_traits_and_exp_template_arguments(dtype):
    op = read_kernel(KERNELS / "wild_exp_traits")
    n = 2 * 2 * 256
    x = _x(n, DTYPES[dtype], scale=4)
    got = op.run(x=x, tiling=dict(blockLength=2 * 256, tileLength=256, alpha=0.7), block_dim=2)
    assert_bits_equal(got, ref_elu(x, 0.7), f"elu {dtype}")

"""Kernels in the styles people outside ops-nn write (issue 43), each a fixture written for these tests
(``tests/fixtures/kernels/wild_*``): read with ``read_kernel`` and run on the kernel's own tiling, bit for
bit against a reference written here instruction by instruction (each instruction's result rounded to the
tensor's dtype, docs/model.md "Arithmetic on 16-bit tensors in a read kernel"); beside them, variants the
reader must refuse at their file and line."""
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

from reference import assert_bits_equal
from reader_variants import fixture_variant

from swishgrad_numba.ops import read_kernel
from swishgrad_numba.reader import KernelSourceError

KERNELS = Path(__file__).parent / "fixtures" / "kernels"
F32, F16, BF16 = np.float32, np.float16, ml_dtypes.bfloat16
DTYPES = {"float32": F32, "float16": F16, "bfloat16": BF16}


def _exp(v):
    with np.errstate(over="ignore", under="ignore"):
        return np.exp(v.astype(np.float64)).astype(F32)


def _ln(v):
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.log(v.astype(np.float64)).astype(F32)


def _inputs(n, dtype, scale=3.0, seed=43, specials=()):
    x = np.random.default_rng(seed + n).normal(0, scale, n).astype(dtype)
    x[:len(specials)] = specials
    return x


def _half(v):
    """A float32 instruction's result on exact widenings, rounded once to half (nearest even)."""
    return np.asarray(v, F32).astype(F16)


# ---------------------------------------------------------------------------------------------- readers


def ref_addcmul(inp, x1, x2, value):
    if inp.dtype == F32:
        y = x1 * x2
        y = y * F32(value)
        return y + inp
    a, b, c = (t.astype(F32) for t in (x1, x2, inp))
    return (((a * b) * F32(value)) + c).astype(inp.dtype)


@pytest.mark.parametrize("dtype", ["float32", "float16"])
@pytest.mark.parametrize("n", [1000, 4099, 70001])     # one block, a remainder core, several tiles a core
def test_addcmul_cann_ops_template(dtype, n):
    op = read_kernel(KERNELS / "wild_addcmul")
    a, b, c = (_inputs(n, DTYPES[dtype], seed=s) for s in (1, 2, 3))
    assert_bits_equal(op.run(input_data=a, x1=b, x2=c, value=0.3), ref_addcmul(a, b, c, 0.3), f"addcmul {n}")


def ref_sqrt_abs(x, eps):
    if x.dtype == F32:
        return np.sqrt(np.abs(x) + F32(eps))
    h = (np.abs(x).astype(F32) + F32(eps)).astype(F16)
    return _half(np.sqrt(h.astype(F32)))


@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_general_op_impl_by_tiling_key(dtype):
    op = read_kernel(KERNELS / "wild_general_op")
    for n in (4 * 4 * 2 * 64, 4 * 4 * 2 * 1024):
        x = _inputs(n, DTYPES[dtype], specials=(0.0, -0.0, np.inf, -np.inf, np.nan))
        assert_bits_equal(op.run(x=x, eps=0.01), ref_sqrt_abs(x, 0.01), f"sqrt_abs {dtype} {n}")


def ref_silu(x):
    t = _exp(x * F32(-1)) + F32(1)
    with np.errstate(invalid="ignore"):
        return (F32(1) / t) * x


def test_silu_with_the_math_librarys_sigmoid():
    op = read_kernel(KERNELS / "wild_silu_mathlib")
    for n in (48 * 1024, 48 * 2500):      # whole and short last tiles (48 vector cores, each blockLength)
        x = _inputs(n, F32, scale=5, specials=(0.0, -0.0, np.inf, -np.inf, np.nan, 100.0, -100.0))
        assert_bits_equal(op.run(x=x), ref_silu(x), f"silu {n}")


def ref_relu6(x):
    y = np.where(x > 0, x, x.dtype.type(0))
    y = np.where(np.isnan(x), x, y)                         # Relu keeps a NaN
    return np.where(y > x.dtype.type(6), x.dtype.type(6), y)    # Mins: a NaN stays


@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_relu6_basic_api_relu_in_the_inputs_type(dtype):
    op = read_kernel(KERNELS / "wild_relu_half")
    for n in (100, 2048 * 3 + 17):        # below one tile; a short last tile of odd bytes
        x = _inputs(n, DTYPES[dtype], scale=5, specials=(np.nan, -0.0, 0.0, 6.0, np.inf, -np.inf))
        assert_bits_equal(op.run(x=x), ref_relu6(x), f"relu6 {dtype} {n}")


def test_threshold_by_compare_and_select():
    op = read_kernel(KERNELS / "wild_clamp_select")
    for n in (8 * 4 * 64, 8 * 4 * 512):
        x = _inputs(n, F32, scale=2, specials=(np.nan, 1.0, np.inf, -np.inf, 1.0000001))
        assert_bits_equal(op.run(x=x), np.where(x > F32(1), x, F32(-0.5)), f"threshold {n}")


def ref_softplus(x):
    return _ln(_exp(x) + F32(1))


@pytest.mark.parametrize("defines", [None, {"HIGH_PERFORMANCE": "1"}])
def test_softplus_under_high_performance_or_not(defines):
    op = read_kernel(KERNELS / "wild_softplus_hp", defines=defines)
    assert op.description.body("float32").buffer_num == (1 if defines else 2)
    x = _inputs(20000, F32, scale=6, specials=(0.0, -0.0, np.inf, -np.inf, np.nan, 100.0, -100.0, 1e-30))
    assert_bits_equal(op.run(x=x), ref_softplus(x), f"softplus {defines}")


def ref_gelu_tanh(x):
    with np.errstate(all="ignore"):
        t = x * x
        t = t * x
        t = t * F32(0.044715)
        t = t + x
        t = t * F32(0.7978845608)
        u = np.where(np.isnan(t), t, np.maximum(np.minimum(t, F32(8.8)), F32(-8.8)))     # Tanh: the clamp
        u = _exp(u * F32(2))
        th = (u + F32(-1)) / (u + F32(1))
        return ((th + F32(1)) * x) * F32(0.5)


def test_gelu_tanh_with_the_math_librarys_tanh():
    op = read_kernel(KERNELS / "wild_gelu_tanh")
    x = _inputs(20000, F32, scale=4, specials=(0.0, -0.0, np.inf, -np.inf, np.nan, 10.0, -10.0))
    assert_bits_equal(op.run(x=x), ref_gelu_tanh(x), "gelu tanh")


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
def test_exp_scale_any_length_by_data_copy_pad(dtype):
    op = read_kernel(KERNELS / "wild_bf16_exp")
    for n in (7, 1001, 48 * 4096 + 3):        # a length of odd bytes; a last core shorter
        x = _inputs(n, DTYPES[dtype])
        want = _exp(x.astype(F32) * F32(-0.75)).astype(DTYPES[dtype])
        assert_bits_equal(op.run(x=x, scale=-0.75), want, f"exp_scale {dtype} {n}")


def test_rsqrt_with_the_pipe_by_pointer_and_a_base_class():
    op = read_kernel(KERNELS / "wild_rsqrt_ptr")
    x = np.abs(_inputs(8192, F32, scale=10, specials=(0.0, -0.0, np.inf, np.nan, 1e-30)))
    x[5] = -4.0
    with np.errstate(all="ignore"):
        want = F32(1) / np.sqrt(x + F32(1e-5))
    assert_bits_equal(op.run(x=x, eps=1e-5), want, "rsqrt_eps")


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
def test_hard_sigmoid_tail_tile_under_a_branch_after_the_loop(dtype):
    op = read_kernel(KERNELS / "wild_hardsigmoid_bind")
    for n in (16, 48 * 16 * 5 + 32, 48 * 4096 * 2 + 16 * 7):    # one core; former cores; whole tiles and a tail
        x = _inputs(n, DTYPES[dtype], scale=4, specials=(np.nan, np.inf, -np.inf, -0.0, 2.5, -2.5))
        f = x.astype(F32) * F32(0.2)
        f = f + F32(0.5)
        f = np.where(np.isnan(f), f, np.minimum(np.maximum(f, F32(0)), F32(1)))
        assert_bits_equal(op.run(x=x, alpha=0.2, beta=0.5), f.astype(DTYPES[dtype]), f"hard_sigmoid {dtype} {n}")


def test_a_branch_after_the_loop_computing_more_than_a_tile_is_refused(tmp_path):
    step = "Step(loops * tileLength, rest);"
    folder, path = fixture_variant(tmp_path, "wild_hardsigmoid_bind", step, step + "\n            " + step,
                                   "op_kernel/hard_sigmoid.cpp")
    with pytest.raises(KernelSourceError, match=r"a tail tile that computes differently") as e:
        read_kernel(folder).program("float32")      # the way rest > 0 is a path of its own (.launch_branch)
    assert "Muls(local, local, alpha, count);" in path.read_text().splitlines()[e.value.line - 1]   # the tail's


def test_the_first_tutorial_with_constant_sizes_and_no_tiling():
    op = read_kernel(KERNELS / "wild_tutorial_add")
    assert op.record_dtype.names is None or op.record_dtype.names == ()
    x, y = _inputs(8 * 2048, F16, seed=5), _inputs(8 * 2048, F16, seed=6)      # its TOTAL_LENGTH
    x[:3], y[:3] = [65504, -0.0, np.inf], [32, -0.0, -np.inf]
    with np.errstate(invalid="ignore", over="ignore"):
        want = _half(x.astype(F32) + y.astype(F32))
    assert_bits_equal(op.run(x=x, y=y), want, "tutorial add")


@pytest.mark.parametrize("old, new, message", [
    ("Add(zLocal, xLocal, yLocal, TILE_LENGTH)", "Add(zLocal, xLocal, yLocal, 64)", "a constant count covers part"),
    ("DataCopy(zGm[progress * TILE_LENGTH], zLocal, TILE_LENGTH)", "DataCopy(zGm[progress * TILE_LENGTH], zLocal, 64)",
     "a copy to GM of 64 elements"),
])
def test_a_constant_count_is_the_tile_only_where_the_copies_agree(tmp_path, old, new, message):
    folder, path = fixture_variant(tmp_path, "wild_tutorial_add", old, new, "add_custom.cpp")
    with pytest.raises(KernelSourceError, match=message) as e:
        read_kernel(folder).program("float16")
    assert new in path.read_text().splitlines()[e.value.line - 1]


@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_braced_parameter_temporaries_in_the_copies(dtype):
    op = read_kernel(KERNELS / "wild_braced_temps")
    x = _inputs(4 * 1001, DTYPES[dtype], specials=(np.inf, -np.inf, np.nan, 0.5, -0.0))
    f = (x.astype(F32) * F32(2)).astype(DTYPES[dtype])
    want = (f.astype(F32) + F32(-1)).astype(DTYPES[dtype])
    for tiling in ({"coreLen": 1001, "tileLen": 256, "tileCnt": 4, "tailLen": 233},      # a short last tile
                   {"coreLen": 1001, "tileLen": 1001, "tileCnt": 1, "tailLen": 0}):     # one whole tile
        assert_bits_equal(op.run(x=x, tiling=tiling, block_dim=4), want, f"scale_shift {dtype} {tiling}")


def test_level0_calls_with_named_repeat_parameters_in_half():
    op = read_kernel(KERNELS / "wild_level0_half")
    x = _inputs(8 * 2048 * 3, F16, specials=(np.inf, -np.inf, -0.0, 6e-8, 0.0))
    want = np.maximum(x, _half(x.astype(F32) * F32(0.125)))        # each instruction rounded to half
    assert_bits_equal(op.run(x=x), want, "leaky level-0")


@pytest.mark.parametrize("old, new, message", [
    ("unary.dstRepStride = 8;", "unary.dstRepStride = 4;", "repeat stride 4"),         # repeats overlap
    ("unary.dstRepStride = 8;", "unary.dstRepStrid = 8;", "not a field of UnaryRepeatParams"),
    ("binary{1, 1, 1, 8, 8, 8}", "binary{1, 1, 8, 8, 8}", "BinaryRepeatParams with 5 values"),
])
def test_named_repeat_parameters_are_checked_as_braced_ones(tmp_path, old, new, message):
    folder, path = fixture_variant(tmp_path, "wild_level0_half", old, new, "op_kernel/leaky_l0.cpp")
    with pytest.raises(KernelSourceError, match=message) as e:
        read_kernel(folder).program("float16")
    assert Path(e.value.file) == path and e.value.line > 0


def test_only_do_while_zero_is_read(tmp_path):
    folder, path = fixture_variant(tmp_path, "wild_general_op", "} while (0)", "} while (1)", "op_kernel/sqrt_abs.cpp")
    with pytest.raises(KernelSourceError, match=r"only do \{ \} while \(0\) is read"):
        read_kernel(folder)


def test_the_tile_loop_in_the_entry_itself():
    op = read_kernel(KERNELS / "wild_entry_only")
    x = _inputs(8192, F32, specials=(np.nan, np.inf, -np.inf, 1.0, -0.0))
    want = np.abs(x + F32(-1)) * F32(0.5)
    assert_bits_equal(op.run(x=x), want, "abs_shift")
    got = op.run(x=x, tiling={"blockLength": 1000, "tileLength": 200}, block_dim=8)     # its own schedule
    assert_bits_equal(got[:8000], want[:8000], "abs_shift, 8 cores of 1000")
    assert not got[8000:].any()                 # no tile stores past 8 * 1000: left 0


def test_a_loop_inside_the_entrys_tile_loop_is_refused(tmp_path):
    call = "Abs(v, v, t.tileLength);"         # after the tile's copy in: not a nested tile loop (test_reader_control)
    folder, path = fixture_variant(tmp_path, "wild_entry_only", call,
                                   "for (uint32_t j = 0; j < 2; j++) { " + call + " }", "abs_shift.cpp")
    with pytest.raises(KernelSourceError, match="a loop in abs_shift: only Process's tile loop makes vector") as e:
        read_kernel(folder).program("float32")
    assert Path(e.value.file) == path and e.value.line > 0

"""1-byte GM tensors (uint8, int8) and kernels of two outputs (issue 43, swishgrad_numba.reader.byte_tensors):
fixtures written for these tests in the styles of public kernels (``tests/fixtures/kernels/bytes_*``), read with
``read_kernel`` and run, bit for bit against references written here instruction by instruction; the
constructs the model does not cover refused at their file and line."""
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


def _inputs(n, dtype, scale, specials=(), seed=7):
    with np.errstate(over="ignore"):
        x = np.random.default_rng(seed + n).normal(0, scale, n).astype(dtype)
    x[:len(specials)] = specials
    return x


def _assert_same(got, want, what):
    assert got.dtype == want.dtype and got.shape == want.shape, (what, got.dtype, want.dtype)
    np.testing.assert_array_equal(got.view(np.uint8), want.view(np.uint8), err_msg=what)


def ref_is_finite(x):
    abs_x = np.abs(x)                                              # Abs (half: exact)
    mask = abs_x.astype(F32) <= F32(65504.0)                       # Compare LE on the widenings
    sel = np.where(mask, F16(1.0), F16(0.0))                       # Select of the Duplicates
    return sel.astype(np.uint8)                                    # Cast half -> uint8 (exact: 0 or 1)


def test_is_finite_writes_a_uint8_tensor():
    op = read_kernel(KERNELS / "bytes_isfinite")
    for n in (8 * 4 * 64, 8 * 4 * 512):          # 8 cores of 4 tiles (the host's tiling function)
        x = _inputs(n, F16, 3e4, (np.nan, np.inf, -np.inf, 65504.0, -65504.0, -0.0, 6e-8))
        y = op.run(x=x)
        _assert_same(y, ref_is_finite(x), f"isfinite {n}")
        assert (y == np.isfinite(x)).all()


def ref_relu_mask(x):
    f = x.astype(F32)
    y = np.where(f != f, x, np.where(f > 0, x, x.dtype.type(0)))    # Relu: NaN stays, -0 -> +0
    bits = f > F32(0)                                              # CompareScalar GT 0
    sel = np.where(bits, x.dtype.type(1), x.dtype.type(0))          # Duplicate 1, Selects with 0
    return y, sel.astype(F16).astype(np.uint8)                     # (float: Cast to half) Cast to uint8


@pytest.mark.parametrize("dtype", [F32, F16])
def test_relu_with_its_mask_two_outputs(dtype):
    op = read_kernel(KERNELS / "bytes_relu_mask")
    assert [g for g, _ in op.description.body(np.dtype(dtype).name).outputs] == ["y", "mask"]
    for n in (100, 1024 * 3 + 17):               # one short tile; a short last tile
        x = _inputs(n, dtype, 3.0, (np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-7, -1e-7))
        got = op.run(x=x)
        assert isinstance(got, tuple) and len(got) == 2
        want = ref_relu_mask(x)
        assert_bits_equal(got[0], want[0], f"relu_mask y {dtype.__name__} {n}")
        _assert_same(got[1], want[1], f"relu_mask mask {dtype.__name__} {n}")


def _round_half_away_to_int8(h):
    v = h.astype(np.float64)
    with np.errstate(invalid="ignore"):
        r = np.where(v != v, 0.0, np.sign(v) * np.floor(np.abs(v) + 0.5))   # CAST_ROUND; NaN -> 0
    return np.clip(r, -128, 127).astype(np.int8)                          # saturated (+-inf: the bounds)


def ref_quant(x, scale, offset):
    with np.errstate(over="ignore"):
        xf = x.astype(F32) * F32(scale)                            # Muls (float32)
        xf = xf + F32(offset)                                      # Adds
        xh = xf.astype(F16)                                        # Cast float -> half, CAST_RINT
    return _round_half_away_to_int8(xh)                            # Cast half -> int8, CAST_ROUND


@pytest.mark.parametrize("dtype", [F32, F16])
def test_quantize_to_int8_with_a_round_mode(dtype):
    op = read_kernel(KERNELS / "bytes_quant")
    n = 4096
    x = _inputs(n, dtype, 4.0, (np.nan, np.inf, -np.inf, 0.0, -0.0, 0.0125, -0.0125, 0.0375, 6.3, -6.4, 1e4))
    for scale, offset in ((20.0, 0.5), (1.0, 0.0), (40.0, -3.25)):
        y = op.run(x=x, tiling=dict(totalLength=n, tileLength=512, scale=scale, offset=offset))
        _assert_same(y, ref_quant(x, scale, offset), f"quant {dtype.__name__} {scale} {offset}")


def test_quantize_of_bfloat16_is_refused_where_it_mixes_dtypes():
    op = read_kernel(KERNELS / "bytes_quant")
    with pytest.raises(KernelSourceError, match=r"quant_custom.cpp:\d+: cannot read Muls on bfloat16"):
        op.run(x=np.zeros(512, BF16), tiling=dict(totalLength=512, tileLength=512, scale=1.0, offset=0.0))


def test_dequantize_an_int8_input():
    op = read_kernel(KERNELS / "bytes_dequant")
    x = np.arange(-128, 128, dtype=np.int8).repeat(16)            # every int8 value, 4096 elements
    np.random.default_rng(3).shuffle(x)
    for scale in (0.1, -3.0e38, 1.0 / 3.0):
        y = op.run(x=x, tiling=dict(blockLength=512, tileLength=128, scale=scale), block_dim=8)
        with np.errstate(over="ignore"):
            want = x.astype(F16).astype(F32) * F32(scale)          # Cast int8 -> half -> float, Muls
        assert_bits_equal(y, want, f"dequant {scale}")
    with pytest.raises(ValueError, match="x.dtype must be int8"):
        op.run(x=x.view(np.uint8), tiling=dict(blockLength=512, tileLength=128, scale=1.0), block_dim=8)
    with pytest.raises(ValueError, match="x.dtype must be int8"):
        op.run(x=x.astype(F32), tiling=dict(blockLength=512, tileLength=128, scale=1.0), block_dim=8)


def test_a_one_byte_output_written_as_a_packed_mask_is_refused(tmp_path):
    folder, path = fixture_variant(tmp_path, "bytes_isfinite", "Cast(yLocal, sel, RoundMode::CAST_NONE, this->tileLength);",
                                   "Compare(yLocal, absX, maxV, CMPMODE::LE, this->tileLength);",
                                   "op_kernel/is_finite_custom.cpp")
    with pytest.raises(KernelSourceError, match="Compare writing the uint8 GM tensor") as e:
        read_kernel(folder).program("float16")
    assert Path(e.value.file).name == path.name
    assert "Compare(yLocal" in path.read_text().splitlines()[e.value.line - 1]


def test_a_one_byte_input_read_as_a_select_mask_is_refused(tmp_path):
    old = "Cast(xh, xLocal, RoundMode::CAST_NONE, tileLength);\n            Cast(yLocal, xh, RoundMode::CAST_NONE, tileLength);"
    new = ("Duplicate(yLocal, 1.0f, tileLength);\n"
           "            Select(yLocal, xLocal, yLocal, 0.0f, SELMODE::VSEL_TENSOR_SCALAR_MODE, tileLength);")
    folder, path = fixture_variant(tmp_path, "bytes_dequant", old, new, "op_kernel/dequant_custom.cpp")
    with pytest.raises(KernelSourceError) as e:
        read_kernel(folder).program("float32")
    assert Path(e.value.file).name == path.name
    assert "Select(yLocal, xLocal" in path.read_text().splitlines()[e.value.line - 1]


def ref_gate_pair(dy, x, w):
    """brc_gate_pair's DAG, one node at a time: widen; Positive = x > 0; Leak = dy * w; Dx = Positive ? dy : Leak;
    Slope = dy * x; Dw = Positive ? 0 : Slope; each narrowed CAST_RINT."""
    dyf, xf, wf = (a.astype(F32) for a in (dy, x, w))
    with np.errstate(all="ignore"):
        positive = xf > F32(0.0)
        dx = np.where(positive, dyf, dyf * wf).astype(F32)
        dw = np.where(positive, F32(0.0), dyf * xf).astype(F32)
    return dx.astype(dy.dtype), dw.astype(dy.dtype)          # float32 -> 16-bit: to nearest even (astype)


@pytest.mark.parametrize("dtype", [F32, F16, BF16])
def test_two_outputs_of_three_inputs_on_the_broadcast_scheduler(dtype):
    """A 950 BroadcastSch DAG of two CopyOuts: each output's program, its equal shapes on the flat walk (the
    broadcast walk runs two inputs); the outputs in GM order."""
    op = read_kernel(KERNELS / "brc_gate_pair")
    specials = (np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-30, -3.0)
    dy, x, w = (_inputs(20_009, dtype, 3.0, specials[k:] + specials[:k], seed=k) for k in range(3))
    dx, dw = op.run(dy=dy.reshape(11, 1819), x=x.reshape(11, 1819), w=w.reshape(11, 1819))
    want = ref_gate_pair(dy, x, w)
    assert dx.shape == dw.shape == (11, 1819)
    assert_bits_equal(dx.reshape(-1), want[0], f"gate_pair dx {dtype.__name__}")
    assert_bits_equal(dw.reshape(-1), want[1], f"gate_pair dw {dtype.__name__}")


def test_each_output_reads_the_inputs_it_needs():
    op = read_kernel(KERNELS / "bytes_relu_mask")
    from swishgrad_numba.reader.byte_tensors import for_output

    d = read_kernel(KERNELS / "brc_gate_pair").description
    assert [g for g, _ in for_output(d, "dw").body("float32").inputs] == ["dy", "x"]
    assert [g for g, _ in for_output(d, "dx").body("float32").inputs] == ["dy", "x", "w"]
    assert op.program("float32").output.name == "yLocal"         # the first output's, by default


def test_is_finite_writing_a_bool_global_tensor(tmp_path):
    """``GlobalTensor<bool>`` over the output, as IsFinite-style kernels declare it: one byte an element, the
    cores' offsets counted in bytes (8 cores)."""
    folder, path = fixture_variant(tmp_path, "bytes_isfinite", "GlobalTensor<uint8_t> yGm;", "GlobalTensor<bool> yGm;",
                                   "op_kernel/is_finite_custom.cpp")
    path.write_text(path.read_text().replace("(__gm__ uint8_t*)y", "(__gm__ bool*)y"))
    x = _inputs(8 * 4 * 128, F16, 3e4, (np.nan, np.inf, -np.inf, 65504.0, -0.0))
    _assert_same(read_kernel(folder).run(x=x), ref_is_finite(x), "isfinite bool")

"""GM inputs read at offsets of their own (issue 43, reader.split_loads): a GLU's row halves, 2-D copies.

The fixture ``glu_split_swiglu`` (a tutorial-style SwiGLU: each row of x split into its halves by two
2-D ``DataCopyPad``s, its host's tiling function in op_host) is run on its own schedule and compared bit
for bit with NumPy written instruction by instruction; what the schedule cannot follow is refused at its
line. Where ops-nn is checked out (``SWISHGRAD_OPS_NN``, default /work/opsnn), its gelu_mul and fatrelu_mul
(rows of one or several blocks, a long row in chunks) are checked the same way.
"""
import os
from pathlib import Path

import numpy as np
import pytest

from reader_variants import KERNELS, fixture_variant, refusal
from reference import DTYPES, SPECIALS, assert_bits_equal, ref_exp_f32
from reference_activations_tier2 import compare, maxs, mins
from reference_family import narrow

from swishgrad_numba.ops import read_kernel
from swishgrad_numba.reader import KernelSourceError

F32 = np.float32
FIXTURE = "glu_split_swiglu"
OPS_NN = Path(os.environ.get("SWISHGRAD_OPS_NN", "/work/opsnn"))


def _inputs(shape, dtype, seed):
    rng = np.random.default_rng(seed)
    x = rng.uniform(-6, 6, int(np.prod(shape)))
    sp = rng.random(x.size) < 0.1
    x[sp] = rng.choice(SPECIALS, sp.sum())
    with np.errstate(over="ignore"):
        return x.astype(F32).astype(DTYPES[dtype]).reshape(shape)


def _halves(x):
    h = x.shape[-1] // 2
    return x[..., :h].astype(F32), x[..., h:].astype(F32)


def _out(values, dtype):
    return values if dtype == "float32" else narrow(values, DTYPES[dtype], ties_away=False)


def swiglu_ref(x, dtype):
    """The fixture's Compute: Muls -1, Exp, Adds 1, Div, Mul (in float32), Cast CAST_RINT."""
    g, u = _halves(x)
    with np.errstate(all="ignore"):
        t = g * F32(-1.0)
        t = ref_exp_f32(t)
        t = t + F32(1.0)
        t = g / t
        t = t * u
    return _out(t, dtype)


@pytest.fixture(scope="module")
def swiglu():
    return read_kernel(KERNELS / FIXTURE)


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
@pytest.mark.parametrize("shape", [(500, 74), (3, 5, 130), (1, 2), (97, 2)])
def test_swiglu_halves_bit_for_bit(swiglu, dtype, shape):
    x = _inputs(shape, dtype, hash(shape) & 0xFFFF)
    y = swiglu.run(x=x)
    assert y.shape == shape[:-1] + (shape[-1] // 2,)
    assert_bits_equal(y, swiglu_ref(x, dtype), f"{dtype} {shape}")


@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
def test_given_tiling_tiles_of_several_rows_with_a_tail(swiglu, dtype):
    """3 rows a tile on 5 cores: 2-D copies of 3 rows and shorter last tiles (23 rows: 5, 5, 5, 4, 4)."""
    x = _inputs((23, 2 * 19), dtype, 7)
    tiling = dict(rowNum=23, halfLen=19, rowsPerCore=4, usedCores=5, tileRows=3)
    y = swiglu.run(x=x, tiling=tiling, block_dim=5)
    assert_bits_equal(y, swiglu_ref(x, dtype), dtype)


def test_the_schedule_records_each_load_at_its_rows(swiglu):
    from swishgrad_numba.dtypes import dtype_info
    from swishgrad_numba.reader.launch_plan import schedule
    from swishgrad_numba.tiling.records import checked_record

    record = checked_record(swiglu.record_dtype, dict(rowNum=4, halfLen=10, rowsPerCore=4, usedCores=1,
                                                      tileRows=4), argname="tiling")

    class Launch:
        data, block_dim, tiling_key = record, 1, 0
    (tiles,) = schedule(swiglu, Launch, dtype_info("float32"))
    (tile,) = tiles
    # a float32 row of 10 elements is 40 bytes, 64 in the buffer (16 elements); x's rows are 20 apart
    assert tile.rows == tuple((16 * r, 10 * r, 10) for r in range(4))
    loads = {name: rows for name, _, rows, _ in tile.loads}
    assert loads["gate"] == tuple((16 * r, 20 * r, 10) for r in range(4))
    assert loads["up"] == tuple((16 * r, 20 * r + 10, 10) for r in range(4))


def test_odd_last_dimension_is_refused(swiglu):
    with pytest.raises(ValueError, match="even"):
        swiglu.run(x=np.zeros((3, 5), dtype=np.float32))


_ROW = "(uint32_t)(halfLen * sizeof(T))"
_PARAMS = f"DataCopyExtParams params{{(uint16_t)rows, {_ROW}, {_ROW},"


@pytest.mark.parametrize("old, new, at, words", [
    # the second half copied one row a tile while the store writes them all: elements no load filled
    ("DataCopyPad(up, xGm[row * 2 * halfLen + halfLen], params, pad);",
     "DataCopyPad(up, xGm[row * 2 * halfLen + halfLen], DataCopyExtParams{1, (uint32_t)(halfLen * sizeof(T)), "
     "0, 0, 0}, pad);", "DataCopyPad(up,", "does not fill"),
    # a row a byte short of whole elements
    (_PARAMS, f"DataCopyExtParams params{{(uint16_t)rows, (uint32_t)(halfLen * sizeof(T) - 1), {_ROW},",
     "DataCopyPad(gate,", "not a whole number of elements"),
    # a GM stride that is not whole elements
    (_PARAMS, f"DataCopyExtParams params{{(uint16_t)rows, {_ROW}, (uint32_t)(halfLen * sizeof(T) + 1),",
     "DataCopyPad(gate,", "GM stride"),
])
def test_what_the_schedule_cannot_follow_is_refused_at_its_line(tmp_path, old, new, at, words):
    folder, path = fixture_variant(tmp_path, FIXTURE, old, new)
    op = read_kernel(folder)
    with pytest.raises(KernelSourceError) as e:
        op.run(x=np.ones((8, 2 * 12), dtype=np.float32), block_dim=1,
               tiling=dict(rowNum=8, halfLen=12, rowsPerCore=8, usedCores=1, tileRows=4))
    line = next(i for i, t in enumerate(path.read_text().splitlines(), 1) if at in t)
    assert (e.value.file, e.value.line) == (str(path), line)
    assert words in str(e.value)


def test_a_member_specialization_is_the_one_its_instance_runs(tmp_path):
    """``template <> void K<bfloat16_t>::Compute`` (ops-nn fatrelu_mul's form) runs for bfloat16 only."""
    spec = """
template <>
__aicore__ inline void SwigluSplitKernel<bfloat16_t>::Compute(uint32_t count)
{
    LocalTensor<bfloat16_t> gate = gateQ.DeQue<bfloat16_t>();
    LocalTensor<bfloat16_t> up = upQ.DeQue<bfloat16_t>();
    LocalTensor<bfloat16_t> out = outQ.AllocTensor<bfloat16_t>();
    LocalTensor<float> g = gateF.Get<float>();
    LocalTensor<float> u = upF.Get<float>();
    Cast(g, gate, RoundMode::CAST_NONE, count);
    Cast(u, up, RoundMode::CAST_NONE, count);
    Mul(g, g, u, count);
    Cast(out, g, RoundMode::CAST_RINT, count);
    outQ.EnQue(out);
    gateQ.FreeTensor(gate);
    upQ.FreeTensor(up);
}

extern "C" __global__"""
    folder, _ = fixture_variant(tmp_path, FIXTURE, '\nextern "C" __global__', spec)
    op = read_kernel(folder)
    x = _inputs((6, 2 * 16), "bfloat16", 3)
    g, u = _halves(x)
    with np.errstate(all="ignore"):
        assert_bits_equal(op.run(x=x), narrow(g * u, DTYPES["bfloat16"], ties_away=False), "bfloat16")
    x = _inputs((6, 2 * 16), "float16", 3)
    assert_bits_equal(op.run(x=x), swiglu_ref(x, "float16"), "float16")


# ---------------------------------------------------------------- ops-nn (where checked out)

needs_ops_nn = pytest.mark.skipif(not (OPS_NN / "activation" / "gelu_mul").is_dir(), reason="no ops-nn checkout")
_KEYS = {"float16": 1, "float32": 2, "bfloat16": 3}


def gelu_mul_ref(x, dtype, mode):
    a, b = _halves(x)
    with np.errstate(all="ignore"):
        if mode == 1:                                    # ComputeGeluTanh
            t = a * a
            t = a * t
            t = t * F32(0.044715)
            t = a + t
            t = t * F32(-1.5957691)
            t = ref_exp_f32(t)
            t = t + F32(1.0)
            a = a / t
        else:                                            # ComputeGeluErf (the A2's polynomial)
            a = maxs(a, F32(-13.15))
            t = mins(a, F32(5.751))
            sq = t * t
            t = sq * F32(-0.3512339572e-8)
            t = t + F32(0.2645266170e-6)
            for p in (-0.7929488134e-5, 0.1106123840e-3, 0.6518995814e-4, -0.7266616915e-1, -0.1595769883e1):
                t = t * sq
                t = t + F32(p)
            sq = mins(a, F32(5.751))
            t = t * sq
            t = ref_exp_f32(t)
            t = t + F32(1.0)
            a = a / t
        return _out(a * b, dtype)      # CopyOut's Cast: CAST_NONE (half), CAST_RINT: to nearest even


@needs_ops_nn
@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
@pytest.mark.parametrize("mode", [0, 1])
@pytest.mark.parametrize("rows, d, pp", [(37, 45, 4096), (5, 300, 128)])    # rows of blocks; a long row in chunks
def test_ops_nn_gelu_mul_bit_for_bit(dtype, mode, rows, d, pp):
    op = read_kernel(OPS_NN / "activation" / "gelu_mul")
    x = _inputs((rows, 2 * d), dtype, rows + d + mode)
    tiling = dict(lastDimSize=2 * d, batchSize=rows, approximateMode=mode, PPMaxCalNum=pp, needCoreNum=4)
    y = op.run(input=x, tiling=tiling, block_dim=4, tiling_key=_KEYS[dtype])
    assert_bits_equal(y, gelu_mul_ref(x, dtype, mode), f"{dtype} mode {mode}")


@needs_ops_nn
@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
@pytest.mark.parametrize("rows, d", [(41, 33), (3, 10 * 1024 + 77)])     # a long row: chunks of 10 * 1024
def test_ops_nn_fatrelu_mul_bit_for_bit(dtype, rows, d):
    op = read_kernel(OPS_NN / "activation" / "fatrelu_mul")
    x = _inputs((rows, 2 * d), dtype, rows + d)
    threshold = np.array([0.75], dtype=DTYPES[dtype])
    tiling = dict(lastDimSize=2 * d, batchSize=rows, needCoreNum=3)
    y = op.run(input=x, scalar=threshold, tiling=tiling, block_dim=3, tiling_key=_KEYS[dtype])
    a, b = _halves(x)
    with np.errstate(all="ignore"):
        kept = np.where(compare(a, np.full_like(a, threshold.astype(F32)[0]), "GT"), a, F32(0.0))
        assert_bits_equal(y, _out(kept * b, dtype), dtype)

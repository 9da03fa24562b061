"""Array fields of the tiling struct (issue 43: ops-nn's silu_grad declares its shapes with
``TILING_DATA_FIELD_DEF_ARR``): laid out as C lays them out, indexed by the kernel with an index computed on
the scalar unit (``t.coreLength[GetBlockIdx()]``), each core's schedule reading the launch's elements. The
fixture arr_core_spans is written for these tests; the spans and the reference are worked out here."""
from pathlib import Path

import numpy as np
import pytest

from reference import SPECIALS, assert_bits_equal, random_inputs
from reader_variants import fixture_edited, refusal

from swishgrad_numba.ops import read_kernel
from swishgrad_numba.reader import KernelSourceError

KERNELS = Path(__file__).parent / "fixtures" / "kernels"
F32 = np.float32
NAME = "arr_core_spans"


def spans(n, cores=6):
    """The host's loop: each core half of what is left, the last core the rest."""
    starts, lengths, done = [], [], 0
    for i in range(cores):
        left = n - done
        lengths.append(left if i == cores - 1 else left // 2)
        starts.append(done)
        done += lengths[-1]
    return starts, lengths


def ref(x, slope):
    """Muls(y, x, slope); Add(y, y, x): float32, each rounded once."""
    with np.errstate(all="ignore"):
        return x * F32(slope) + x


@pytest.fixture(scope="module")
def op():
    return read_kernel(KERNELS / NAME)


def test_array_fields_are_laid_out_as_c_lays_them_out(op):
    d = op.record_dtype
    assert d.names == ("tileLength", "coreStart", "coreLength", "slope")
    assert [d.fields[n][1] for n in d.names] == [0, 4, 28, 52] and d.itemsize == 56
    assert d.fields["coreStart"][0].shape == (6,) and d.fields["coreStart"][0].base == np.dtype("<u4")


def _tiling(n, slope=0.25, tile=768, lengths=None):
    starts, own = spans(n)
    return {"tileLength": tile, "coreStart": starts, "coreLength": lengths or own, "slope": slope}


@pytest.mark.parametrize("n", [10_007, 4_099, 5 * 768 + 1])
def test_each_core_reads_its_span_from_the_arrays_bit_for_bit(op, n):
    x = np.concatenate([random_inputs(np.random.default_rng(n), n - SPECIALS.size, F32)[1], SPECIALS.astype(F32)]) \
        if n > SPECIALS.size else np.linspace(-2, 2, n).astype(F32)
    assert_bits_equal(op.run(x=x, tiling=_tiling(n, -1.5), block_dim=6), ref(x, -1.5), f"n={n}")


def test_a_span_the_arrays_leave_out_is_not_written(op):
    # the elements are what the schedule reads: core 2 ten elements short leaves them as the output was (zero)
    n = 10_007
    starts, lengths = spans(n)
    short = list(lengths)
    short[2] -= 10
    x = np.linspace(1.0, 2.0, n).astype(F32)
    got = op.run(x=x, tiling=_tiling(n, lengths=short), block_dim=6)
    gap = slice(starts[2] + short[2], starts[2] + lengths[2])
    assert np.all(got[gap] == 0)
    keep = np.ones(n, bool)
    keep[gap] = False
    assert_bits_equal(got[keep], ref(x, 0.25)[keep], "outside the gap")


def test_the_host_loop_that_fills_them_asks_for_tiling(op):
    with pytest.raises(KernelSourceError, match="pass tiling=") as e:
        op.run(x=np.ones(64, F32))
    assert e.value.file.endswith("arr_core_spans.cpp") and e.value.line == 14


def test_a_kernel_side_array_field_reads_too(tmp_path):
    # the struct declared in op_kernel (no op_host): the same layout and the same run
    folder = fixture_edited(tmp_path, NAME, [(f"op_kernel/{NAME}.cpp", '#include "kernel_operator.h"\n',
                                              '#include "kernel_operator.h"\nconstexpr uint32_t CORES = 6;\n'
                                              "struct ArrCoreSpansTilingData {\n    uint32_t tileLength;\n"
                                              "    uint32_t coreStart[CORES];\n    uint32_t coreLength[6];\n"
                                              "    float slope;\n};\n"),
                                             (f"op_kernel/{NAME}.cpp", "GET_TILING_DATA(tilingData, tiling);",
                                              "GET_TILING_DATA_WITH_STRUCT(ArrCoreSpansTilingData, tilingData, "
                                              "tiling);")])
    import shutil
    shutil.rmtree(folder / "op_host")
    op = read_kernel(folder)
    assert op.record_dtype.itemsize == 56
    x = np.linspace(-3, 3, 4000).astype(F32)
    assert_bits_equal(op.run(x=x, tiling=_tiling(4000), block_dim=6), ref(x, 0.25), "kernel-side struct")


def test_an_index_past_the_array_is_refused(tmp_path):
    err, path = refusal(tmp_path, NAME, "length_ = t.coreLength[core];", "length_ = t.coreLength[6];")
    assert "index 6 outside the 6 elements of coreLength" in str(err) and err.file == str(path)
    assert "coreLength[6]" in path.read_text().splitlines()[err.line - 1]


def test_a_float_array_element_is_refused(tmp_path):
    # a float array's element would be an attribute per index: not read
    folder = fixture_edited(tmp_path, NAME, [
        (f"op_host/{NAME}_tiling.h", "TILING_DATA_FIELD_DEF(float, slope);", "TILING_DATA_FIELD_DEF_ARR(float, 2, slope);"),
        (f"op_kernel/{NAME}.cpp", "slope_ = t.slope;", "slope_ = t.slope[0];")])
    with pytest.raises(KernelSourceError, match="element of the float array field slope") as e:
        read_kernel(folder)
    assert e.value.file.endswith(f"{NAME}.cpp") and e.value.line == 12

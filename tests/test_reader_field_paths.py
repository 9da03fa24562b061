"""An optional input switched on a tiling flag (issue 43, reader/field_paths.py), as ops-nn's MishGrad switches
its tanhx: ``if (haveY == 1)`` loads y, ``if (haveY == 0)`` computes without it. The path where the flag is
neither 0 nor 1 reads a y no copy loaded: it is left out, and a record that takes it is refused at launch.
The select_leaky fixture (written for the reader's tests) so edited, run bit for bit against plain references
written here for both flags."""
import numpy as np
import pytest

from reference import assert_bits_equal
from reader_variants import fixture_edited
from test_reader_compare import _inputs, ref_select_leaky

from swishgrad_numba.ops import read_kernel
from swishgrad_numba.reader import KernelSourceError

F32 = np.float32
KERNEL = "op_kernel/select_leaky.cpp"
COMPARE = ("        Compare(mask, zLocal, yLocal, CMPMODE::LT, this->tileLength);\n"
           "        Select(zLocal, mask, yLocal, zLocal, SELMODE::VSEL_TENSOR_TENSOR_MODE, this->tileLength);\n")
EDITS = [
    ("op_host/select_leaky_tiling.h", "TILING_DATA_FIELD_DEF(uint32_t, tileNum);",
     "TILING_DATA_FIELD_DEF(uint32_t, tileNum);\n    TILING_DATA_FIELD_DEF(uint32_t, haveY);"),
    ("op_host/select_leaky.cpp", "tiling.set_tileNum(4);", "tiling.set_tileNum(4);\n    tiling.set_haveY(1);"),
    (KERNEL, "tilingData.tileNum);", "tilingData.tileNum, tilingData.haveY);"),
    (KERNEL, "uint32_t tileNum)\n    {", "uint32_t tileNum, uint32_t haveY)\n    {\n        this->haveY = haveY;"),
    (KERNEL, "uint32_t blockLength, tileNum, tileLength;", "uint32_t blockLength, tileNum, tileLength, haveY;"),
    (KERNEL, "        DataCopy(yLocal, yGm[progress * this->tileLength], this->tileLength);\n",
     "        if (this->haveY == 1) {\n            DataCopy(yLocal, yGm[progress * this->tileLength], "
     "this->tileLength);\n        }\n"),
    (KERNEL, COMPARE, "        if (this->haveY == 0) {\n            Muls(zLocal, zLocal, (T)2.0f, this->tileLength);\n"
     "        } else {\n" + COMPARE + "        }\n"),
]


def ref_without_y(x):
    """The haveY == 0 path: x where x > 0, else x * 0.2f; doubled; 0 where x < 3 (NaN compares false)."""
    with np.errstate(all="ignore"):
        z = np.where(x > 0, x, x * F32(0.2)) * F32(2.0)
        return np.where(x >= 3, z, F32(0)).astype(F32)


@pytest.fixture(scope="module")
def optional(tmp_path_factory):
    return read_kernel(fixture_edited(tmp_path_factory.mktemp("optional"), "select_leaky", EDITS))


def test_the_flags_two_values_are_read_and_the_path_of_neither_is_not(optional):
    assert set(optional.variants("float32")) == {"haveY == 1", "haveY == 0"}


def test_each_flag_runs_bit_for_bit(optional):
    x, y = _inputs("float32")
    assert_bits_equal(optional.run(x=x, y=y), ref_select_leaky(x, y, "float32"), "haveY 1 (the host's)")
    got = optional.run(x=x, y=y, tiling={"totalLength": x.size, "tileNum": 4, "haveY": 0}, block_dim=4)
    assert_bits_equal(got, ref_without_y(x), "haveY 0")


def test_a_record_on_the_path_left_out_is_refused(optional):
    x, y = _inputs("float32")
    # the tile's calls are haveY == 1's, the branch that loads y went the other way (.variant_ways)
    with pytest.raises(KernelSourceError, match=r"takes `if \(this->haveY == 1\)` false.*path it takes was not read") as e:
        optional.run(x=x, y=y, tiling={"totalLength": x.size, "tileNum": 4, "haveY": 2}, block_dim=4)
    assert e.value.file.endswith("select_leaky.cpp") and e.value.line > 0

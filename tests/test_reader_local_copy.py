"""``DataCopy(dst, src, n)`` between two local tensors (issue 43, reader/local_copy.py): the copy is
forwarded to the calls that read ``dst``. The select_leaky fixture (written for the reader's tests) with its
scaled tensor staged through a UB copy, and with its result built in a scratch buffer and copied into the
output queue's tensor, run bit for bit against test_reader_compare's plain reference; what the forwarding
cannot carry refused at its line."""
import numpy as np
import pytest

from reference import assert_bits_equal
from reader_variants import fixture_variant
from test_reader_compare import _inputs, ref_select_leaky

from swishgrad_numba.ops import read_kernel
from swishgrad_numba.reader import KernelSourceError

SCALE = "Muls(tmp, xLocal, (T)0.2f, this->tileLength);"
STAGED = "DataCopy(tmp, xLocal, this->tileLength);\n        Muls(tmp, tmp, (T)0.2f, this->tileLength);"
LAST = "AscendC::Select(zLocal, mask, zLocal, static_cast<T>(0.0f)"
ENQUE = "outQueueZ.EnQue<T>(zLocal);"


def staged(tmp_path, scale=STAGED):
    folder, path = fixture_variant(tmp_path, "select_leaky", SCALE, scale)
    return folder, path


def line_of(path, text):
    return next(i for i, t in enumerate(path.read_text().splitlines(), 1) if text in t)


@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_a_copy_then_an_in_place_call_reads_the_source(tmp_path, dtype):
    folder, _ = staged(tmp_path)
    op = read_kernel(folder)
    assert str(op.program("float32")).splitlines()[1].startswith("    Muls(tmp, xLocal, ")     # forwarded
    x, y = _inputs(dtype)
    assert_bits_equal(op.run(x=x, y=y), ref_select_leaky(x, y, dtype), f"staged select_leaky {dtype}")


def test_a_result_copied_into_the_output_tensor_is_stored(tmp_path):
    folder, path = staged(tmp_path)
    text = path.read_text().replace(LAST, "AscendC::Select(tmp, mask, zLocal, static_cast<T>(0.0f)")
    path.write_text(text.replace(ENQUE, "DataCopy(zLocal, tmp, this->tileLength);\n        " + ENQUE))
    x, y = _inputs("float32")
    assert_bits_equal(read_kernel(folder).run(x=x, y=y), ref_select_leaky(x, y, "float32"), "copied out")


@pytest.mark.parametrize("scale, at, words", [
    # the source written again before the copy is read: the copy holds bytes the program no longer has
    (STAGED.replace("\n        Muls(tmp", "\n        Muls(xLocal, xLocal, (T)2.0f, this->tileLength);\n"
                    "        Muls(tmp"), "Muls(tmp, tmp", "Muls reading tmp"),
    ("DataCopy(mask, xLocal, this->tileLength);\n        " + SCALE, "DataCopy(mask", "to uint8"),
    ("DataCopy(tmp, xLocal, 64);\n        Muls(tmp, tmp, (T)0.2f, this->tileLength);", "DataCopy(tmp",
     "covers part of a tile"),
])
def test_what_the_forwarding_cannot_carry_is_refused(tmp_path, scale, at, words):
    folder, path = staged(tmp_path, scale)
    with pytest.raises(KernelSourceError, match=words) as err:
        read_kernel(folder)
    assert err.value.line == line_of(path, at)

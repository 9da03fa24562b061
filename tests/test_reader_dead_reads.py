"""A call that reads a tensor nothing wrote and whose result is overwritten unread (issue 43,
reader/dead_reads.py): left out of the program, still counted among the calls a core's tile makes. The
select_leaky fixture (written for the reader's tests) with such a call (``Abs`` of the output queue's fresh
tensor into the scratch buffer the next call writes whole), run bit for bit against test_reader_compare's plain
reference on its own launch; a read of that result refused at the call that reads the unwritten tensor."""
import pytest

from reference import assert_bits_equal
from reader_variants import fixture_variant
from test_reader_compare import _inputs, ref_select_leaky

from swishgrad_numba.ops import read_kernel
from swishgrad_numba.reader import KernelSourceError

SCALE = "Muls(tmp, xLocal, (T)0.2f, this->tileLength);"
DEAD = "Abs(tmp, zLocal, this->tileLength);\n        "


def test_a_dead_read_of_a_fresh_tensor_is_left_out(tmp_path):
    folder, _ = fixture_variant(tmp_path, "select_leaky", SCALE, DEAD + SCALE)
    op = read_kernel(folder)
    body = op.description.body("float32")
    assert [s.op for s in body.steps][:2] == ["Muls", "CompareScalar"]
    assert [c[0] for c in body.called][:3] == ["Abs", "Muls", "CompareScalar"]
    x, y = _inputs("float32")
    assert_bits_equal(op.run(x=x, y=y), ref_select_leaky(x, y, "float32"), "dead Abs")


def test_a_read_of_its_result_is_refused_at_the_unwritten_read(tmp_path):
    folder, path = fixture_variant(tmp_path, "select_leaky", SCALE,
                                   DEAD + "Mul(tmp, tmp, xLocal, this->tileLength);")
    with pytest.raises(KernelSourceError, match="Abs reading zLocal: nothing writes") as err:
        read_kernel(folder)
    assert err.value.line == next(i for i, t in enumerate(path.read_text().splitlines(), 1) if "Abs(tmp" in t)

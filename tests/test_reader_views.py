"""ReinterpretCast views that change the element type (issue 43): each a tensor of its own, read only where it
holds the bytes. The fixture view_sign_mask (written for these tests) widens x in place through a float view
of its queue buffer, takes the sign bit through a uint32_t view (ShiftRight) and an int32_t view (Cast), and
keeps a Compare mask in a part of a float TBuf seen as uint8_t. The reference is written here instruction by
instruction with NumPy on the bits."""
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

from reference import SPECIALS, assert_bits_equal, random_inputs
from reference_family import narrow
from reader_variants import refusal

from swishgrad_numba.ops import read_kernel

KERNELS = Path(__file__).parent / "fixtures" / "kernels"
F32 = np.float32
NUMPY = {"float32": np.float32, "float16": np.float16, "bfloat16": ml_dtypes.bfloat16}


def ref_view_sign_mask(x):
    """xf = x widened (float32: x + 0.0f, so -0 is +0); s = float(bits(xf) >> 31); scaled = xf * 0.25f;
    r = (s > 0.5 ? scaled : xf) + s; then narrowed to x's dtype (CAST_RINT)."""
    xf = x + F32(0.0) if x.dtype == F32 else x.astype(F32)
    s = (xf.view(np.uint32) >> np.uint32(31)).astype(np.int32).astype(F32)
    with np.errstate(all="ignore"):
        r = np.where(s > F32(0.5), xf * F32(0.25), xf) + s
    return r if x.dtype == F32 else narrow(r, x.dtype, ties_away=False)


def _inputs(dtype):
    if dtype != "float32":           # every 16-bit pattern
        return np.arange(65536, dtype=np.uint32).astype(np.uint16).view(NUMPY[dtype])
    rng = np.random.default_rng(31)
    return np.concatenate([random_inputs(rng, 5000, F32)[1], SPECIALS.astype(F32), -SPECIALS.astype(F32)])


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
def test_views_of_other_types_compute_bit_for_bit(dtype):
    x = _inputs(dtype)
    got = read_kernel(KERNELS / "view_sign_mask").run(x=x)
    assert_bits_equal(got, ref_view_sign_mask(x), f"view_sign_mask {dtype}")


def test_the_views_are_tensors_of_their_own_in_the_program():
    program = read_kernel(KERNELS / "view_sign_mask").program("float16")
    dtypes = {t.name: t.dtype for t in program.locals}
    assert dtypes["xf"] == "float32" and dtypes["mask"] == "uint8" and "int32" in dtypes.values(), dtypes
    shift = next(i for i in program.body if i.op == "ShiftRight")
    assert shift.args[1] == "xf", shift          # the float32 tensor's bits as uint32


def _line(path, text):
    return next(i for i, s in enumerate(Path(path).read_text().splitlines(), 1) if text in s)


_CAST_HALF = "AscendC::Cast(xf, xLocal, AscendC::RoundMode::CAST_NONE, n);"


@pytest.mark.parametrize("old, new, words", [
    # the mask over the bytes of the part the Select then reads (refused at the Select)
    ("= full[2 * n].template ReinterpretCast<uint8_t>();", "= full[n].template ReinterpretCast<uint8_t>();",
     "Select reading scaled: its bytes were last written as uint8 through mask"),
    # x read again after the float view's widening wrote over its bytes
    (_CAST_HALF, _CAST_HALF + " AscendC::Cast(scaled, xLocal, AscendC::RoundMode::CAST_NONE, n);",
     "Cast reading xLocal: its bytes were last written as float32 through xf"),
    ("AscendC::Cast(sign, sign.ReinterpretCast<int32_t>(),", "AscendC::Cast(sign, sign.ReinterpretCast<uint32_t>(),",
     "Cast of a uint32_t tensor"),
    ("AscendC::DataCopy(buf[this->tileLength], xGm", "AscendC::DataCopy(buf.template ReinterpretCast<int16_t>(), xGm",
     "DataCopy into a ReinterpretCast view"),
    ("= full[2 * n].template ReinterpretCast<uint8_t>();", "= full[2 * n].template ReinterpretCast<uint64_t>();",
     "ReinterpretCast: a float32 tensor as uint64_t"),
])
def test_a_view_read_where_it_does_not_hold_the_bytes_is_refused_at_its_line(tmp_path, old, new, words):
    err, path = refusal(tmp_path, "view_sign_mask", old, new)
    at = "AscendC::Select(scaled" if "Select reading" in words else new
    assert (err.file, err.line) == (str(path), _line(path, at)) and words in str(err), str(err)

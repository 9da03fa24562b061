"""Compare masks combined through their 16-bit words: ``And``, ``Or`` and ``Not`` on
``mask.ReinterpretCast<uint16_t>()``, and a Select through ``half`` views of bfloat16 tensors (issue 43,
:mod:`swishgrad_numba.reader.mask_words`, :mod:`swishgrad_numba.reader.select_views`). The fixture
(clip_pass_grad) is written for these tests in the samples' style and runs on its own op_host tiling; the
reference is NumPy, comparison by comparison, bit by bit."""
import re
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

from reference import assert_bits_equal
from reader_variants import fixture_variant, refusal

from swishgrad_numba.ops import read_kernel
from swishgrad_numba.reader import KernelSourceError

KERNELS = Path(__file__).parent / "fixtures" / "kernels"
_NUMPY = {"float32": np.float32, "float16": np.float16, "bfloat16": ml_dtypes.bfloat16}
_TILE = 2 * 2 * 2          # cores * tiles * buffers: each tile is n / 8 elements


def ref_clip_pass_grad(dy, x, lower, upper):
    """keep = Not(Or(x < lower, x > upper)) And (dy != 0), compared in float32; dx = keep ? dy : +0."""
    xf, dyf = x.astype(np.float32), dy.astype(np.float32)
    below = xf < np.float32(lower)
    above = xf > np.float32(upper)
    keep = ~(below | above) & (dyf != np.float32(0))
    return np.where(keep, dy, np.zeros_like(dy))


def _inputs(dtype, n=_TILE * 256, seed=3):
    rng = np.random.default_rng(seed)
    x = rng.normal(0, 2, n)
    dy = rng.normal(0, 1, n)
    x[:8] = [np.nan, np.inf, -np.inf, -1.0, 2.5, -1.0000001, 2.5000002, -0.0]
    dy[8:14] = [0.0, -0.0, np.nan, np.inf, -np.inf, 1e-40]
    return dy.astype(_NUMPY[dtype]), x.astype(_NUMPY[dtype])


@pytest.fixture(scope="module")
def clip():
    return read_kernel(KERNELS / "clip_pass_grad")


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
def test_mask_words_bit_for_bit(clip, dtype):
    dy, x = _inputs(dtype)
    assert_bits_equal(clip.run(dy=dy, x=x), ref_clip_pass_grad(dy, x, -1.0, 2.5), f"clip_pass_grad {dtype}")
    assert_bits_equal(clip.run(dy=dy, x=x, lower=0.25, upper=0.5), ref_clip_pass_grad(dy, x, 0.25, 0.5),
                      f"clip_pass_grad {dtype} with attributes")


def test_the_words_are_the_masks_own_instructions(clip):
    text = str(clip.program("float32"))
    assert "Or(keep, keep, above)" in text and "Not(keep, keep)" in text and "And(keep, keep, nonzero)" in text
    bf16 = str(clip.program("bfloat16"))     # the half views are the bfloat16 buffers themselves
    assert not re.search(r"\bfloat16\b", bf16) and "0.0f, keep)" in bf16


@pytest.mark.parametrize("n, covered", [(_TILE * 8, 0), (_TILE * 24, 16)])
def test_a_tile_the_words_do_not_cover_is_refused_at_launch(clip, n, covered):
    # n / 16 words leave a tile's last n % 16 bits as they were: not what the program computes
    dy, x = _inputs("float32", n)
    with pytest.raises(KernelSourceError) as e:
        clip.run(dy=dy, x=x)
    assert e.value.line == 60 and f"Or over {covered} elements" in str(e.value), str(e.value)


@pytest.mark.parametrize("old, new, words", [
    ("Not(keep.ReinterpretCast<uint16_t>(), keep.ReinterpretCast<uint16_t>(), words);",
     "Not(xf, xf, this->tileLength);", "Not on float32 tensors"),
    ("And(keep.ReinterpretCast<uint16_t>(), keep.ReinterpretCast<uint16_t>(),",
     "And(keep.ReinterpretCast<uint16_t>(), keep.ReinterpretCast<uint16_t>(), xf.ReinterpretCast<uint16_t>(),"
     " words); Muls(xf, xf, 1.0f, this->tileLength); And(keep.ReinterpretCast<uint16_t>(),"
     " keep.ReinterpretCast<uint16_t>(),", "with another tensor"),
    ("Or(keep.ReinterpretCast<uint16_t>(), keep.ReinterpretCast<uint16_t>(), above.ReinterpretCast<uint16_t>(),",
     "Or(keep, keep, above,", "Or on uint8 tensors"),
])
def test_what_is_not_read_is_refused_at_its_line(tmp_path, old, new, words):
    err, path = refusal(tmp_path, "clip_pass_grad", old, new)
    line = next(i for i, text in enumerate(path.read_text().splitlines(), 1) if new.split("(")[0] + "(" in text
                and new[:12] in text)
    assert err.line == line and words in str(err), str(err)


def test_a_select_through_half_views_of_float32_is_not_rewritten(tmp_path):
    # only half views of bfloat16 buffers are a bit move of the buffers: a float32 one is the bit views' refusal
    folder, _ = fixture_variant(tmp_path, "clip_pass_grad", "Select(dxLocal, keep, dyLocal, 0.0f,",
                                "Select(dxLocal.template ReinterpretCast<half>(), keep, "
                                "dyLocal.template ReinterpretCast<half>(), static_cast<half>(0),")
    with pytest.raises(KernelSourceError):
        read_kernel(folder).run(dy=np.ones(_TILE * 256, np.float32), x=np.ones(_TILE * 256, np.float32))


def test_a_uint8_tensor_no_compare_wrote_is_not_read_as_a_mask(tmp_path):
    # a Cast's uint8 holds a number per byte: its 16-bit words are not a mask's bits, so they are not read so
    folder, _ = fixture_variant(tmp_path, "clip_pass_grad",
                                "CompareScalar(nonzero, dyf, 0.0f, CMPMODE::NE, this->tileLength);",
                                "Cast(nonzero, dyf, RoundMode::CAST_RINT, this->tileLength);")
    with pytest.raises(KernelSourceError) as e:
        read_kernel(folder)
    assert e.value.line == 65 and "And of a mask's 16-bit view with another tensor" in str(e.value), str(e.value)

"""An attribute's aliases (issue 40, ``Attribute(..., aliases=)``): the generated ``swish_backward`` takes beta
as ``scale=`` or ``sconf=`` too, as the hand-written face did; and a generated face names a non-native byte
order (the hand-written face's message, now every generated face's)."""
import inspect
import sys

import numpy as np
import pytest

import swishgrad_numba as sg
from reference import assert_bits_equal, ref_swish_grad


def _pair():
    rng = np.random.default_rng(40)
    return (rng.uniform(-2, 2, 37).astype(np.float32), rng.uniform(-6, 6, 37).astype(np.float32))


def test_the_signature_is_the_hand_written_one():
    assert str(inspect.signature(sg.swish_backward)) == \
        "(grad_output, x, beta=None, *, out=None, platform=None, scale=None, sconf=None)"


@pytest.mark.parametrize("spelling", ["beta", "scale", "sconf"])
def test_each_spelling_is_beta(spelling):
    g, x = _pair()
    assert_bits_equal(sg.swish_backward(g, x, **{spelling: 1.7}), ref_swish_grad(g, x, 1.7), spelling)


def test_no_spelling_is_the_default():
    g, x = _pair()
    assert_bits_equal(sg.swish_backward(g, x), ref_swish_grad(g, x, 1.0), "default")


def test_two_spellings_are_refused_and_a_bad_value_is_named_by_its_spelling():
    g, x = _pair()
    with pytest.raises(TypeError, match=r"beta was given more than once \(as beta, sconf\); use beta"):
        sg.swish_backward(g, x, 1.1, sconf=1.1)
    with pytest.raises(TypeError, match=r"as scale, sconf"):
        sg.swish_backward(g, x, scale=1.1, sconf=1.1)
    with pytest.raises(TypeError, match="^scale must be a real number"):
        sg.swish_backward(g, x, scale="1.1")


def test_other_faces_take_no_alias():
    x = _pair()[1]
    with pytest.raises(TypeError):
        sg.swish(x, scale=1.1)


def test_a_generated_face_names_a_non_native_byte_order():
    swapped = "<" if sys.byteorder == "big" else ">"
    x = _pair()[1].astype(np.dtype(np.float32).newbyteorder(swapped))
    with pytest.raises(ValueError, match=r"^x\.dtype must be in the machine's byte order; got (big|little)-endian "
                                         r"float32"):
        sg.sigmoid(x)

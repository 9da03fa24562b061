"""engine.entry: a jitted function's entry point kept per the forms of the arrays that vary (issue 39)."""
import numpy as np
import pytest
from numba import njit

from reference import assert_bits_equal

from swishgrad_numba.engine.entry import Entries, array_form


@njit(cache=True)
def _scaled_into(scale, ins, out):
    """out = ins[0] * scale + ins[1], in the arrays' own dtype."""
    a, b = ins
    for i in range(out.shape[0]):
        out[i] = a[i] * scale + b[i]


def _unaligned(values: np.ndarray) -> np.ndarray:
    """A copy of ``values`` one byte off its dtype's alignment."""
    raw = np.zeros(values.nbytes + 1, np.uint8)
    got = raw[1:].view(values.dtype)
    got[...] = values
    assert not got.flags.aligned
    return got


def _forms(n: int):
    """(ins, out) of float32, float64, int16, read-only inputs and unaligned arrays: each a form of its own."""
    rng = np.random.default_rng(5)
    for dtype in (np.float32, np.float64, np.int16):
        a = rng.integers(-100, 100, n).astype(dtype)
        b = rng.integers(-100, 100, n).astype(dtype)
        yield (a, b), np.zeros(n, dtype)
    a, b = (rng.uniform(-1, 1, n).astype(np.float32) for _ in range(2))
    ra, rb = a.copy(), b.copy()
    ra.flags.writeable = rb.flags.writeable = False
    yield (ra, rb), np.zeros(n, np.float32)
    yield (_unaligned(a), b), _unaligned(np.zeros(n, np.float32))


def _want(ins, out):
    a, b = ins
    return (a * out.dtype.type(3) + b).astype(out.dtype)


def test_each_form_gets_its_own_overload_and_the_dispatchers_bits():
    """Every call of every form, first and again, writes what NumPy computes in that dtype: an entry point kept
    for one form and called with another would read the arrays as the wrong type."""
    entries = Entries(_scaled_into)
    forms = list(_forms(1001))
    for turn in range(2):
        for ins, out in forms:
            out[...] = 0
            entries.call((out.dtype.type(3), ins, out), ins + (out,))
            assert_bits_equal(out, _want(ins, out), f"{out.dtype} turn {turn}")
    assert len(entries) == len(forms)


def test_an_entry_is_the_compiled_overload_and_a_function_without_overloads_is_called_as_it_is():
    ins, out = next(_forms(64))
    entries = Entries(_scaled_into)
    entries.call((np.float32(3), ins, out), ins + (out,))
    (entry,) = entries._kept.values()
    assert entry is not _scaled_into and entry is _scaled_into.overloads[
        tuple(_scaled_into.typeof_pyval(v) for v in (np.float32(3), ins, out))].entry_point
    seen = []
    plain = Entries(lambda *args: seen.append(args))
    for _ in range(2):
        plain.call((1, ins, out), ins + (out,))
    assert len(seen) == 2


@pytest.mark.parametrize("change", ["dtype", "ndim", "layout", "writeable", "aligned"])
def test_a_form_tells_apart_what_numbas_array_type_tells_apart(change):
    a = np.zeros(16, np.float32)
    b = {"dtype": lambda: np.zeros(16, np.int32), "ndim": lambda: np.zeros((4, 4), np.float32),
         "layout": lambda: np.zeros(32, np.float32)[::2], "aligned": lambda: _unaligned(a)}.get(change)
    if b is None:
        b = a.copy()
        b.flags.writeable = False
    else:
        b = b()
    assert array_form(a) != array_form(b)
    assert array_form(a) == array_form(a.copy())

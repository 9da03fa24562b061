"""C++ outside the first subset (issue 43): an array read from its initialiser, a non-const global, a member
template, ``typename X<T>::Type`` and ``std::conditional_t``, in a course-style fixture written for these
tests (course_poly), bit for bit against a reference written here instruction by instruction; what the
reader cannot follow refused at its line."""
from pathlib import Path

import numpy as np
import pytest

from activation_checks import every16
from reference import SPECIALS, assert_bits_equal, random_inputs
from reference_family import narrow
from reader_variants import fixture_variant

from swishgrad_numba.ops import read_kernel
from swishgrad_numba.reader import KernelSourceError, read_source

KERNELS = Path(__file__).parent / "fixtures" / "kernels"
SOURCE = KERNELS / "course_poly" / "course_poly.cpp"
F32 = np.float32


def ref_course_poly(x):
    """Muls 0.5; Adds -1.25; Mul x; Adds 0.75; Mul x; Adds 2.0; Adds 0.125 (float32, each rounded);
    16-bit inputs widened exactly and the result narrowed with CAST_RINT."""
    with np.errstate(all="ignore"):
        w = x.astype(F32)
        acc = w * F32(0.5)
        acc = acc + F32(-1.25)
        acc = acc * w
        acc = acc + F32(0.75)
        acc = acc * w
        acc = acc + F32(2.0)
        acc = acc + F32(0.125)
    return acc if x.dtype == F32 else narrow(acc, x.dtype, ties_away=False)


@pytest.fixture(scope="module")
def poly():
    return read_kernel(KERNELS / "course_poly")


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
def test_course_poly_bit_for_bit(poly, dtype):
    if dtype == "float32":
        x = np.concatenate([random_inputs(np.random.default_rng(11), 8_000, F32)[1], SPECIALS.astype(F32)])
    else:
        x = every16(dtype)
    assert_bits_equal(poly.run(x=x), ref_course_poly(x), f"course_poly {dtype}")


def test_the_constructs_read_as_c_reads_them(poly):
    steps = poly.description.body("float16").steps
    assert [(s.op, s.args[2].value if s.op in ("Muls", "Adds") else None) for s in steps] == [
        ("Cast", None), ("Muls", 0.5), ("Adds", -1.25), ("Mul", None), ("Adds", 0.75), ("Mul", None),
        ("Adds", 2.0), ("Adds", 0.125), ("Cast", None)]
    assert poly.description.bodies[0].buffer_num == 2             # BUFFER_NUM = 02, octal


def _variant(tmp_path, old, new):
    return fixture_variant(tmp_path, "course_poly", old, new)[0]


@pytest.mark.parametrize("old, new, line, words", [
    ("Muls(acc, x, COEF[0], this->tileLength);", "Muls(acc, x, COEF[4], this->tileLength);", 53,
     "index 4 outside the 4 values"),
    ("this->tileLength = tileLength;", "this->tileLength = tileLength;\n        g_bias = 0.25f;", 29,
     "assignment to g_bias"),
    ("std::conditional_t<std::is_same_v<T, float>, T, float>", "std::conditional_t<sizeof(T) == 4, T, float>",
     None, None),
    ("std::conditional_t<std::is_same_v<T, float>, T, float>", "std::conditional_t<sizeof(T) == 4, int, float>",
     65, "not float, half"),
])
def test_what_is_not_followed_is_refused_at_its_line(tmp_path, old, new, line, words):
    folder = _variant(tmp_path, old, new)
    if line is None:          # the same type by another condition: reads the same
        assert str(read_source(folder).body("float16")) == str(read_source(KERNELS / "course_poly").body("float16"))
        return
    with pytest.raises(KernelSourceError) as e:
        read_source(folder)
    assert e.value.line == line and words in str(e.value), str(e.value)

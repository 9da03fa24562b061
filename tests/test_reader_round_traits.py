"""A Cast's round mode read from a trait of the sources (issue 43): ``Cast(y, acc, NarrowRound<T>::value, n)``
where ``template <typename T> struct NarrowRound;`` is only declared and each 16-bit type has a full
specialization holding a ``static constexpr RoundMode value`` (ops-nn's hard_sigmoid_grad arch35 narrows so).
The traits_affine fixture with its narrowing Cast so written, run bit for bit against a reference written here;
a type no specialization covers is refused at the Cast's line."""
import numpy as np
import pytest

from activation_checks import every16
from reference import assert_bits_equal
from reference_family import narrow
from reader_variants import fixture_variant

from swishgrad_numba.ops import read_kernel
from swishgrad_numba.reader import KernelSourceError, read_source

F32 = np.float32
CAST = "Cast(yLocal, acc, RoundMode::CAST_RINT, tileLength);"
TRAIT = """template <typename T>
struct NarrowRound;
template <>
struct NarrowRound<half> {
    static constexpr RoundMode value = RoundMode::CAST_RINT;
};
template <>
struct NarrowRound<bfloat16_t> {
    static constexpr RoundMode value = RoundMode::CAST_ROUND;
};

template <typename T>
class ScaleBase {"""


def traited(tmp_path, trait=TRAIT):
    folder, path = fixture_variant(tmp_path, "traits_affine", CAST,
                                   "Cast(yLocal, acc, NarrowRound<T>::value, tileLength);")
    path.write_text(path.read_text().replace("template <typename T>\nclass ScaleBase {", trait))
    return folder


def reference(x):
    """traits_affine's float32 steps (widen, Muls 0.1f, Adds 2, Mul for half / Add for bfloat16), narrowed
    with the trait's mode: float16 ties to even, bfloat16 ties away from zero."""
    with np.errstate(all="ignore"):
        w = x.astype(F32)
        acc = w * F32(0.1) + F32(2.0)
        acc = acc * w if x.dtype == np.float16 else acc + w
    return narrow(acc, x.dtype, ties_away=x.dtype != np.float16)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_a_round_mode_from_a_specialized_trait_narrows_bit_for_bit(tmp_path, dtype):
    op = read_kernel(traited(tmp_path))
    x = every16(dtype)
    assert_bits_equal(op.run(x=x), reference(x), f"NarrowRound {dtype}")
    mode = {"float16": "CAST_RINT", "bfloat16": "CAST_ROUND"}[dtype]
    assert op.description.body(dtype).steps[-1].args[2] == mode


def test_a_type_no_specialization_covers_is_refused_at_the_cast(tmp_path):
    trait = TRAIT.replace("template <>\nstruct NarrowRound<bfloat16_t> {\n"
                          "    static constexpr RoundMode value = RoundMode::CAST_ROUND;\n};\n", "")
    folder = traited(tmp_path, trait)
    line = next(i for i, t in enumerate((folder / "traits_affine.cpp").read_text().splitlines(), 1)
                if "NarrowRound<T>::value" in t)
    with pytest.raises(KernelSourceError, match="primary template is only declared") as err:
        read_source(folder).body("bfloat16")
    assert err.value.line == line

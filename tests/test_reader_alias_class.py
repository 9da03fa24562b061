"""Issue 43: an alias template naming a class of the sources, used through a namespace (ops-nn
``selu_grad.h``'s ``NsSeluGrad::SeluGradOneDimOp<T>``) and passed to a function template that constructs
it, is that class: before, the object was an unknown value whose Init and Process did nothing, and the
kernel was refused as computing nothing. Checked on the traits_affine fixture, rewritten so."""
import numpy as np
import pytest

from activation_checks import every16
from reference import assert_bits_equal
from reader_variants import fixture_variant
from test_reader_templates import ref_traits_affine

from swishgrad_numba.ops import read_kernel
from swishgrad_numba.reader import KernelSourceError

ENTRY_OLD = "    TraitsAffine<DTYPE_X> op;\n    op.Init(x, y, &td);\n    op.Process();\n"
ENTRY_NEW = "    RunAffine<AffineNs::AffineOp<DTYPE_X>>(x, y, &td);\n"
HELPERS = """namespace AffineNs {
template <typename T>
using AffineOp = TraitsAffine<std::conditional_t<true, T, float>>;
} // namespace AffineNs

template <typename Op>
__aicore__ inline void RunAffine(GM_ADDR x, GM_ADDR y, const TraitsAffineTiling* td)
{
    Op op;
    op.Init(x, y, td);
    op.Process();
}

extern "C" __global__"""


def _folder(tmp_path, alias_of="TraitsAffine<std::conditional_t<true, T, float>>"):
    folder, path = fixture_variant(tmp_path, "traits_affine", ENTRY_OLD, ENTRY_NEW)
    text = path.read_text().replace('extern "C" __global__', HELPERS.replace(
        "TraitsAffine<std::conditional_t<true, T, float>>", alias_of), 1)
    path.write_text(text)
    return folder


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_an_alias_template_of_a_class_constructs_that_class(tmp_path, dtype):
    op = read_kernel(_folder(tmp_path))
    x = every16(dtype)
    assert_bits_equal(op.run(x=x), ref_traits_affine(x), f"aliased traits_affine {dtype}")


def test_float32_through_the_alias(tmp_path):
    op = read_kernel(_folder(tmp_path))
    x = np.linspace(-5, 5, 4099, dtype=np.float32)
    assert_bits_equal(op.run(x=x), ref_traits_affine(x), "aliased traits_affine float32")


def test_an_alias_of_a_library_class_is_still_refused_as_computing_nothing(tmp_path):
    with pytest.raises(KernelSourceError, match="no dtype's path computes anything"):
        read_kernel(_folder(tmp_path, alias_of="LocalTensor<T>"))

"""A loop filling a local tensor with one value by SetValue is read as a Duplicate (issue 43). Variants of the
fixture keyed_inputs (written for the reader's tests; its op_host runs it on its own schedule): its 3x Muls
becomes a fill of 3.0f and a Mul. The reference is written here, instruction by instruction."""
import numpy as np
import pytest

from reference import SPECIALS, assert_bits_equal
from reader_variants import fixture_variant, refusal

from swishgrad_numba.ops import read_kernel

F32 = np.float32
_MULS = "Muls(yLocal, xLocal, 3.0f, len);"


def _fill(loop_head, value="3.0f"):
    return f"{loop_head} {{ yLocal.SetValue(k, {value}); }} Mul(yLocal, xLocal, yLocal, len);"


def _x(n):
    x = np.linspace(-70.0, 70.0, n).astype(F32)
    x[: SPECIALS.size] = SPECIALS.astype(F32)[:n]
    return x


@pytest.mark.parametrize("head", ["for (uint32_t k = 0; k < len; k++)", "for (int32_t k = 0; k < len; ++k)",
                                  "for (uint32_t k = 0; k < len; k += 1)"])
def test_a_fill_loop_reads_as_a_duplicate(tmp_path, head):
    folder, _ = fixture_variant(tmp_path, "keyed_inputs", _MULS, _fill(head))
    op = read_kernel(folder)
    (other,) = [v for v in op.variants("float32") if "!" in v]
    assert [s.op for s in op.description.body("float32", other).steps] == ["Duplicate", "Mul"]
    x, z = _x(1000), np.zeros(1000, F32)
    with np.errstate(all="ignore"):
        want = x * np.full_like(x, F32(3.0))
    assert_bits_equal(op.run(x=x, z=z, mode=0), want, f"fill loop {head}")


@pytest.mark.parametrize("head, value", [
    ("for (uint32_t k = 0; k < len; k++)", "3.0f * k"),           # a value that changes along the loop
    ("for (uint32_t k = 1; k < len; k++)", "3.0f"),               # not from element 0
    ("for (uint32_t k = 0; k < len; k += 2)", "3.0f"),            # every other element
])
def test_any_other_loop_over_set_value_is_refused(tmp_path, head, value):
    err, path = refusal(tmp_path, "keyed_inputs", _MULS, _fill(head, value))
    assert err.construct == "a loop over SetValue" and err.file == str(path), str(err)

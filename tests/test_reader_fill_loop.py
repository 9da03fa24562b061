"""A loop filling a local tensor with one value by SetValue is read as a Duplicate (issue 43). Variants of the
fixture keyed_switch (written for the reader's tests; its op_host runs it on its own schedule): its default
key's Muls by -1 becomes a fill of -1.0f and a Mul. The reference is written here, instruction by
instruction."""
import numpy as np
import pytest

from reference import SPECIALS, assert_bits_equal
from reader_variants import fixture_variant, refusal

from swishgrad_numba.ops import read_kernel

F32 = np.float32
_MULS = "Muls(yLocal, xLocal, -1.0f, len);"


def _fill(loop_head, value="-1.0f"):
    return f"{loop_head} {{ yLocal.SetValue(k, {value}); }} Mul(yLocal, xLocal, yLocal, len);"


def _x(n):
    x = np.linspace(-70.0, 70.0, n).astype(F32)
    x[: SPECIALS.size] = SPECIALS.astype(F32)[:n]
    return x


@pytest.mark.parametrize("head", ["for (uint32_t k = 0; k < len; k++)", "for (int32_t k = 0; k < len; ++k)",
                                  "for (uint32_t k = 0; k < len; k += 1)"])
def test_a_fill_loop_reads_as_a_duplicate(tmp_path, head):
    folder, _ = fixture_variant(tmp_path, "keyed_switch", _MULS, _fill(head))
    op = read_kernel(folder)
    assert ["Duplicate", "Mul"] in [[s.op for s in op.description.body("float32", v).steps]
                                    for v in op.variants("float32")]
    x = _x(1000)
    with np.errstate(all="ignore"):
        want = x * np.full_like(x, F32(-1.0))
    assert_bits_equal(op.run(x=x, mode=0), want, f"fill loop {head}")


@pytest.mark.parametrize("head, value", [
    ("for (uint32_t k = 0; k < len; k++)", "-1.0f * k"),          # a value that changes along the loop
    ("for (uint32_t k = 1; k < len; k++)", "-1.0f"),              # not from element 0
    ("for (uint32_t k = 0; k < len; k += 2)", "-1.0f"),           # every other element
])
def test_any_other_loop_over_set_value_is_refused(tmp_path, head, value):
    err, path = refusal(tmp_path, "keyed_switch", _MULS, _fill(head, value))
    assert err.construct == "a loop over SetValue" and err.file == str(path), str(err)

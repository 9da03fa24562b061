"""Which variant a tile ran is told by its calls and the branches its core took (issue 43, reader.variant_ways),
and a launch needs only the GM scalar inputs of the variants it runs (reader.gm_scalars). The fixture
gm_scale_keyed (written for these tests) picks its Compute by the attribute mode: 1, x * gain[0] with gain a
GM input read by GetValue; 2, x * 0.5f through the same helper (the same vector calls); else |x|. The
references are NumPy, one float32 operation per instruction."""
from pathlib import Path

import numpy as np
import pytest

from reference import assert_bits_equal

from swishgrad_numba.ops import read_kernel
from swishgrad_numba.reader import KernelSourceError

KERNELS = Path(__file__).parent / "fixtures" / "kernels"
F32 = np.float32


def ref_scale_keyed(x, gain, mode):
    """mode 1: Muls(x, gain[0]); 2: Muls(x, 0.5f); else Abs(x): each one float32 operation."""
    with np.errstate(all="ignore"):
        if mode == 1:
            return x * F32(gain[0])
        return x * F32(0.5) if mode == 2 else np.abs(x)


@pytest.fixture(scope="module")
def op():
    return read_kernel(KERNELS / "gm_scale_keyed")


def _x(n=1000):
    x = np.linspace(-7.5, 7.5, n).astype(F32)
    x[:6] = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-45]
    return x


def _variant(op, mode):
    return {1: "mode == 1", 2: "mode == 2", 0: "!(mode == 1) && !(mode == 2)"}[mode]


def test_the_fixture_has_two_variants_of_the_same_calls(op):
    calls = {v: [(s.op, s.at) for s in op.description.body("float32", v).steps] for v in op.variants("float32")}
    assert sorted(calls) == sorted(_variant(op, m) for m in (0, 1, 2))
    assert calls[_variant(op, 1)] == calls[_variant(op, 2)]


@pytest.mark.parametrize("mode, n", [(1, 1000), (2, 1000), (0, 1000), (2, 97), (1, 96 * 3 + 5)])
def test_each_core_runs_the_variant_its_branches_chose(op, mode, n):
    # without variant=: modes 1 and 2 make the same calls; the branches the cores took tell them apart
    x, gain = _x(n), np.array([-3.25], F32)
    assert_bits_equal(op.run(x=x, gain=gain, mode=mode), ref_scale_keyed(x, gain, mode), f"mode={mode} n={n}")


@pytest.mark.parametrize("mode", [0, 1, 2])
def test_a_variant_given_by_hand_runs_where_the_cores_chose_it(op, mode):
    x, gain = _x(), np.array([0.75], F32)
    assert_bits_equal(op.run(x=x, gain=gain, mode=mode, variant=_variant(op, mode)),
                      ref_scale_keyed(x, gain, mode), f"mode={mode} variant given")


@pytest.mark.parametrize("mode, given", [(1, 2), (2, 1), (0, 2)])
def test_a_variant_given_by_hand_that_the_cores_did_not_choose_is_refused(op, mode, given):
    # before: the named variant ran on every tile whose calls it made (mode 1 computed x * 0.5f)
    x, gain = _x(), np.array([3.0], F32)
    with pytest.raises(KernelSourceError, match="not (the one given|those of the variant given)") as e:
        op.run(x=x, gain=gain, mode=mode, variant=_variant(op, given))
    assert e.value.file.endswith("gm_scale_keyed.cpp") and e.value.line > 0


@pytest.mark.parametrize("mode", [0, 2])
def test_a_launch_needs_only_the_gm_scalars_of_the_variants_it_runs(op, mode):
    x = _x()
    assert_bits_equal(op.run(x=x, mode=mode), ref_scale_keyed(x, None, mode), f"mode={mode} without gain")
    assert_bits_equal(op.run(x=x, mode=mode, variant=_variant(op, mode)), ref_scale_keyed(x, None, mode),
                      f"mode={mode} variant given, without gain")


def test_the_variant_that_reads_the_gm_scalar_still_needs_it(op):
    x = _x()
    with pytest.raises(TypeError, match="missing input 'gain'"):
        op.run(x=x, mode=1)
    with pytest.raises(TypeError, match="missing input 'gain'"):
        op.run(x=x, mode=1, variant=_variant(op, 1))
    with pytest.raises(ValueError, match="at least 1 element"):
        op.run(x=x, gain=np.array([], F32), mode=1)

"""950 DAG constructs of issue 43, read from a kernel of the tests' own (fixtures/kernels/dag_band_grad):
``Vec::And<uint8_t>`` / ``Vec::Or<uint8_t>`` of two Compare masks, ``Vec::Copy``, a DAG struct picked by
its specialization for float and a DAG member that is another struct's ``OpDag``; bit for bit against a
plain reference, on the engine."""
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

from activation_checks import every16
from reference import SPECIALS, assert_bits_equal, random_inputs

from swishgrad_numba.ops import read_kernel
from swishgrad_numba.reader import KernelSourceError

KERNELS = Path(__file__).parent / "fixtures" / "kernels"
F32 = np.float32


def ref_band(dy, x):
    """dx = dy where (x > -1.5 and x < 2) or x is NaN, else +0, compared in float32 (16-bit widened)."""
    xf = x.astype(F32)
    with np.errstate(invalid="ignore"):
        keep = ((xf > F32(-1.5)) & (xf < F32(2.0))) | np.isnan(xf)
    return np.where(keep, dy, np.zeros_like(dy))


@pytest.fixture(scope="module")
def op():
    return read_kernel(KERNELS / "dag_band_grad")


def _inputs(dtype):
    rng = np.random.default_rng(43)
    if dtype == "float32":
        _, x = random_inputs(rng, 20_000, np.float32)
        x = np.concatenate([x, SPECIALS.astype(F32), F32([-1.5, np.nextafter(F32(-1.5), F32(0)), 2.0,
                                                           np.nextafter(F32(2.0), F32(0)), -0.0])])
        dy = rng.standard_normal(x.size).astype(F32)
        dy[::7] = -0.0
        return dy, x
    x = every16(dtype)
    dy = x[rng.permutation(x.size)]
    return dy, x


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
def test_band_reads_and_runs_bit_for_bit(op, dtype):
    dy, x = _inputs(dtype)
    assert_bits_equal(op.run(dy=dy, x=x), ref_band(dy, x), f"band {dtype}")


def test_band_steps_per_dtype(op):
    ops32 = [s.op for s in op.description.body("float32", "").steps]
    assert "Cast" not in ops32 and ops32.count("And") == 1 and ops32.count("Or") == 1     # the specialization
    ops16 = [s.op for s in op.description.body("float16", "").steps]
    assert ops16[0] == "Cast" and ops16[-1] == "Cast" and ops16.count("Select") == 1     # BandGradWide
    assert op.description.dtypes == ("float32", "float16", "bfloat16")
    assert ml_dtypes.bfloat16 is not None


def _variant(tmp_path, old, new):
    folder = tmp_path / "k"
    (folder / "arch35").mkdir(parents=True)
    src = KERNELS / "dag_band_grad"
    (folder / "band_grad_apt.cpp").write_text((src / "band_grad_apt.cpp").read_text())
    text = (src / "arch35" / "band_grad_dag.h").read_text()
    assert old in text
    (folder / "arch35" / "band_grad_dag.h").write_text(text.replace(old, new))
    return folder


@pytest.mark.parametrize("old, new, construct", [
    # And of a mask and a tensor of numbers: opbase's And would act on the numbers' bits
    ("Bind<Vec::And<uint8_t>, AboveLo, BelowHi>", "Bind<Vec::And<uint8_t>, AboveLo, XW>", "Vec::And of 2 inputs"),
    ("Bind<Vec::Or<uint8_t>, Inside, Odd>", "Bind<Vec::Or<float>, Inside, Odd>", "Vec::Or of 2 inputs"),
    ("Bind<Vec::Copy<W>, DyW>", "Bind<Vec::Copy<E>, DyW>", "Vec::Copy of 1 inputs"),
    ("using OpDag = typename BandGradWide<E, float>::OpDag;", "using OpDag = typename BandGradWide<E, float>::Odd;",
     "DAG member Odd"),
])
def test_dag_forms_not_read_are_refused(tmp_path, old, new, construct):
    with pytest.raises(KernelSourceError) as exc:
        read_kernel(_variant(tmp_path, old, new))
    assert construct in exc.value.construct and exc.value.line > 0, str(exc.value)


def test_two_specializations_equally_matching_are_refused(tmp_path):
    extra = "template <>\nstruct BandGradByDtype<float> {\n    using OpDag = typename BandGradWide<float, float>::OpDag;\n};\n"
    folder = _variant(tmp_path, "} // namespace BandGrad", extra + "} // namespace BandGrad")
    with pytest.raises(KernelSourceError, match="two specializations match") as exc:
        read_kernel(folder)
    assert exc.value.line > 0


def test_a_mask_read_from_gm_is_refused_naming_the_tensor(tmp_path):
    # ops-nn relu_grad_v2 / relu_grad_v4 read their mask from GM (uint8): before, only "computes nothing"
    folder = _variant(tmp_path, "using Pass = Bind<Vec::Or<uint8_t>, Odd, Inside>;",
                      "using Pass = Bind<Vec::CopyIn<uint8_t>, Placeholder::In1<uint8_t>>;")
    text = (folder / "arch35" / "band_grad_dag.h").read_text()
    (folder / "arch35" / "band_grad_dag.h").write_text(text.replace(
        "using Pass = Bind<Vec::Or<uint8_t>, Inside, Odd>;",
        "using Pass = Bind<Vec::CopyIn<uint8_t>, Placeholder::In1<uint8_t>>;"))
    # issue 43 (.byte_tensors): a 1-byte GM tensor is read as numbers; as a Select's mask (its packed bits) refused
    with pytest.raises(KernelSourceError, match="Select reading the uint8 GM tensor Pass: .* packed bits") as exc:
        read_kernel(folder)
    assert exc.value.file.endswith("band_grad_dag.h")
    assert "Vec::Select" in (folder / "arch35" / "band_grad_dag.h").read_text().splitlines()[exc.value.line - 1]


def test_a_scalar_read_from_a_copied_gm_input_is_its_first_element(tmp_path):
    # ops-nn threshold_v2's Placeholder::In1<T, Placeholder::ScalarAttr<1>>, here on the input X also copies
    # tile by tile: the scheduler's GetScalar reads element 0 of the whole input (opbase elewise_sch.h:287-291)
    folder = _variant(tmp_path, "    using AboveLo = Bind<Vec::Compare<uint8_t, T, CMP_GT>, X, Lo>;",
                      "    using LoIn = Placeholder::In1<T, Placeholder::ScalarAttr<1>>;\n"
                      "    using AboveLo = Bind<Vec::Compare<uint8_t, T, CMP_GT>, X, LoIn>;")
    dy, x = _inputs("float32")
    x = np.concatenate([F32([-0.75]), x])
    dy = np.concatenate([F32([1.0]), dy])
    with np.errstate(invalid="ignore"):
        keep = ((x > x[0]) & (x < F32(2.0))) | np.isnan(x)
    assert_bits_equal(read_kernel(folder).run(dy=dy, x=x), np.where(keep, dy, np.zeros_like(dy)), "lo = x[0]")

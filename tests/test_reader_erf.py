"""The 950's Erf in a read DAG (issue 43): opbase's ``Vec::Erf`` (the subsection routine) and
``AscendC::Erf`` in a DAG node of the kernel's own (the Pade default), read from a kernel of the tests' own
(fixtures/kernels/dag_erf_pair) and run bit for bit against the tests' instruction-by-instruction Erf
references (reference_activations_tier2)."""
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

from activation_checks import every16
from reference import SPECIALS, assert_bits_equal, random_inputs
from reference_activations_tier2 import erf_pade_f32, erf_subsection_f32
from reference_family import narrow

from swishgrad_numba.ops import read_kernel
from swishgrad_numba.reader import KernelSourceError

KERNELS = Path(__file__).parent / "fixtures" / "kernels"
F32 = np.float32
DTYPES = {"float32": np.dtype(np.float32), "float16": np.dtype(np.float16),
          "bfloat16": np.dtype(ml_dtypes.bfloat16)}


def ref_erf_pair(x):
    """widen; Poly = Erf subsection; Pade = Erf Pade; D = Poly - Pade; narrow CAST_RINT."""
    xf = x.astype(F32)
    with np.errstate(all="ignore"):
        d = (erf_subsection_f32(xf) - erf_pade_f32(xf)).astype(F32)
    return d if x.dtype == np.float32 else narrow(d, x.dtype, ties_away=False)


@pytest.fixture(scope="module")
def op():
    return read_kernel(KERNELS / "dag_erf_pair")


@pytest.mark.parametrize("dtype", ["float32", "float16"])      # bfloat16 takes float16's path (compiles are slow)
def test_erf_pair_bit_for_bit(op, dtype):
    if dtype == "float32":
        _, x = random_inputs(np.random.default_rng(11), 30_000, np.float32)
        x = np.concatenate([x, SPECIALS.astype(F32), np.linspace(-4.5, 4.5, 2001, dtype=F32)])
    else:
        x = every16(dtype)
    assert_bits_equal(op.run(x=x), ref_erf_pair(x), f"erf pair {dtype}")


def test_erf_steps_are_the_routines(op):
    from swishgrad_numba.program.erf import PADE, SUBSECTION, erf_program

    steps = [s.op for s in op.description.body("float32", "").steps]
    poly, pade = [i.op for i in erf_program(SUBSECTION).body], [i.op for i in erf_program(PADE).body]
    assert steps == poly + pade + ["Sub"]


def test_erf_of_a_16_bit_tensor_is_refused(tmp_path):
    folder = tmp_path / "k"
    (folder / "arch35").mkdir(parents=True)
    src = KERNELS / "dag_erf_pair"
    (folder / "erf_pair_apt.cpp").write_text((src / "erf_pair_apt.cpp").read_text())
    text = (src / "arch35" / "erf_pair_dag.h").read_text().replace("Vec::Erf<float>, XF", "Vec::Erf<E>, X")
    (folder / "arch35" / "erf_pair_dag.h").write_text(text)
    with pytest.raises(KernelSourceError, match="Erf on float16"):
        read_kernel(folder)

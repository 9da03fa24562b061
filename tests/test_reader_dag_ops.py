"""950 DAG constructs of issue 43, read from a kernel of the tests' own (fixtures/kernels/dag_fold_24b):
opbase's ``EleBaseTilingData24B`` used as it is, ``Vec::Relu``, a DAG struct's own ``constexpr static``
constants, a tiling-key path of an integer dtype left out, and in a MicroAPI node ``MaskReg`` s written by
``Compare`` / ``Compares`` and read by ``Select``; bit for bit against a plain reference, instruction by
instruction."""
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

from activation_checks import every16
from reference import SPECIALS, assert_bits_equal, random_inputs
from reference_family import narrow

from swishgrad_numba.ops import read_kernel
from swishgrad_numba.reader import KernelSourceError

KERNELS = Path(__file__).parent / "fixtures" / "kernels"
F32 = np.float32
DTYPES = {"float32": np.dtype(np.float32), "float16": np.dtype(np.float16),
          "bfloat16": np.dtype(ml_dtypes.bfloat16)}


def ref_fold(x, cap):
    """dag_fold_24b: widen; R = Relu(x) (NaN kept, -0 to +0); over = R > cap; half = x * 0.5;
    folded = over ? half : R; odd = x != x; kept = odd ? x : folded; narrow CAST_RINT."""
    xf = x.astype(F32)
    with np.errstate(all="ignore"):
        r = np.where(np.isnan(xf), xf, np.where(xf > F32(0), xf, F32(0))).astype(F32)
        over = r > F32(cap)
        half = xf * F32(0.5)
        folded = np.where(over, half, r)
        odd = xf != xf
        kept = np.where(odd, xf, folded).astype(F32)
    return kept if x.dtype == np.float32 else narrow(kept, x.dtype, ties_away=False)


@pytest.fixture(scope="module")
def op():
    return read_kernel(KERNELS / "dag_fold_24b")


@pytest.mark.parametrize("dtype", list(DTYPES))
def test_fold_reads_and_runs_bit_for_bit(op, dtype):
    if dtype == "float32":
        _, x = random_inputs(np.random.default_rng(8), 40_000, np.float32)
        x = np.concatenate([x, SPECIALS.astype(F32), F32([2.0, 2.0000002, -0.0])])
    else:
        x = every16(dtype)
    for cap in (2.0, 0.0):
        assert_bits_equal(op.run(x=x, var0=cap), ref_fold(x, cap), f"fold {dtype} cap={cap}")


def test_fold_record_steps_and_paths(op):
    from swishgrad_numba.platform import ASCEND950_PLATFORM

    d = op.record_dtype           # dim0, coreNum, ubFormer, then scalarData at byte 16: 24 bytes
    assert d.names == ("dim0", "coreNum", "ubFormer", "var0") and d.itemsize == 24 and d.fields["var0"][1] == 16
    t = op.tiling(100_003, np.float16, ASCEND950_PLATFORM, var0=1.5)
    assert int(t["dim0"]) == 100_003 and float(t["var0"]) == 1.5 and t.data.tobytes()[20:] == bytes(4)
    # one body per float dtype: the int32 key's path is left out, not a variant
    assert op.variants("float32") == ("",) and op.description.dtypes == tuple(DTYPES)
    ops = [s.op for s in op.description.body("float16", "").steps]
    assert ops == ["Cast", "Relu", "CompareScalar", "Muls", "Select", "Compare", "Select", "Cast"]


def _variant(tmp_path, old, new):
    folder = tmp_path / "k"
    (folder / "arch35").mkdir(parents=True)
    src = KERNELS / "dag_fold_24b"
    (folder / "fold_apt.cpp").write_text((src / "fold_apt.cpp").read_text())
    text = (src / "arch35" / "fold_dag.h").read_text()
    assert old in text
    (folder / "arch35" / "fold_dag.h").write_text(text.replace(old, new))
    return folder


@pytest.mark.parametrize("old, new, construct", [
    ("Compares<float, CMPMODE::GT>", "Compares<float, RoundMode::CAST_RINT>", "MicroAPI::Compares mode"),
    ("Select<float>(kept, vx, folded, odd)", "Select<float>(kept, vx, folded, vr)", "MicroAPI::Select by"),
])
def test_micro_compare_forms_not_read_are_refused(tmp_path, old, new, construct):
    with pytest.raises(KernelSourceError) as exc:
        read_kernel(_variant(tmp_path, old, new))
    assert construct in exc.value.construct and exc.value.line > 0


def test_a_dag_without_its_template_argument_is_refused_at_a_line(tmp_path):
    # found by the fuzz: the DAG's template parameter left without argument gave a refusal with no file
    folder = tmp_path / "k"
    (folder / "arch35").mkdir(parents=True)
    src = KERNELS / "dag_fold_24b"
    (folder / "arch35" / "fold_dag.h").write_text((src / "arch35" / "fold_dag.h").read_text())
    entry = (src / "fold_apt.cpp").read_text().replace("FoldDag<float>::OpDag", "FoldDag::OpDag")
    (folder / "fold_apt.cpp").write_text(entry)
    with pytest.raises(KernelSourceError, match="no argument for its template parameter U") as exc:
        read_kernel(folder)
    assert exc.value.file.endswith("fold_apt.cpp") and exc.value.line > 0

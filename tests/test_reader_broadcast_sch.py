"""The 950 BroadcastSch scheduler and opbase's Vec::Compare / Vec::Select DAG nodes (issue 43), read from a
kernel of the tests' own (fixtures/kernels/brc_gated_grad) and run on the broadcast walk, bit for bit against
a plain reference written instruction by instruction."""
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


def ref_gated_grad(dy, x, gain):
    """brc_gated_grad's DAG, one instruction at a time: widen; NotPositive = x <= 0; Scaled = dy * gain;
    Gated = NotPositive ? Scaled : dy; Below = x < 3; Kept = Below ? Gated : 0.25; narrow CAST_RINT."""
    dyf, xf = dy.astype(F32), x.astype(F32)
    with np.errstate(all="ignore"):
        not_positive = xf <= F32(0.0)
        scaled = dyf * F32(gain)
        gated = np.where(not_positive, scaled, dyf)
        below = xf < F32(3.0)
        kept = np.where(below, gated, F32(0.25)).astype(F32)
    return kept if dy.dtype == np.float32 else narrow(kept, dy.dtype, ties_away=False)


def _inputs(dtype, n=30_011, seed=4):
    """float32: samples, specials and the edges 3 and 0; 16-bit: every bit pattern of x, dy shuffled."""
    rng = np.random.default_rng(seed)
    if dtype != "float32":
        x = every16(dtype)
        return rng.permutation(x), x
    dy, x = random_inputs(rng, n, np.float32)
    x = np.concatenate([x, SPECIALS.astype(F32), F32([3.0, -0.0, 0.0, 2.9999998])])
    return np.resize(dy, x.size), x


@pytest.fixture(scope="module")
def op():
    return read_kernel(KERNELS / "brc_gated_grad")


@pytest.mark.parametrize("dtype", list(DTYPES))
def test_broadcast_sch_kernel_reads_and_runs_bit_for_bit(op, dtype):
    dy, x = _inputs(dtype)
    for gain in (0.3, -2.5):
        got = op.run(dy=dy, x=x, var0=gain)
        assert_bits_equal(got, ref_gated_grad(dy, x, gain), f"gated_grad {dtype} gain={gain}")


def test_broadcast_sch_steps_and_record(op):
    from swishgrad_numba.ops.silu_grad.arch35 import ARCH35_TILING_DTYPE
    from swishgrad_numba.platform import ASCEND950_PLATFORM

    assert op.style == "dag" and op.description.inputs_read == ("dy", "x") and op.attributes == ("var0",)
    ops = [s.op for s in op.description.body("float32", "").steps]
    assert ops.count("Compare") == 1 and ops.count("CompareScalar") == 1
    assert ops.count("Select") == 1 and ops.count("Selects") == 1
    # the broadcast record: SiluGrad's fields, then the DAG's scalar
    assert op.record_dtype.names == ARCH35_TILING_DTYPE.names + ("var0",)
    n = 1_000_003
    t = op.tiling(n, np.float16, ASCEND950_PLATFORM, var0=0.5)
    assert int(t["shapeLen"]) == 1 and int(t["outputDims"][0]) == n and float(t["var0"]) == 0.5
    assert int(t["blockFormer"]) * int(t["ubFormer"]) >= -(-n // t.block_dim)


def test_broadcast_sch_runs_on_the_broadcast_walk(op, monkeypatch):
    from swishgrad_numba.kernel import broadcast

    calls = []
    real = broadcast.run_blocks
    monkeypatch.setattr(broadcast, "run_blocks", lambda *a: calls.append(a) or real(*a))
    dy, x = _inputs("float32", n=500)
    assert_bits_equal(op.run(dy=dy, x=x, var0=1.5), ref_gated_grad(dy, x, 1.5), "gated_grad on the walk")
    assert len(calls) == 1


def _variant(tmp_path, old, new):
    folder = tmp_path / "k"
    (folder / "arch35").mkdir(parents=True)
    src = KERNELS / "brc_gated_grad"
    (folder / "gated_grad_apt.cpp").write_text((src / "gated_grad_apt.cpp").read_text())
    text = (src / "arch35" / "gated_grad_dag.h").read_text()
    assert old in text
    (folder / "arch35" / "gated_grad_dag.h").write_text(text.replace(old, new))
    return folder


@pytest.mark.parametrize("old, new, construct", [
    ("int MODE_LE = 3", "int MODE_LE = 7", "Vec::Compare mode 7"),
    ("int PICK_TENSORS = 2", "int PICK_TENSORS = 0", "Vec::Select mode 0"),
    ("Select<uint8_t, float, PICK_TENSORS>, NotPositive", "Select<uint8_t, float, PICK_TENSORS>, XF",
     "Vec::Select by"),
])
def test_compare_and_select_forms_not_read_are_refused(tmp_path, old, new, construct):
    with pytest.raises(KernelSourceError) as exc:
        read_kernel(_variant(tmp_path, old, new))
    assert construct in exc.value.construct and exc.value.line > 0

"""``TBuf::AllocTensor<T>()`` (issue 43; ops-nn's A2 SigmoidGrad, Softplus, SwishGrad... take their scratch so):
TBuf inherits TQueBind's AllocTensor, and ``InitBuffer(buf, len)`` gives a TBuf one buffer, so the tensor is
the one ``Get<T>()`` gives. The kernel is plain_muls with a TBuf scratch between two instructions; the
reference is NumPy in float32, one rounding per instruction."""
import numpy as np
import pytest

from reference import SPECIALS, assert_bits_equal, random_inputs
from reader_variants import fixture_edited

from swishgrad_numba.ops import read_kernel

F32 = np.float32
CPP = "plain_muls.cpp"
SCRATCH = """AscendC::LocalTensor<T> t = tmpB.AllocTensor<T>();
        AscendC::Muls(t, xLocal, this->scale, this->len);
        AscendC::Adds(yLocal, t, (T)1.5f, this->len);
        tmpB.FreeTensor(t);"""


@pytest.mark.parametrize("scale", [0.3, -2.0e30])
def test_a_tbuf_allocated_tensor_is_its_buffer(tmp_path, scale):
    folder = fixture_edited(tmp_path, "plain_muls", [
        (CPP, "pipe.InitBuffer(outQ, 2, this->len * sizeof(T));",
         "pipe.InitBuffer(outQ, 2, this->len * sizeof(T));\n        pipe.InitBuffer(tmpB, this->len * sizeof(T));"),
        (CPP, "AscendC::TQue<AscendC::QuePosition::VECOUT, 2> outQ;",
         "AscendC::TQue<AscendC::QuePosition::VECOUT, 2> outQ;\n    AscendC::TBuf<AscendC::QuePosition::VECCALC> tmpB;"),
        (CPP, "AscendC::Muls(yLocal, xLocal, this->scale, this->len);", SCRATCH)])
    op = read_kernel(folder)
    assert [s.op for s in op.description.body("float32").steps] == ["Muls", "Adds"]
    x = np.concatenate([random_inputs(np.random.default_rng(3), 300, F32)[1], SPECIALS.astype(F32)])
    with np.errstate(all="ignore"):
        want = x * F32(scale) + F32(1.5)
    assert_bits_equal(op.run(x=x, scale=scale), want, f"scale {scale}")

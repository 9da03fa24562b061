"""A queue's second buffer (issue 43): two AllocTensor calls on one queue, both live, are two tensors.

The reader once keyed every tensor of a queue by the queue's name, so a scratch tensor taken from the output
queue beside the output itself became the output: ``y = x * scale + 3 x`` computed ``2 x scale``.
"""
import numpy as np
import pytest
from reader_variants import fixture_variant
from reference import assert_bits_equal

from swishgrad_numba.ops import read_kernel
from swishgrad_numba.reader import KernelSourceError

MULS = "        AscendC::Muls(yLocal, xLocal, this->scale, this->len);\n"
SCRATCH = """        AscendC::LocalTensor<T> tLocal = outQ.AllocTensor<T>();
        AscendC::Muls(tLocal, xLocal, (T)3.0f, this->len);
        AscendC::Muls(yLocal, xLocal, this->scale, this->len);
        AscendC::Add(yLocal, yLocal, tLocal, this->len);
        outQ.FreeTensor(tLocal);
"""


def test_a_scratch_buffer_of_the_output_queue_is_a_tensor_of_its_own(tmp_path):
    folder, _ = fixture_variant(tmp_path, "plain_muls", MULS, SCRATCH)
    rng = np.random.default_rng(7)
    x = np.concatenate([rng.standard_normal(500).astype(np.float32) * 8,
                        np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-40, -3e38], np.float32)])
    scale = np.float32(0.75)
    got = read_kernel(folder).run(x=x, scale=scale)
    # float32 instructions, each rounded once: Muls, Muls, Add (IEEE: overflow to inf)
    with np.errstate(over="ignore", invalid="ignore"):
        expected = (x * scale) + (x * np.float32(3.0))
    assert_bits_equal(got, expected)


def test_enqueuing_a_second_buffer_of_a_queue_is_refused(tmp_path):
    folder, _ = fixture_variant(tmp_path, "plain_muls", MULS + "        outQ.EnQue(yLocal);\n",
                                SCRATCH.replace("outQ.FreeTensor(tLocal);", "outQ.EnQue(tLocal);"))
    with pytest.raises(KernelSourceError, match=r"outQ.EnQue of a second buffer.*plain_muls.cpp|plain_muls.cpp.*"
                                                r"outQ.EnQue of a second buffer"):
        read_kernel(folder).program("float32")


"""What the tests of swishgrad_numba.aclnn share: tensors over NumPy arrays, a launch, random inputs, fixtures.

A test module takes the fixtures by importing them (``from aclnn_helpers import reference_platform, stream``):
``reference_platform`` (autouse) gives every test the A2 reference platform and a clear error message.
"""
import io
import re
import runpy
from contextlib import redirect_stdout
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

from swishgrad_numba import Platform, aclnn
from swishgrad_numba.aclnn import ACL_BF16, ACL_FLOAT, ACL_FLOAT16, ACL_FORMAT_ND, ACLNN_SUCCESS

BF16 = np.dtype(ml_dtypes.bfloat16)
F32, F16 = np.dtype(np.float32), np.dtype(np.float16)
ACL_OF = {F32: ACL_FLOAT, F16: ACL_FLOAT16, BF16: ACL_BF16}
KERNEL_DTYPES = [F32, F16, BF16]
UINT = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}
WORKSPACE = np.zeros(16 * 1024 * 1024, dtype=np.uint8)
SAMPLE = Path(__file__).resolve().parents[1] / "docs" / "aclnn_sample.py"


def bits(a):
    """The raw bit patterns of an array (NaN payloads included)."""
    return np.ascontiguousarray(a).view(UINT[a.dtype.itemsize])


def random_values(rng, shape, dtype, specials=True):
    """Values in [-5, 5] of ``dtype``, with NaN, +-inf and +-0 among them when there is room."""
    a = rng.uniform(-5, 5, size=shape).astype(np.float32)
    flat = a.reshape(-1)
    if specials and flat.size >= 8:
        idx = rng.choice(flat.size, size=5, replace=False)
        flat[idx] = np.array([np.nan, np.inf, -np.inf, -0.0, 0.0], dtype=np.float32)
    return a.astype(dtype)


def tensor(arr, data_type=None, fmt=ACL_FORMAT_ND):
    """A contiguous tensor over ``arr``."""
    data_type = ACL_OF.get(arr.dtype) if data_type is None else data_type
    return aclnn.aclCreateTensor(arr.shape, data_type, None, 0, fmt, arr.shape, arr)


def tensor_over(view, base, fmt=ACL_FORMAT_ND):
    """The tensor describing NumPy ``view`` of the C-contiguous ``base``."""
    item = base.itemsize
    strides = [s // item for s in view.strides]
    offset = (view.__array_interface__["data"][0] - base.__array_interface__["data"][0]) // item
    return aclnn.aclCreateTensor(view.shape, ACL_OF[base.dtype], strides, offset, fmt, base.shape, base)


def launch(go, x, beta, gi, stream=None):
    """Both phases and a synchronize; returns (status of the first failing step, executor)."""
    status, ws, executor = aclnn.aclnnSwishBackwardGetWorkspaceSize(go, x, beta, gi)
    if status != ACLNN_SUCCESS:
        return status, None
    status = aclnn.aclnnSwishBackward(WORKSPACE if ws else None, ws, executor, stream)
    if status != ACLNN_SUCCESS:
        return status, executor
    assert aclnn.aclrtSynchronizeStream(stream) == aclnn.ACL_SUCCESS
    return ACLNN_SUCCESS, executor


def status_of(go, x, beta, gi):
    """Phase one's status (a failure must come with workspace 0 and no executor)."""
    status, ws, executor = aclnn.aclnnSwishBackwardGetWorkspaceSize(go, x, beta, gi)
    if status != ACLNN_SUCCESS:
        assert ws == 0 and executor is None
    return status


def three(shape=(2, 3), dtype=F32, seed=0):
    """Random gradOutput and self, a zero gradInput, and their contiguous tensors."""
    rng = np.random.default_rng(seed)
    g, x = random_values(rng, shape, dtype), random_values(rng, shape, dtype)
    out = np.zeros(shape, dtype=dtype)
    return g, x, out, tensor(g), tensor(x), tensor(out)


def run_sample():
    """Run docs/aclnn_sample.py's ``main`` on the current platform; returns (its status, the float32s it printed)."""
    buf = io.StringIO()
    with redirect_stdout(buf):
        rc = runpy.run_path(str(SAMPLE), run_name="aclnn_sample")["main"]()
    printed = re.findall(r"out result\[(\d)\] is: (\S+)", buf.getvalue())
    assert [int(i) for i, _ in printed] == list(range(len(printed)))
    return rc, np.array([np.float32(v) for _, v in printed], dtype=np.float32)


@pytest.fixture(autouse=True)
def reference_platform():
    previous = aclnn.set_platform(Platform())
    aclnn.aclGetRecentErrMsg()
    yield
    aclnn.set_platform(previous)


@pytest.fixture(scope="module")
def stream():
    status, s = aclnn.aclrtCreateStream()
    assert status == aclnn.ACL_SUCCESS
    yield s
    assert aclnn.aclrtDestroyStream(s) == aclnn.ACL_SUCCESS

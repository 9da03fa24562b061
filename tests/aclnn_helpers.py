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

from swishgrad_numba import Platform, aclnn, swish_backward
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


LAYOUTS = ["contiguous", "transposed", "sliced", "stride0"]


def _layouts(rng, dtype):
    """(name, storage base, view) pairs: contiguous, transposed, sliced, stride 0."""
    base = random_values(rng, (6, 10), dtype)
    yield "contiguous", base[:4, :5].copy(), None
    base_t = random_values(rng, (10, 6), dtype)
    yield "transposed", base_t, base_t.T[1:5, 2:7]
    yield "sliced", base, base[1:5, 1:10:2]
    row = base.reshape(-1)[:5]
    yield "stride0", base, np.lib.stride_tricks.as_strided(row, shape=(4, 5), strides=(0, base.itemsize))


def _layout_tensor(rng, dtype, layout):
    """(storage base, view, tensor) of a random 4 x 5 view laid out as ``layout`` (one of :data:`LAYOUTS`)."""
    for name, base, view in _layouts(rng, dtype):
        if name == layout:
            if view is None:
                return base, base, tensor(base)
            return base, view, tensor_over(view, base)


def run_layouts(dtype, in_layout, out_layout, beta, stream, platform=None):
    """Launch on the current platform over gradOutput and self laid out as ``in_layout``, gradInput as
    ``out_layout``; returns (gradInput's whole storage, what ``swish_backward(platform=platform)`` makes of it)."""
    rng = np.random.default_rng(42)
    g_base, g_view, g_t = _layout_tensor(rng, dtype, in_layout)
    x_base, x_view, x_t = _layout_tensor(rng, dtype, in_layout)
    o_base, o_view, o_t = _layout_tensor(rng, dtype, out_layout)
    expected_base = o_base.copy()
    expected_view = expected_base if o_view is o_base else np.lib.stride_tricks.as_strided(
        expected_base.reshape(-1)[(o_view.__array_interface__["data"][0] - o_base.__array_interface__["data"][0])
                                  // o_base.itemsize:], shape=o_view.shape, strides=o_view.strides)
    swish_backward(g_view, x_view, beta, out=expected_view, platform=platform)
    status, _ = launch(g_t, x_t, aclnn.aclCreateScalar(beta, ACL_FLOAT), o_t, stream)
    assert status == ACLNN_SUCCESS
    return o_base, expected_base


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

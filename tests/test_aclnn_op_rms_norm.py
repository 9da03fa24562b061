"""aclnnRmsNorm (swishgrad_numba.aclnn.op_rms_norm): the page's statuses, and launches bit for bit against
tests/reference_rms_norm.py and the functional rms_norm."""
import numpy as np
import pytest

from aclnn_helpers import BF16, F16, F32, bits, reference_platform, stream, tensor  # noqa: F401
from reference_rms_norm import rms_norm_a2
from swishgrad_numba import ASCEND950_PLATFORM, aclnn
from swishgrad_numba.aclnn import (ACL_DOUBLE, ACLNN_ERR_INNER_TILING_ERROR,
                                   ACLNN_ERR_PARAM_INVALID, ACLNN_ERR_PARAM_NULLPTR, ACLNN_SUCCESS, aclnnRmsNorm,
                                   aclnnRmsNormGetWorkspaceSize)
from swishgrad_numba.ops.rms_norm import rms_norm


def _run(x, gamma, eps, stream, rstd_shape=None):
    y = np.full(x.shape, 7, x.dtype)
    rstd = np.full(rstd_shape or x.shape[:x.ndim - gamma.ndim] + (1,) * gamma.ndim, 7, np.float32)
    status, ws, ex = aclnnRmsNormGetWorkspaceSize(tensor(x), tensor(gamma), eps, tensor(y), tensor(rstd))
    assert status == ACLNN_SUCCESS, aclnn.aclGetRecentErrMsg()
    assert aclnnRmsNorm(np.zeros(ws, np.uint8) if ws else None, ws, ex, stream) == ACLNN_SUCCESS
    assert aclnn.aclrtSynchronizeStream(stream) == aclnn.ACL_SUCCESS
    return ws, y, rstd


@pytest.mark.parametrize("x_dtype, g_dtype", [(F32, F32), (F16, F16), (BF16, BF16), (F16, F32), (BF16, F32)],
                         ids=str)
@pytest.mark.parametrize("shape, axes", [((3, 100), 1), ((2, 3, 700), 2), ((2, 3000), 1), ((1, 12300), 1)])
def test_launch_matches_the_reference_and_the_functional(stream, x_dtype, g_dtype, shape, axes):
    rng = np.random.default_rng(3)
    x = (rng.standard_normal(shape) * 2).astype(x_dtype)
    gamma = rng.standard_normal(shape[len(shape) - axes:]).astype(g_dtype)
    ws, y, rstd = _run(x, gamma, 1e-6, stream)
    assert ws == 256 + 16 * 1024 * 1024
    yr, rr = rms_norm_a2(x, gamma, 1e-6)
    assert np.array_equal(bits(y), bits(yr)) and np.array_equal(bits(rstd), bits(rr))
    yf, rf = rms_norm(x, gamma, 1e-6)
    assert np.array_equal(bits(y), bits(yf)) and np.array_equal(bits(rstd), bits(rf))


def test_empty_x_succeeds_with_no_workspace(stream):
    ws, y, rstd = _run(np.ones((0, 4), F32), np.ones(4, F32), 1e-6, stream)
    assert ws == 0


def _status(x, gamma, y, rstd, eps=1e-6):
    args = [(tensor(a, ACL_DOUBLE) if a.dtype == np.float64 else tensor(a)) if isinstance(a, np.ndarray) else a
            for a in (x, gamma, y, rstd)]
    status, ws, ex = aclnnRmsNormGetWorkspaceSize(args[0], args[1], eps, args[2], args[3])
    return status, aclnn.aclGetRecentErrMsg()


X, G, Y, R = np.ones((2, 4), F32), np.ones(4, F32), np.ones((2, 4), F32), np.ones((2, 1), F32)


@pytest.mark.parametrize("args, eps, status, message", [
    ((None, G, Y, R), 1e-6, ACLNN_ERR_PARAM_NULLPTR, "x"),
    ((X, G, Y, None), 1e-6, ACLNN_ERR_PARAM_NULLPTR, "rstdOut"),
    ((X.astype(np.float64), G, Y, R), 1e-6, ACLNN_ERR_PARAM_INVALID, "dtype of x"),
    ((X, G.astype(F16), Y, R), 1e-6, ACLNN_ERR_PARAM_INVALID, "dtype of gamma"),
    ((X.astype(F16), G.astype(BF16), Y.astype(F16), R), 1e-6, ACLNN_ERR_PARAM_INVALID, "dtype of gamma"),
    ((X.astype(F16), G, Y, R), 1e-6, ACLNN_ERR_PARAM_INVALID, "dtype of yOut"),
    ((X, G, Y, R.astype(F16)), 1e-6, ACLNN_ERR_PARAM_INVALID, "dtype of rstdOut"),
    ((X, np.ones(3, F32), Y, R), 1e-6, ACLNN_ERR_INNER_TILING_ERROR, "gamma"),
    ((X, G, np.ones((2, 5), F32), R), 1e-6, ACLNN_ERR_INNER_TILING_ERROR, "yOut"),
    ((X, G, Y, np.ones((2, 2), F32)), 1e-6, ACLNN_ERR_INNER_TILING_ERROR, "rstdOut"),
    ((X, G, Y, R), -1.0, ACLNN_ERR_INNER_TILING_ERROR, "epsilon"),
])
def test_phase_one_statuses(args, eps, status, message):
    got, msg = _status(*args, eps=eps)
    assert got == status and message in msg


@pytest.mark.parametrize("n", [300, 20000])   # full_load, split
def test_the_950_launch(stream, n):
    from reference_rms_norm_950 import rms_norm_950
    aclnn.set_platform(ASCEND950_PLATFORM)
    x = np.random.default_rng(2).standard_normal((5, n)).astype(BF16)
    gamma = np.random.default_rng(3).standard_normal(n).astype(F32)
    _, y, rstd = _run(x, gamma, 1e-5, stream)
    yr, rr = rms_norm_950(x, gamma, 1e-5)
    assert np.array_equal(bits(y), bits(yr)) and np.array_equal(bits(rstd), bits(rr))


def test_an_executor_runs_once(stream):
    status, ws, ex = aclnnRmsNormGetWorkspaceSize(tensor(X), tensor(G), 1e-6, tensor(Y.copy()), tensor(R.copy()))
    work = np.zeros(ws, np.uint8)
    assert aclnnRmsNorm(work, ws, ex, stream) == ACLNN_SUCCESS
    assert aclnnRmsNorm(work, ws, ex, stream) == aclnn.ACLNN_ERR_INNER_EXECUTOR_REUSED
    assert aclnnRmsNorm(work, ws - 1, None, stream) == ACLNN_ERR_PARAM_NULLPTR


def test_an_unmodelled_soc_is_refused():
    from swishgrad_numba import Platform
    aclnn.set_platform(Platform(soc_version="ascend310p"))
    got, msg = _status(X, G, Y, R)
    assert got == aclnn.ACLNN_ERR_INNER_NULLPTR and "ascend310p" in msg

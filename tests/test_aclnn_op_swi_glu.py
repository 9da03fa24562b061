"""aclnnSwiGlu (swishgrad_numba.aclnn.op_swi_glu): the page's statuses, and launches bit for bit against
tests/reference_swiglu.py and the functional swiglu (issue 41)."""
import numpy as np
import pytest

from aclnn_helpers import BF16, F16, F32, bits, reference_platform, stream, tensor  # noqa: F401
from reference_swiglu import swiglu_grad_950_ref, swiglu_grad_a2_ref, swiglu_ref
from swishgrad_numba import ASCEND950_PLATFORM, Platform, aclnn
from swishgrad_numba.aclnn import (ACL_DOUBLE, ACLNN_ERR_PARAM_INVALID, ACLNN_ERR_PARAM_NULLPTR, ACLNN_SUCCESS,
                                   aclnnSwiGlu, aclnnSwiGluGetWorkspaceSize, aclnnSwiGluGrad,
                                   aclnnSwiGluGradGetWorkspaceSize)
from swishgrad_numba.ops.swi_glu import swiglu, swiglu_backward


def _run(x, dim, stream):
    d = dim % x.ndim
    out = np.full(x.shape[:d] + (x.shape[d] // 2,) + x.shape[d + 1:], 7, x.dtype)
    status, ws, ex = aclnnSwiGluGetWorkspaceSize(tensor(x), dim, tensor(out))
    assert status == ACLNN_SUCCESS, aclnn.aclGetRecentErrMsg()
    assert aclnnSwiGlu(np.zeros(ws, np.uint8) if ws else None, ws, ex, stream) == ACLNN_SUCCESS
    assert aclnn.aclrtSynchronizeStream(stream) == aclnn.ACL_SUCCESS
    return ws, out


@pytest.mark.parametrize("soc", ["a2", "950"])
@pytest.mark.parametrize("dtype", [F32, F16, BF16], ids=str)
@pytest.mark.parametrize("shape, dim", [((3, 10), -1), ((4, 6, 5), 1), ((6, 3), 0), ((2, 1000), -1)])
def test_launch_matches_the_reference_and_the_functional(stream, dtype, shape, dim, soc):
    if soc == "950":
        aclnn.set_platform(ASCEND950_PLATFORM)
    x = (np.random.default_rng(3).standard_normal(shape) * 3).astype(dtype)
    ws, out = _run(x, dim, stream)
    assert ws == 16 * 1024 * 1024
    assert np.array_equal(bits(out), bits(swiglu_ref(x, dim)))
    plat = ASCEND950_PLATFORM if soc == "950" else None
    assert np.array_equal(bits(out), bits(swiglu(x, dim, platform=plat)))


@pytest.mark.parametrize("shape", [(0, 4), (2, 0, 6)])
def test_empty_x_succeeds_with_no_workspace(stream, shape):
    ws, out = _run(np.ones(shape, F16), -1, stream)
    assert ws == 0


def _status(x, dim, out):
    args = [(tensor(a, ACL_DOUBLE) if a.dtype == np.float64 else tensor(a)) if isinstance(a, np.ndarray) else a
            for a in (x, out)]
    status, ws, ex = aclnnSwiGluGetWorkspaceSize(args[0], dim, args[1])
    return status, aclnn.aclGetRecentErrMsg()


X, O = np.ones((2, 4), F32), np.ones((2, 2), F32)


@pytest.mark.parametrize("x, dim, out, status, message", [
    (None, -1, O, ACLNN_ERR_PARAM_NULLPTR, "x"),
    (X, -1, None, ACLNN_ERR_PARAM_NULLPTR, "out"),
    (X.astype(np.float64), -1, O, ACLNN_ERR_PARAM_INVALID, "dtype of x"),
    (X, -1, O.astype(F16), ACLNN_ERR_PARAM_INVALID, "dtype of out"),
    (X, 2, O, ACLNN_ERR_PARAM_INVALID, "dim 2"),
    (X, -3, O, ACLNN_ERR_PARAM_INVALID, "dim -3"),
    (X, 0, O, ACLNN_ERR_PARAM_INVALID, "shape of out"),
    (np.ones((2, 5), F32), -1, O, ACLNN_ERR_PARAM_INVALID, "even length at dim -1"),
    (np.ones((3, 4), F32), 0, O, ACLNN_ERR_PARAM_INVALID, "even length at dim 0"),
    (X, -1, np.ones((2, 4), F32), ACLNN_ERR_PARAM_INVALID, "shape of out"),
    (X, 1.0, O, ACLNN_ERR_PARAM_INVALID, "dim must be an int64"),
])
def test_phase_one_refusals_name_the_argument(x, dim, out, status, message):
    got, msg = _status(x, dim, out)
    assert got == status and message in msg, msg


def test_an_executor_runs_once(stream):
    status, ws, ex = aclnnSwiGluGetWorkspaceSize(tensor(X), -1, tensor(O.copy()))
    work = np.zeros(ws, np.uint8)
    assert aclnnSwiGlu(work, ws, ex, stream) == ACLNN_SUCCESS
    assert aclnnSwiGlu(work, ws, ex, stream) == aclnn.ACLNN_ERR_INNER_EXECUTOR_REUSED


def test_an_unmodelled_soc_is_refused():
    aclnn.set_platform(Platform(soc_version="ascend310p"))
    got, msg = _status(X, -1, O)
    assert got == aclnn.ACLNN_ERR_INNER_NULLPTR and "ascend310p" in msg


# ---------------------------------------------------------------- aclnnSwiGluGrad
@pytest.mark.parametrize("soc", ["a2", "950"])
@pytest.mark.parametrize("dtype", [F32, F16, BF16], ids=str)
@pytest.mark.parametrize("shape, dim", [((3, 10), -1), ((4, 6, 5), 1), ((2, 1000), -1)])
def test_grad_launch_matches_the_reference_and_the_functional(stream, dtype, shape, dim, soc):
    plat, ref = (ASCEND950_PLATFORM, swiglu_grad_950_ref) if soc == "950" else (None, swiglu_grad_a2_ref)
    if plat is not None:
        aclnn.set_platform(plat)
    rng = np.random.default_rng(4)
    d = dim % len(shape)
    x = (rng.standard_normal(shape) * 3).astype(dtype)
    g = rng.standard_normal(shape[:d] + (shape[d] // 2,) + shape[d + 1:]).astype(dtype)
    out = np.full(shape, 7, dtype)
    status, ws, ex = aclnnSwiGluGradGetWorkspaceSize(tensor(g), tensor(x), dim, tensor(out))
    assert status == ACLNN_SUCCESS, aclnn.aclGetRecentErrMsg()
    assert aclnnSwiGluGrad(np.zeros(ws, np.uint8), ws, ex, stream) == ACLNN_SUCCESS
    assert aclnn.aclrtSynchronizeStream(stream) == aclnn.ACL_SUCCESS
    assert np.array_equal(bits(out), bits(ref(g, x, dim)))
    assert np.array_equal(bits(out), bits(swiglu_backward(g, x, dim, platform=plat)))


G = np.ones((2, 2), F32)


@pytest.mark.parametrize("g, x, dim, out, status, message", [
    (None, X, -1, X, ACLNN_ERR_PARAM_NULLPTR, "yGrad"),
    (G, X, -1, None, ACLNN_ERR_PARAM_NULLPTR, "out"),
    (G.astype(F16), X, -1, X, ACLNN_ERR_PARAM_INVALID, "dtype of yGrad"),
    (G, X, 2, X, ACLNN_ERR_PARAM_INVALID, "dim 2"),
    (np.ones((2, 4), F32), X, -1, X, ACLNN_ERR_PARAM_INVALID, "shape of yGrad"),
    (G, X, -1, G, ACLNN_ERR_PARAM_INVALID, "shape of out"),
    (np.ones((0, 2), F32), np.ones((0, 4), F32), -1, np.ones((0, 4), F32), ACLNN_ERR_PARAM_INVALID, "empty"),
])
def test_grad_phase_one_refusals_name_the_argument(g, x, dim, out, status, message):
    args = [tensor(a) if isinstance(a, np.ndarray) else a for a in (g, x, out)]
    got, ws, ex = aclnnSwiGluGradGetWorkspaceSize(args[0], args[1], dim, args[2])
    msg = aclnn.aclGetRecentErrMsg()
    assert got == status and message in msg, msg


def test_grad_on_the_950_has_its_hosts_workspace():
    """``PostTiling``: 16 MiB and one 32-byte block per core used; the A2's is 16 MiB."""
    aclnn.set_platform(ASCEND950_PLATFORM)
    x = np.ones((64, 2048), F32)
    got, ws, ex = aclnnSwiGluGradGetWorkspaceSize(tensor(np.ones((64, 1024), F32)), tensor(x), -1,
                                                  tensor(x.copy()))
    assert got == ACLNN_SUCCESS, aclnn.aclGetRecentErrMsg()
    assert ws == 16 * 1024 * 1024 + 32 * ex.tiling.used_core_num and ex.tiling.used_core_num == 8

"""aclnnGelu and aclnnGeluBackward (generated from ops/gelu/, ops/gelu_grad/): the op_apis' statuses, and launches bit
for bit against the plain references of tests/reference_activations.py."""
import numpy as np
import pytest

from aclnn_helpers import BF16, F16, F32, WORKSPACE, random_values, reference_platform, stream, tensor  # noqa: F401
from reference import assert_bits_equal
from reference_activations import ref_gelu, ref_gelu_backward
from swishgrad_numba import ASCEND950_PLATFORM, Platform, aclnn
from swishgrad_numba.aclnn import (ACL_FORMAT_NC1HWC0, ACL_INT32, ACLNN_ERR_PARAM_INVALID, ACLNN_ERR_PARAM_NULLPTR,
                                   ACLNN_SUCCESS, aclnnGelu, aclnnGeluBackward, aclnnGeluBackwardGetWorkspaceSize,
                                   aclnnGeluGetWorkspaceSize)

PLATFORMS = {"a2": Platform(), "a2_310b": Platform(soc_version="ascend310b"), "arch35": ASCEND950_PLATFORM,
             "arch35_unfused": Platform(soc_version="ascend950", axpy_rounding="unfused")}


def _run(phase_one, phase_two, tensors, stream):
    status, ws, executor = phase_one(*tensors)
    assert status == ACLNN_SUCCESS, aclnn.aclGetRecentErrMsg()
    assert phase_two(WORKSPACE if ws else None, ws, executor, stream) == ACLNN_SUCCESS
    assert aclnn.aclrtSynchronizeStream(stream) == aclnn.ACL_SUCCESS
    return ws


@pytest.mark.parametrize("kernel", list(PLATFORMS))
@pytest.mark.parametrize("dtype", [F32, F16, BF16], ids=str)
def test_launches_match_the_references(kernel, dtype, stream):
    if kernel == "a2_310b" and dtype == BF16:
        pytest.skip("no bfloat16 on ascend310b")
    platform = PLATFORMS[kernel]
    aclnn.set_platform(platform)
    ref_kernel, axpy = kernel.replace("_unfused", ""), "unfused" if "unfused" in kernel else "fused"
    rng = np.random.default_rng(29)
    x = (random_values(rng, (3, 5, 7), dtype).astype(F32) * 2).astype(dtype)
    out = np.zeros_like(x)
    ws = _run(aclnnGeluGetWorkspaceSize, aclnnGelu, (tensor(x), tensor(out)), stream)
    assert ws == (16 << 20)
    if ref_kernel != "a2_310b":
        assert_bits_equal(out, ref_gelu(x, ref_kernel, axpy))
    dy = random_values(rng, (3, 5, 7), dtype)
    grad = np.zeros_like(x)
    _run(aclnnGeluBackwardGetWorkspaceSize, aclnnGeluBackward, (tensor(dy), tensor(x), tensor(grad)), stream)
    assert_bits_equal(grad, ref_gelu_backward(dy, x, ref_kernel, axpy))


@pytest.mark.parametrize("kernel", ["a2", "arch35"])
def test_backward_broadcasts(kernel, stream):
    aclnn.set_platform(PLATFORMS[kernel])
    rng = np.random.default_rng(5)
    dy, x = random_values(rng, (4, 1, 6), F32), random_values(rng, (3, 1), F32)
    out = np.zeros((4, 3, 6), F32)
    _run(aclnnGeluBackwardGetWorkspaceSize, aclnnGeluBackward, (tensor(dy), tensor(x), tensor(out)), stream)
    b = np.broadcast_to
    assert_bits_equal(out, ref_gelu_backward(b(dy, out.shape).copy(), b(x, out.shape).copy(), kernel))


def test_statuses():
    x, o = np.ones((2, 3), F32), np.zeros((2, 3), F32)
    gelu = lambda *t: aclnnGeluGetWorkspaceSize(*t)[0]   # noqa: E731
    grad = lambda *t: aclnnGeluBackwardGetWorkspaceSize(*t)[0]   # noqa: E731
    assert gelu(None, tensor(o)) == ACLNN_ERR_PARAM_NULLPTR
    assert grad(tensor(x), None, tensor(o)) == ACLNN_ERR_PARAM_NULLPTR
    assert gelu(tensor(np.ones((2, 3), np.int32), ACL_INT32), tensor(o)) == ACLNN_ERR_PARAM_INVALID
    assert gelu(tensor(x), tensor(np.zeros((2, 3), F16))) == ACLNN_ERR_PARAM_INVALID        # dtypes differ
    assert gelu(tensor(x), tensor(np.zeros((3, 2), F32))) == ACLNN_ERR_PARAM_INVALID        # shapes differ
    assert gelu(tensor(np.ones((1,) * 9, F32)), tensor(np.zeros((1,) * 9, F32))) == ACLNN_ERR_PARAM_INVALID
    assert gelu(tensor(x), tensor(o, fmt=ACL_FORMAT_NC1HWC0)) == ACLNN_ERR_PARAM_INVALID
    assert grad(tensor(np.ones((2, 1), F32)), tensor(x), tensor(o)) == ACLNN_SUCCESS       # broadcasts to gradInput
    assert grad(tensor(np.ones((4, 1), F32)), tensor(x), tensor(o)) == ACLNN_ERR_PARAM_INVALID
    assert grad(tensor(np.ones((2, 3), F16)), tensor(x), tensor(o)) == ACLNN_SUCCESS   # promoted to float32
    assert grad(tensor(np.ones((2, 3), F16)), tensor(x), tensor(np.zeros((2, 3), F16))) == ACLNN_ERR_PARAM_INVALID
    assert "not emulated" in aclnn.aclGetRecentErrMsg()
    assert gelu(tensor(np.zeros((0, 3), F32)), tensor(np.zeros((0, 3), F32))) == ACLNN_SUCCESS


def test_backward_promotes_mixed_inputs(stream):
    aclnn.set_platform(ASCEND950_PLATFORM)
    rng = np.random.default_rng(6)
    dy, x = random_values(rng, (6, 7), F16), random_values(rng, (6, 7), BF16)
    out = np.zeros((6, 7), F32)
    _run(aclnnGeluBackwardGetWorkspaceSize, aclnnGeluBackward, (tensor(dy), tensor(x), tensor(out)), stream)
    assert_bits_equal(out, ref_gelu_backward(dy.astype(F32), x.astype(F32), "arch35"))

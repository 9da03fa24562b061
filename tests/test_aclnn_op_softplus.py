"""aclnnSoftplus / aclnnSoftplusBackward (swishgrad_numba.aclnn.op_softplus): the op_api's checks and
statuses, the A2 refusal of Softplus, the op_api's Casts, and launches bit for bit against the plain
references (tests/reference_activations_tier2.py)."""
import numpy as np
import pytest

from aclnn_helpers import (BF16, F16, F32, WORKSPACE, random_values, reference_platform,  # noqa: F401
                           stream, tensor, tensor_over)
from reference import assert_bits_equal
from reference_activations_tier2 import ref_softplus, ref_softplus_backward
from swishgrad_numba import Platform, aclnn
from swishgrad_numba.aclnn import (ACL_COMPLEX64, ACL_DOUBLE, ACL_FLOAT, ACL_FORMAT_NC1HWC0, ACL_INT32,
                                   ACLNN_ERR_INNER_NULLPTR, ACLNN_ERR_PARAM_INVALID, ACLNN_ERR_PARAM_NULLPTR,
                                   ACLNN_SUCCESS, aclCreateScalar)

P950 = Platform(soc_version="ascend950")
A2 = Platform(soc_version="ascend910b")


def _scalars(beta=1.0, threshold=20.0, dt=ACL_FLOAT):
    return aclCreateScalar(beta, dt), aclCreateScalar(threshold, dt)


def _run(args, s=None, backward=False):
    if backward:
        status, ws, ex = aclnn.aclnnSoftplusBackwardGetWorkspaceSize(*args)
        launch = aclnn.aclnnSoftplusBackward
    else:
        status, ws, ex = aclnn.aclnnSoftplusGetWorkspaceSize(*args)
        launch = aclnn.aclnnSoftplus
    if status != ACLNN_SUCCESS:
        assert ws == 0 and ex is None
        return status
    status = launch(WORKSPACE if ws else None, ws, ex, s)
    assert aclnn.aclrtSynchronizeStream(s) == aclnn.ACL_SUCCESS
    return status


@pytest.mark.parametrize("dtype", [F32, F16, BF16], ids=["f32", "f16", "bf16"])
@pytest.mark.parametrize("platform", [P950, A2], ids=["950", "a2"])
def test_launch_bits(dtype, platform, stream):
    aclnn.set_platform(platform)
    rng = np.random.default_rng(4)
    x, dy = random_values(rng, (3, 777), dtype) * dtype.type(8), random_values(rng, (3, 777), dtype)
    beta, threshold = _scalars(0.75, 6.0)
    if platform is P950:
        out = np.zeros_like(x)
        assert _run((tensor(x), beta, threshold, tensor(out)), stream) == ACLNN_SUCCESS
        assert_bits_equal(out, ref_softplus(x, 0.75, 6.0))
    grad_in = np.zeros_like(x)
    assert _run((tensor(dy), tensor(x), beta, threshold, tensor(grad_in)), stream, True) == ACLNN_SUCCESS
    kernel = "arch35" if platform is P950 else "a2"
    assert_bits_equal(grad_in, ref_softplus_backward(dy, x, 0.75, 6.0, kernel))


def test_softplus_on_the_a2_fails_at_the_launcher():
    aclnn.set_platform(A2)
    x = np.ones((2, 3), dtype=F32)
    assert _run((tensor(x), *_scalars(), tensor(np.zeros_like(x)))) == ACLNN_ERR_INNER_NULLPTR
    message = aclnn.aclGetRecentErrMsg()
    assert "SoftplusV2 launcher" in message and "ascend910b" in message


def test_casts_of_the_op_api(stream):
    aclnn.set_platform(P950)
    rng = np.random.default_rng(6)
    x = random_values(rng, (50,), F16) * F16.type(4)
    # Softplus: the result Cast to out's dtype (float16 -> float32 and float64: exact)
    for dt in (np.float32, np.float64):
        out = np.zeros(x.shape, dt)
        data_type = ACL_FLOAT if dt == np.float32 else ACL_DOUBLE
        assert _run((tensor(x), *_scalars(), tensor(out, data_type)), stream) == ACLNN_SUCCESS
        assert_bits_equal(out.astype(np.float32).astype(F16), ref_softplus(x))
    # SoftplusBackward: float64 and int32 inputs run the float32 kernel, the result Cast to gradInput's
    xd = rng.uniform(-30, 30, 50)
    dy = rng.integers(-3, 4, 50).astype(np.int32)
    gi = np.zeros(50, np.float16)
    assert _run((tensor(dy, ACL_INT32), tensor(xd, ACL_DOUBLE), *_scalars(), tensor(gi)), stream, True) \
        == ACLNN_ERR_PARAM_INVALID      # gradOutput cannot be int32
    assert _run((tensor(dy.astype(np.float64), ACL_DOUBLE), tensor(xd, ACL_DOUBLE), *_scalars(), tensor(gi)),
                stream, True) == ACLNN_SUCCESS
    want = ref_softplus_backward(dy.astype(np.float32), xd.astype(np.float32), 1.0, 20.0, "arch35")
    assert_bits_equal(gi, want.astype(np.float16))
    xi = rng.integers(-20, 20, 50).astype(np.int32)
    assert _run((tensor(dy.astype(F16)), tensor(xi, ACL_INT32), *_scalars(), tensor(gi)), stream, True) \
        == ACLNN_SUCCESS
    want = ref_softplus_backward(dy.astype(np.float32), xi.astype(np.float32), 1.0, 20.0, "arch35")
    assert_bits_equal(gi, want.astype(np.float16))


def test_strided_views(stream):
    aclnn.set_platform(P950)
    base_x = random_values(np.random.default_rng(5), (6, 8), F16)
    base_o = np.zeros((8, 6), dtype=F16)
    assert _run((tensor_over(base_x.T, base_x), *_scalars(), tensor(base_o)), stream) == ACLNN_SUCCESS
    assert_bits_equal(base_o, ref_softplus(np.ascontiguousarray(base_x.T)))


def test_statuses():
    aclnn.set_platform(P950)
    x = np.ones((2, 3), F32)
    out = np.zeros_like(x)
    b, t = _scalars()
    assert _run((None, b, t, tensor(out))) == ACLNN_ERR_PARAM_NULLPTR
    assert _run((tensor(x), None, t, tensor(out))) == ACLNN_ERR_PARAM_NULLPTR
    assert "beta" in aclnn.aclGetRecentErrMsg()
    assert _run((tensor(x), b, None, tensor(out))) == ACLNN_ERR_PARAM_NULLPTR
    assert _run((tensor(x), b, t, None)) == ACLNN_ERR_PARAM_NULLPTR
    assert _run((tensor(x.astype(np.float64), ACL_DOUBLE), b, t, tensor(out))) == ACLNN_ERR_PARAM_INVALID
    assert _run((tensor(x), aclCreateScalar(1.0, ACL_COMPLEX64), t, tensor(out))) == ACLNN_ERR_PARAM_INVALID
    assert _run((tensor(x), b, t, tensor(out.astype(np.int32), ACL_INT32))) == ACLNN_ERR_PARAM_INVALID
    assert _run((tensor(x), b, t, tensor(np.zeros((3, 2), F32)))) == ACLNN_ERR_PARAM_INVALID
    assert _run((tensor(np.ones((1,) * 9, F32)), b, t, tensor(np.zeros((1,) * 9, F32)))) == ACLNN_ERR_PARAM_INVALID
    assert _run((tensor(x, fmt=ACL_FORMAT_NC1HWC0), b, t, tensor(out))) == ACLNN_ERR_PARAM_INVALID
    assert _run((tensor(x), b, t, tensor(out)), backward=False) == ACLNN_SUCCESS
    # backward
    assert _run((tensor(x), tensor(x), b, t, None), backward=True) == ACLNN_ERR_PARAM_NULLPTR
    assert _run((tensor(x), tensor(x), None, t, tensor(out)), backward=True) == ACLNN_ERR_PARAM_NULLPTR
    assert _run((tensor(x), tensor(np.ones((3, 2), F32)), b, t, tensor(out)), backward=True) == ACLNN_ERR_PARAM_INVALID
    # empty tensors: workspace 0, nothing launched
    e = np.zeros((0, 3), F32)
    assert _run((tensor(e), b, t, tensor(e.copy()))) == ACLNN_SUCCESS
    assert _run((tensor(e), tensor(e), b, t, tensor(e.copy())), backward=True) == ACLNN_SUCCESS


def test_bfloat16_list_by_soc():
    aclnn.set_platform(Platform(soc_version="ascend910"))
    x = np.ones(4, BF16)
    assert _run((tensor(x), tensor(x), *_scalars(), tensor(np.zeros_like(x))), backward=True) \
        == ACLNN_ERR_PARAM_INVALID

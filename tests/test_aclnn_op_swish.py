"""aclnnSwish / aclnnSilu (generated: swishgrad_numba.aclnn.described): the op_api's checks and statuses, and launches
bit for bit against the plain reference (tests/reference_family.py)."""
import dataclasses

import numpy as np
import pytest

from aclnn_helpers import (BF16, F16, F32, WORKSPACE, random_values, reference_platform,  # noqa: F401
                           stream, tensor, tensor_over)
from reference import assert_bits_equal
from reference_family import ref_swish
from swishgrad_numba import Platform, aclnn
from swishgrad_numba import silu as sg_silu
from swishgrad_numba.dtypes import FLOAT32
from swishgrad_numba.ops import get_operator
from swishgrad_numba.platform import ASCEND950_PLATFORM, REFERENCE_PLATFORM
from swishgrad_numba.aclnn import (ACL_COMPLEX64, ACL_FLOAT, ACL_FLOAT16, ACL_FORMAT_NC1HWC0, ACL_INT32,
                                   ACLNN_ERR_INNER_NULLPTR, ACLNN_ERR_PARAM_INVALID, ACLNN_ERR_PARAM_NULLPTR,
                                   ACLNN_SUCCESS)


def _run(op, x_t, out_t, beta=None, s=None):
    if op == "swish":
        status, ws, ex = aclnn.aclnnSwishGetWorkspaceSize(x_t, beta, out_t)
    else:
        status, ws, ex = aclnn.aclnnSiluGetWorkspaceSize(x_t, out_t)
    if status != ACLNN_SUCCESS:
        assert ws == 0 and ex is None
        return status
    launch = aclnn.aclnnSwish if op == "swish" else aclnn.aclnnSilu
    status = launch(WORKSPACE if ws else None, ws, ex, s)
    assert aclnn.aclrtSynchronizeStream(s) == aclnn.ACL_SUCCESS
    return status


@pytest.mark.parametrize("soc", ["ascend910b", "ascend950"])
@pytest.mark.parametrize("dtype", [F32, F16, BF16], ids=["f32", "f16", "bf16"])
def test_launch_bits(soc, dtype, stream):
    platform = Platform(soc_version=soc)
    aclnn.set_platform(platform)
    x = random_values(np.random.default_rng(4), (3, 77), dtype)
    for beta in (None, 1.7, -1.0, 0.0):
        out = np.zeros_like(x)
        scalar = None if beta is None else aclnn.aclCreateScalar(beta, ACL_FLOAT)
        assert _run("swish", tensor(x), tensor(out), scalar, stream) == ACLNN_SUCCESS
        assert_bits_equal(out, ref_swish(x, 1.0 if beta is None else beta, platform.architecture))
    out = np.zeros_like(x)
    assert _run("silu", tensor(x), tensor(out), None, stream) == ACLNN_SUCCESS
    assert_bits_equal(out, ref_swish(x, 1.0, platform.architecture))


def test_strided_out(stream):
    base_x = random_values(np.random.default_rng(5), (6, 8), F32)
    base_o = np.zeros((8, 6), dtype=F32)
    view_x, view_o = base_x.T, base_o[:, :]
    assert _run("swish", tensor_over(view_x, base_x), tensor_over(view_o, base_o),
                aclnn.aclCreateScalar(0.5, ACL_FLOAT), stream) == ACLNN_SUCCESS
    assert_bits_equal(base_o, ref_swish(np.ascontiguousarray(view_x), 0.5, "a2"))


def test_checks(stream):
    x = np.ones((2, 3), dtype=F32)
    out = np.zeros_like(x)
    assert _run("swish", None, tensor(out)) == ACLNN_ERR_PARAM_NULLPTR
    assert _run("silu", tensor(x), None) == ACLNN_ERR_PARAM_NULLPTR
    assert "out is a null pointer" in aclnn.aclGetRecentErrMsg()
    assert _run("swish", tensor(np.ones(3, dtype=np.int32), ACL_INT32), tensor(np.ones(3, dtype=np.int32),
                                                                             ACL_INT32)) == ACLNN_ERR_PARAM_INVALID
    assert _run("swish", tensor(x), tensor(np.zeros((2, 3), dtype=F16))) == ACLNN_ERR_PARAM_INVALID
    assert "must equal dtype of self" in aclnn.aclGetRecentErrMsg()
    assert _run("swish", tensor(x), tensor(out), aclnn.aclCreateScalar(1.0, ACL_COMPLEX64)) == ACLNN_ERR_PARAM_INVALID
    assert _run("swish", tensor(x), tensor(np.zeros((3, 2), dtype=F32))) == ACLNN_ERR_PARAM_INVALID
    nine = np.ones((1,) * 9, dtype=F32)
    assert _run("swish", tensor(nine), tensor(np.zeros_like(nine))) == ACLNN_ERR_PARAM_INVALID
    assert "at most 8" in aclnn.aclGetRecentErrMsg()
    # aclnnSilu has no dimension check.
    assert _run("silu", tensor(nine), tensor(np.zeros_like(nine)), None, stream) == ACLNN_SUCCESS
    fmt = aclnn.aclCreateTensor(x.shape, ACL_FLOAT, None, 0, ACL_FORMAT_NC1HWC0, x.shape, x)
    assert _run("swish", fmt, tensor(out)) == ACLNN_ERR_PARAM_INVALID
    # Empty: workspace 0, success.
    e = np.zeros((0, 4), dtype=F16)
    status, ws, ex = aclnn.aclnnSiluGetWorkspaceSize(tensor(e, ACL_FLOAT16), tensor(np.zeros_like(e), ACL_FLOAT16))
    assert (status, ws) == (ACLNN_SUCCESS, 0) and ex is not None


def test_bf16_soc_rules(stream):
    x = np.ones(4, dtype=BF16)
    # ascend310p: no bfloat16 in the dtype list (not DAV_2201, not a 950).
    aclnn.set_platform(Platform(soc_version="ascend310p"))
    assert _run("swish", tensor(x), tensor(np.zeros_like(x))) == ACLNN_ERR_PARAM_INVALID
    # The A3 passes the op_api's checks, but the A2 Swish host tiling refuses bfloat16 there.
    aclnn.set_platform(Platform(soc_version="ascend910_93"))
    assert _run("silu", tensor(x), tensor(np.zeros_like(x))) == ACLNN_ERR_INNER_NULLPTR
    assert "bfloat16" in aclnn.aclGetRecentErrMsg()
    aclnn.set_platform(Platform(soc_version="ascend950"))
    out = np.zeros_like(x)
    assert _run("silu", tensor(x), tensor(out), None, stream) == ACLNN_SUCCESS
    assert_bits_equal(out, ref_swish(x, 1.0, "arch35"))


def test_executor_runs_once(stream):
    x = np.ones(4, dtype=F32)
    status, ws, ex = aclnn.aclnnSwishGetWorkspaceSize(tensor(x), None, tensor(np.zeros_like(x)))
    assert aclnn.aclnnSilu(WORKSPACE, ws, ex, stream) == ACLNN_ERR_PARAM_INVALID     # not a Silu executor
    assert aclnn.aclnnSwish(WORKSPACE, ws, ex, stream) == ACLNN_SUCCESS
    assert aclnn.aclnnSwish(WORKSPACE, ws, ex, stream) == aclnn.ACLNN_ERR_INNER_EXECUTOR_REUSED
    assert aclnn.aclrtSynchronizeStream(stream) == aclnn.ACL_SUCCESS


def test_a_saturation_stream_computes_in_that_mode():
    # Issue 27.4: the forward on such a stream must not give Inf/NaN-mode bits; it now runs the
    # saturated kernel, as the functional API does on a saturation platform.
    aclnn.set_platform(Platform(soc_version="ascend910b"))
    x = np.linspace(-100, 5, 16).astype(F32)
    out = np.zeros_like(x)
    assert aclnn.aclrtSetDeviceSatMode(aclnn.ACL_RT_OVERFLOW_MODE_SATURATION) == aclnn.ACL_SUCCESS
    try:
        _, s = aclnn.aclrtCreateStream()
        status, ws, ex = aclnn.aclnnSiluGetWorkspaceSize(tensor(x), tensor(out))
        assert status == ACLNN_SUCCESS
        assert aclnn.aclnnSilu(WORKSPACE, ws, ex, s) == ACLNN_SUCCESS
        assert aclnn.aclrtSynchronizeStream(s) == aclnn.ACL_SUCCESS
        expected = sg_silu(x, platform=Platform(soc_version="ascend910b", overflow_mode="saturation"))
        assert_bits_equal(out, expected)
        assert out[0] != 0                       # the Inf/NaN mode gives -0 at x = -100
        aclnn.aclrtDestroyStream(s)
    finally:
        assert aclnn.aclrtSetDeviceSatMode(aclnn.ACL_RT_OVERFLOW_MODE_INFNAN) == aclnn.ACL_SUCCESS


# ---------------------------------------------------------------- the launch runs the stored record


def test_the_launch_runs_the_record_phase_one_stored(stream):
    # A 950 record put in place of the A2 one phase one stored: the launch must run the 950 kernel with it
    # (beta 0: the 950's "zero" DAG, Muls(x, 0.5), gives +-inf at +-inf, where the A2 sequence gives NaN).
    aclnn.set_platform(REFERENCE_PLATFORM)
    x = random_values(np.random.default_rng(6), (5, 40), F32)
    a2_bits, bits_950 = ref_swish(x, 0.0, "a2"), ref_swish(x, 0.0, "arch35")
    assert not np.array_equal(a2_bits.view(np.uint32), bits_950.view(np.uint32))   # the swap is visible
    out = np.zeros_like(x)
    status, ws, ex = aclnn.aclnnSwishGetWorkspaceSize(tensor(x), aclnn.aclCreateScalar(0.0, ACL_FLOAT), tensor(out))
    assert status == ACLNN_SUCCESS and ex.tiling.architecture == "a2"
    ex.tiling = get_operator("swish").host_tiling(x.size, FLOAT32, np.float32(0.0), ASCEND950_PLATFORM)
    assert aclnn.aclnnSwish(WORKSPACE, ws, ex, stream) == ACLNN_SUCCESS
    assert aclnn.aclrtSynchronizeStream(stream) == aclnn.ACL_SUCCESS
    assert_bits_equal(out, bits_950)


@pytest.mark.parametrize("op", ["swish", "silu"])
def test_the_launch_hands_the_stored_record_to_the_kernel(op, stream, monkeypatch):
    # The kernel's run gets the executor's very record, grad None, flat contiguous x and result buffers.
    kernels = get_operator(op).kernels
    seen = []

    def recording(kernel):
        def run(grad, x, out, tiling, saturation=False):
            seen.append((grad, x.ndim, x.flags.c_contiguous, out.ndim, out.flags.c_contiguous, tiling))
            return kernel.run(grad, x, out, tiling, saturation=saturation)
        return run

    for arch in list(kernels):
        monkeypatch.setitem(kernels, arch, dataclasses.replace(kernels[arch], run=recording(kernels[arch])))
    base_x = random_values(np.random.default_rng(7), (6, 8), F16)
    base_o = np.zeros((8, 6), dtype=F16)
    x_t, o_t = tensor_over(base_x.T, base_x), tensor(base_o)
    if op == "swish":
        status, ws, ex = aclnn.aclnnSwishGetWorkspaceSize(x_t, aclnn.aclCreateScalar(1.5, ACL_FLOAT), o_t)
    else:
        status, ws, ex = aclnn.aclnnSiluGetWorkspaceSize(x_t, o_t)
    assert status == ACLNN_SUCCESS
    launch = aclnn.aclnnSwish if op == "swish" else aclnn.aclnnSilu
    assert launch(WORKSPACE, ws, ex, stream) == ACLNN_SUCCESS
    assert aclnn.aclrtSynchronizeStream(stream) == aclnn.ACL_SUCCESS
    assert len(seen) == 1
    grad, x_ndim, x_contig, out_ndim, out_contig, tiling = seen[0]
    assert grad is None and (x_ndim, x_contig, out_ndim, out_contig) == (1, True, 1, True)
    assert tiling is ex.tiling
    assert_bits_equal(base_o, ref_swish(np.ascontiguousarray(base_x.T), 1.5 if op == "swish" else 1.0, "a2"))

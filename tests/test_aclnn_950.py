"""Tests of swishgrad_numba.aclnn on an Ascend 950 platform (model section 9; notes on the mainline op_api).

The op_api is the A2's, but the platform's SoC picks the arch35 kernel, its tiling and workspace, and its op
definition takes ND storage only. Results through the API are compared bit for bit with
``swish_backward(platform=ASCEND950_PLATFORM)`` (tested on its own elsewhere) and with the independent reference of
the 950's instruction sequence in tests/reference.py.
"""
import numpy as np
import pytest

from aclnn_helpers import (  # noqa: F401  (fixtures)
    F32, KERNEL_DTYPES, LAYOUTS, bits, launch, random_values, reference_platform, run_layouts, run_sample, status_of,
    stream, tensor,
)
from reference import assert_bits_equal, ref_swish_grad, ref_swish_grad_950
from swishgrad_numba import ASCEND950_PLATFORM, REFERENCE_PLATFORM, Platform, aclnn, formats, swish_backward
from swishgrad_numba.aclnn import (
    ACL_FLOAT, ACL_FORMAT_FRACTAL_NZ, ACL_FORMAT_NC1HWC0, ACL_FORMAT_NCHW, ACL_FORMAT_ND, ACL_FORMAT_NHWC,
    ACL_MEM_MALLOC_HUGE_FIRST, ACLNN_ERR_PARAM_INVALID, ACLNN_SUCCESS,
)

# The 950 by family name and by a chip name CANN reports.
PLATFORMS_950 = [ASCEND950_PLATFORM, Platform(soc_version="Ascend950PR_9599")]
WORKSPACE_950 = 16 * 1024 * 1024   # the 950 host tiling's workspace (ops-nn swish_grad_tiling_arch35)
SEED_G, SEED_X = np.ones((2, 3), np.float32), np.arange(1, 7, dtype=np.float32).reshape(2, 3)


# --------------------------------------------------------------------------
# The seed example (model section 5's sample) on the 950
# --------------------------------------------------------------------------


def _seed_tensors():
    out = np.zeros((2, 3), np.float32)
    return out, tensor(SEED_G.copy()), tensor(SEED_X.copy()), aclnn.aclCreateScalar(1.1, ACL_FLOAT), tensor(out)


@pytest.mark.parametrize("platform", PLATFORMS_950, ids=lambda p: p.soc_version)
def test_seed_example_on_the_950(platform, stream):
    aclnn.set_platform(platform)
    out, go, x, beta, gi = _seed_tensors()
    status, ws, executor = aclnn.aclnnSwishBackwardGetWorkspaceSize(go, x, beta, gi)
    assert status == ACLNN_SUCCESS, aclnn.aclGetRecentErrMsg()
    assert ws == WORKSPACE_950 and executor.tiling.architecture == "arch35"
    ret, workspace = aclnn.aclrtMalloc(ws, ACL_MEM_MALLOC_HUGE_FIRST)
    assert ret == aclnn.ACL_SUCCESS
    assert aclnn.aclnnSwishBackward(workspace, ws, executor, stream) == ACLNN_SUCCESS
    assert aclnn.aclrtSynchronizeStream(stream) == aclnn.ACL_SUCCESS
    expected = swish_backward(SEED_G, SEED_X, 1.1, platform=ASCEND950_PLATFORM)
    np.testing.assert_array_equal(bits(out), bits(expected))
    assert_bits_equal(out, ref_swish_grad_950(SEED_G, SEED_X, 1.1))
    # the fused multiply-add shows: the A2 sequence rounds 1 + xs*(1 - s) before multiplying by s
    a2 = ref_swish_grad(SEED_G, SEED_X, 1.1)
    assert (bits(out) != bits(a2)).any()


def test_translated_sample_runs_on_the_950():
    aclnn.set_platform(ASCEND950_PLATFORM)
    rc, got = run_sample()
    assert rc == 0
    np.testing.assert_array_equal(bits(got), bits(ref_swish_grad_950(SEED_G, SEED_X, 1.1).reshape(-1)))


def test_switching_back_to_the_a2_restores_its_results(stream):
    results = {}
    for name, platform in (("950", ASCEND950_PLATFORM), ("a2", REFERENCE_PLATFORM)):
        aclnn.set_platform(platform)
        out, go, x, beta, gi = _seed_tensors()
        status, executor = launch(go, x, beta, gi, stream)
        assert status == ACLNN_SUCCESS
        results[name] = (out, executor.tiling.architecture)
    assert results["950"][1] == "arch35" and results["a2"][1] == "a2"
    np.testing.assert_array_equal(bits(results["a2"][0]), bits(ref_swish_grad(SEED_G, SEED_X, 1.1)))
    np.testing.assert_array_equal(bits(results["950"][0]), bits(ref_swish_grad_950(SEED_G, SEED_X, 1.1)))


def test_an_executor_keeps_the_kernel_of_its_phase_one(stream):
    """Phase one decides: an executor prepared on the 950 runs the 950 kernel after the platform changes."""
    aclnn.set_platform(ASCEND950_PLATFORM)
    out, go, x, beta, gi = _seed_tensors()
    status, ws, executor = aclnn.aclnnSwishBackwardGetWorkspaceSize(go, x, beta, gi)
    aclnn.set_platform(REFERENCE_PLATFORM)
    ret, workspace = aclnn.aclrtMalloc(ws)
    assert aclnn.aclnnSwishBackward(workspace, ws, executor, stream) == ACLNN_SUCCESS
    assert aclnn.aclrtSynchronizeStream(stream) == aclnn.ACL_SUCCESS
    np.testing.assert_array_equal(bits(out), bits(ref_swish_grad_950(SEED_G, SEED_X, 1.1)))


# --------------------------------------------------------------------------
# Random inputs: every dtype, several shapes and strides
# --------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", KERNEL_DTYPES, ids=lambda d: d.name)
@pytest.mark.parametrize("shape", [(), (7,), (3, 5, 4), (5000,), (2, 3, 4, 5, 3, 1, 2, 2)], ids=str)
def test_random_inputs_on_the_950(dtype, shape, stream):
    """(5000,) spreads over several 950 cores; the rank-8 shape is the most the op_api takes."""
    aclnn.set_platform(ASCEND950_PLATFORM)
    rng = np.random.default_rng(950 + len(shape))
    g, x = random_values(rng, shape, dtype), random_values(rng, shape, dtype)
    beta = np.float32(rng.uniform(-3, 3))
    out = np.zeros(shape, dtype)
    status, executor = launch(tensor(g), tensor(x), aclnn.aclCreateScalar(beta, ACL_FLOAT), tensor(out), stream)
    assert status == ACLNN_SUCCESS and executor.tiling.architecture == "arch35"
    np.testing.assert_array_equal(bits(out), bits(swish_backward(g, x, beta, platform=ASCEND950_PLATFORM)))


@pytest.mark.parametrize("dtype", KERNEL_DTYPES, ids=lambda d: d.name)
@pytest.mark.parametrize("in_layout,out_layout", [(layout, LAYOUTS[-1 - i]) for i, layout in enumerate(LAYOUTS)])
def test_strided_views_on_the_950(dtype, in_layout, out_layout, stream):
    aclnn.set_platform(ASCEND950_PLATFORM)
    got, expected = run_layouts(dtype, in_layout, out_layout, np.float32(-1.7), stream, platform=ASCEND950_PLATFORM)
    np.testing.assert_array_equal(bits(got), bits(expected))


def test_finite_float32_against_the_independent_reference(stream):
    aclnn.set_platform(ASCEND950_PLATFORM)
    rng = np.random.default_rng(9)
    g, x = random_values(rng, (300,), F32, specials=False), random_values(rng, (300,), F32, specials=False)
    out = np.zeros(300, np.float32)
    assert launch(tensor(g), tensor(x), aclnn.aclCreateScalar(1.3, ACL_FLOAT), tensor(out), stream)[0] == 0
    assert_bits_equal(out, ref_swish_grad_950(g, x, np.float32(1.3)))


# --------------------------------------------------------------------------
# Formats and workspace
# --------------------------------------------------------------------------


@pytest.mark.parametrize("fmt,to_storage,shape", [
    (ACL_FORMAT_NC1HWC0, formats.nd_to_nc1hwc0, (2, 3, 4, 5)),
    (ACL_FORMAT_FRACTAL_NZ, formats.nd_to_fractal_nz, (2, 17, 19)),
], ids=["nc1hwc0", "fractal_nz"])
def test_private_formats_are_refused_on_the_950(fmt, to_storage, shape, stream):
    rng = np.random.default_rng(4)
    arrays = [random_values(rng, shape, np.float32) for _ in range(3)]
    storages = [to_storage(a) for a in arrays]
    tensors = [aclnn.aclCreateTensor(shape, ACL_FLOAT, None, 0, fmt, s.shape, s) for s in storages]
    assert status_of(*tensors[:2], None, tensors[2]) == ACLNN_SUCCESS  # the A2 runs them
    aclnn.set_platform(Platform(soc_version="Ascend950DT_95A1"))
    assert status_of(*tensors[:2], None, tensors[2]) == ACLNN_ERR_PARAM_INVALID
    message = aclnn.aclGetRecentErrMsg()
    name = {ACL_FORMAT_NC1HWC0: "ACL_FORMAT_NC1HWC0", ACL_FORMAT_FRACTAL_NZ: "ACL_FORMAT_FRACTAL_NZ"}[fmt]
    assert f"are in {name}" in message and "Ascend 950" in message and "'Ascend950DT_95A1'" in message
    assert "ACL_FORMAT_ND" in message


def test_an_empty_private_format_tensor_launches_nothing_on_the_950():
    """No launch, no kernel: the op_api returns before the kernel (and its format list) is chosen."""
    aclnn.set_platform(ASCEND950_PLATFORM)
    a = np.zeros((0, 3, 2, 2), np.float16)
    s = formats.nd_to_nc1hwc0(a)
    t = aclnn.aclCreateTensor(a.shape, aclnn.ACL_FLOAT16, None, 0, ACL_FORMAT_NC1HWC0, s.shape, s)
    assert aclnn.aclnnSwishBackwardGetWorkspaceSize(t, t, None, t)[:2] == (ACLNN_SUCCESS, 0)


@pytest.mark.parametrize("fmt", [ACL_FORMAT_ND, ACL_FORMAT_NCHW, ACL_FORMAT_NHWC], ids=["nd", "nchw", "nhwc"])
def test_formats_stored_as_nd_run_on_the_950(fmt, stream):
    aclnn.set_platform(ASCEND950_PLATFORM)
    rng = np.random.default_rng(5)
    g, x = random_values(rng, (2, 3, 4, 5), F32), random_values(rng, (2, 3, 4, 5), F32)
    out = np.zeros_like(g)
    status, _ = launch(tensor(g, fmt=fmt), tensor(x, fmt=fmt), None, tensor(out, fmt=fmt), stream)
    assert status == ACLNN_SUCCESS
    np.testing.assert_array_equal(bits(out), bits(swish_backward(g, x, platform=ASCEND950_PLATFORM)))


def test_workspace_is_the_950_tiling_s():
    """The 950 reports its tiling's 16 MiB whatever ``lib_workspace_size`` says; the A2 reports the platform's."""
    a = np.zeros(6, np.float32)
    for platform, expected in ((ASCEND950_PLATFORM, WORKSPACE_950),
                               (Platform(soc_version="ascend950", lib_workspace_size=4096), WORKSPACE_950),
                               (Platform(lib_workspace_size=4096), 4096)):
        aclnn.set_platform(platform)
        assert aclnn.aclnnSwishBackwardGetWorkspaceSize(tensor(a), tensor(a), None, tensor(a))[:2] == \
            (ACLNN_SUCCESS, expected)

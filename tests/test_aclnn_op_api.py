"""The two phases of aclnnSwishBackward (generated from ops/swish_grad/description.py; once aclnn/op_api.py)
on the A2 reference platform.

Phase one's checks and their order (model section 5), phase two's, and results: compared bit for bit with
``swish_backward`` (tested on its own elsewhere) and, for a few cases, with the independent float32 reference of
``tests/reference.py`` (model section 2). Tiling fields of padded formats are compared with its model section 3
reference.
"""
import numpy as np
import pytest

from aclnn_helpers import (  # noqa: F401  (fixtures)
    ACL_OF, BF16, F16, F32, KERNEL_DTYPES, LAYOUTS, WORKSPACE, bits, launch, random_values, reference_platform,
    run_layouts, status_of, stream, tensor, tensor_over, three,
)
from reference import assert_bits_equal, ref_swish_grad, ref_tiling
from swishgrad_numba import Platform, aclnn, formats, swish_backward
from swishgrad_numba.aclnn import (
    ACL_BF16, ACL_BOOL, ACL_COMPLEX64, ACL_COMPLEX128, ACL_DOUBLE, ACL_FLOAT, ACL_FLOAT16, ACL_FORMAT_FRACTAL_NZ,
    ACL_FORMAT_NC1HWC0, ACL_FORMAT_ND, ACL_INT8, ACL_INT16, ACL_INT32, ACL_INT64, ACL_UINT8,
    ACLNN_ERR_INNER_EXECUTOR_REUSED, ACLNN_ERR_INNER_TENSOR_DESTROYED, ACLNN_ERR_PARAM_INVALID,
    ACLNN_ERR_PARAM_NULLPTR, ACLNN_SUCCESS,
)


# --------------------------------------------------------------------------
# model section 5, check 1: null pointers
# --------------------------------------------------------------------------


@pytest.mark.parametrize("which", ["gradOutput", "self", "gradInput"])
def test_null_tensor_is_161001(which):
    _, _, _, go, x, gi = three()
    args = {"gradOutput": go, "self": x, "gradInput": gi}
    args[which] = None
    assert status_of(args["gradOutput"], args["self"], None, args["gradInput"]) == ACLNN_ERR_PARAM_NULLPTR
    msg = aclnn.aclGetRecentErrMsg()
    assert f"{which} is a null pointer" in msg
    assert aclnn.aclGetRecentErrMsg() is None  # reading clears it


def test_null_beta_means_one():
    g, x, out, go, xt, gi = three(dtype=F16)
    status, executor = launch(go, xt, None, gi)
    assert status == ACLNN_SUCCESS
    assert bits(executor.tiling.beta) == bits(np.float32(1.0))
    np.testing.assert_array_equal(bits(out), bits(swish_backward(g, x, 1.0)))


def test_destroyed_tensor_or_scalar_before_phase_one_is_161001():
    _, _, _, go, x, gi = three()
    beta = aclnn.aclCreateScalar(2.0, ACL_FLOAT)
    assert aclnn.aclDestroyScalar(beta) == ACLNN_SUCCESS
    assert status_of(go, x, beta, gi) == ACLNN_ERR_PARAM_NULLPTR
    assert "betaOptional was destroyed" in aclnn.aclGetRecentErrMsg()
    assert aclnn.aclDestroyTensor(x) == ACLNN_SUCCESS
    assert status_of(go, x, None, gi) == ACLNN_ERR_PARAM_NULLPTR
    assert "self was destroyed" in aclnn.aclGetRecentErrMsg()
    assert status_of(go, np.zeros((2, 3), np.float32), None, gi) == ACLNN_ERR_PARAM_NULLPTR
    assert "self must be an aclTensor" in aclnn.aclGetRecentErrMsg()


# --------------------------------------------------------------------------
# Check 2: data types
# --------------------------------------------------------------------------


BAD_TENSOR_DTYPES = [(ACL_DOUBLE, np.float64), (ACL_INT32, np.int32), (ACL_INT8, np.int8), (ACL_BOOL, np.bool_),
                     (ACL_COMPLEX64, np.complex64), (ACL_UINT8, np.uint8)]


@pytest.mark.parametrize("which", ["gradOutput", "self"])
@pytest.mark.parametrize("acl_dt,np_dt", BAD_TENSOR_DTYPES, ids=lambda v: getattr(v, "__name__", str(v)))
def test_unsupported_input_dtype_is_161002(which, acl_dt, np_dt):
    _, _, _, go, x, gi = three()
    bad = aclnn.aclCreateTensor((2, 3), acl_dt, None, 0, ACL_FORMAT_ND, (2, 3), np.zeros((2, 3), np_dt))
    assert bad is not None
    args = {"gradOutput": go, "self": x}
    args[which] = bad
    assert status_of(args["gradOutput"], args["self"], None, gi) == ACLNN_ERR_PARAM_INVALID
    msg = aclnn.aclGetRecentErrMsg()
    assert f"dtype of {which}" in msg and "must be one of" in msg


@pytest.mark.parametrize("acl_dt", [ACL_COMPLEX64, ACL_COMPLEX128])
def test_complex_beta_is_161002(acl_dt):
    _, _, _, go, x, gi = three()
    beta = aclnn.aclCreateScalar(1.5 + 0j, acl_dt)
    assert beta is not None
    assert status_of(go, x, beta, gi) == ACLNN_ERR_PARAM_INVALID
    msg = aclnn.aclGetRecentErrMsg()
    assert "betaOptional" in msg and "cannot be cast to ACL_FLOAT" in msg


@pytest.mark.parametrize("which", ["self", "gradInput"])
@pytest.mark.parametrize("dt", [F16, BF16])
def test_dtype_mismatch_is_161002(which, dt):
    _, _, _, go, x, gi = three()
    other = tensor(np.zeros((2, 3), dt))
    args = {"self": x, "gradInput": gi}
    args[which] = other
    assert status_of(go, args["self"], None, args["gradInput"]) == ACLNN_ERR_PARAM_INVALID
    msg = aclnn.aclGetRecentErrMsg()
    assert f"dtype of {which}" in msg and "must equal dtype of gradOutput" in msg


def test_dtype_mismatch_message():
    _, _, _, go, x, _ = three()
    gi = tensor(np.zeros((2, 3), F16))
    assert status_of(go, x, None, gi) == ACLNN_ERR_PARAM_INVALID
    msg = aclnn.aclGetRecentErrMsg()
    assert "dtype of gradInput (ACL_FLOAT16) must equal dtype of gradOutput (ACL_FLOAT)" in msg


# model section 8: ASCEND910B <= soc <= ASCEND910E in CANN's SocVersion enum order.
BF16_ACCEPTED = ["ascend910b", "Ascend910B3", "ascend910_93", "Ascend910_9391", "Ascend910_9362", "ascend950",
                 "ascend910_95", "Ascend950PR_9599", "Ascend950DT_95A1", "ascend910e"]


BF16_REFUSED = ["ascend910", "Ascend910ProB", "ascend310", "ascend310p", "Ascend310P3", "ascend310b", "ascend310c",
                "ascend610lite", "kirinx90", "kirin9030", "ascend350"]


@pytest.mark.parametrize("soc", BF16_ACCEPTED + BF16_REFUSED)
@pytest.mark.parametrize("dt", KERNEL_DTYPES, ids=lambda d: d.name)
def test_bfloat16_only_on_910b_to_910e(soc, dt):
    aclnn.set_platform(Platform(soc_version=soc))
    _, _, _, go, x, gi = three(dtype=dt)
    refused = dt == BF16 and soc in BF16_REFUSED
    assert status_of(go, x, None, gi) == (ACLNN_ERR_PARAM_INVALID if refused else ACLNN_SUCCESS)
    if refused:
        msg = aclnn.aclGetRecentErrMsg()
        assert "ASCEND910B..ASCEND910E" in msg and repr(soc) in msg


# --------------------------------------------------------------------------
# Check 3: ranks and shapes
# --------------------------------------------------------------------------


@pytest.mark.parametrize("which", ["gradOutput", "self", "gradInput"])
def test_more_than_8_dims_is_161002(which):
    shape9 = (1, 2, 1, 1, 1, 1, 1, 3, 1)
    tensors = {name: tensor(np.zeros((6,), np.float32).reshape(shape9[:8]))
               for name in ("gradOutput", "self", "gradInput")}
    assert status_of(tensors["gradOutput"], tensors["self"], None, tensors["gradInput"]) == ACLNN_SUCCESS
    tensors[which] = tensor(np.zeros(shape9, np.float32))
    assert status_of(tensors["gradOutput"], tensors["self"], None, tensors["gradInput"]) == ACLNN_ERR_PARAM_INVALID
    assert f"{which} has 9 dims; at most 8" in aclnn.aclGetRecentErrMsg()


@pytest.mark.parametrize("which", ["gradOutput", "self"])
@pytest.mark.parametrize("shape", [(3, 2), (6,), (2, 3, 1), ()])
def test_shape_mismatch_is_161002(which, shape):
    _, _, _, go, x, gi = three()
    other = tensor(np.zeros(shape, np.float32))
    args = {"gradOutput": go, "self": x}
    args[which] = other
    assert status_of(args["gradOutput"], args["self"], None, gi) == ACLNN_ERR_PARAM_INVALID
    assert f"shape of {which}" in aclnn.aclGetRecentErrMsg()


def test_shape_mismatch_against_gradinput():
    _, _, _, go, x, _ = three()
    assert status_of(go, x, None, tensor(np.zeros((2, 4), np.float32))) == ACLNN_ERR_PARAM_INVALID
    assert "shape of gradOutput (2, 3) must equal shape of gradInput (2, 4)" in aclnn.aclGetRecentErrMsg()


# --------------------------------------------------------------------------
# The order of the checks
# --------------------------------------------------------------------------


def _bad_pieces():
    f32_9d = tensor(np.zeros((1,) * 9, np.float32))
    i32 = aclnn.aclCreateTensor((2, 3), ACL_INT32, None, 0, ACL_FORMAT_ND, (2, 3), np.zeros((2, 3), np.int32))
    f16 = tensor(np.zeros((2, 3), F16))
    wrong_shape = tensor(np.zeros((4,), np.float32))
    cbeta = aclnn.aclCreateScalar(1j, ACL_COMPLEX64)
    return f32_9d, i32, f16, wrong_shape, cbeta


@pytest.mark.parametrize("case,expected,fragment", [
    # null beats everything after it
    ("null+dtype", ACLNN_ERR_PARAM_NULLPTR, "gradInput is a null pointer"),
    ("null+shape", ACLNN_ERR_PARAM_NULLPTR, "gradOutput is a null pointer"),
    ("null+dims", ACLNN_ERR_PARAM_NULLPTR, "self is a null pointer"),
    ("null+complex", ACLNN_ERR_PARAM_NULLPTR, "gradInput is a null pointer"),
    ("two nulls", ACLNN_ERR_PARAM_NULLPTR, "gradOutput is a null pointer"),
    # dtype checks come before rank and shape checks
    ("dtype+shape", ACLNN_ERR_PARAM_INVALID, "dtype of gradOutput"),
    ("dtype+dims", ACLNN_ERR_PARAM_INVALID, "dtype of self"),
    ("complex+shape", ACLNN_ERR_PARAM_INVALID, "betaOptional"),
    ("mismatch+dims", ACLNN_ERR_PARAM_INVALID, "must equal dtype of gradOutput"),
    ("bf16soc+shape", ACLNN_ERR_PARAM_INVALID, "ASCEND910B..ASCEND910E"),
    # within check 2: unsupported dtype, then beta, then mismatch
    ("unsupported+complex", ACLNN_ERR_PARAM_INVALID, "dtype of self is ACL_INT32"),
    ("complex+mismatch", ACLNN_ERR_PARAM_INVALID, "betaOptional"),
    # within check 3: dims before shape
    ("dims+shape", ACLNN_ERR_PARAM_INVALID, "gradInput has 9 dims"),
    # the empty shortcut comes after every check
    ("empty+dtype", ACLNN_ERR_PARAM_INVALID, "dtype of gradOutput"),
    ("empty+shape", ACLNN_ERR_PARAM_INVALID, "shape of self"),
    ("empty+dims", ACLNN_ERR_PARAM_INVALID, "has 9 dims"),
])
def test_check_order(case, expected, fragment):
    f32_9d, i32, f16, wrong_shape, cbeta = _bad_pieces()
    _, _, _, go, x, gi = three()
    beta = None
    if case == "null+dtype":
        go, gi = i32, None
    elif case == "null+shape":
        go, x = None, wrong_shape
    elif case == "null+dims":
        x, gi = None, f32_9d
    elif case == "null+complex":
        gi, beta = None, cbeta
    elif case == "two nulls":
        go, x = None, None
    elif case == "dtype+shape":
        go, x = i32, wrong_shape
    elif case == "dtype+dims":
        x, gi = i32, f32_9d
    elif case == "complex+shape":
        beta, x = cbeta, wrong_shape
    elif case == "mismatch+dims":
        x, gi = f16, f32_9d
    elif case == "bf16soc+shape":
        aclnn.set_platform(Platform(soc_version="ascend310p"))
        _, _, _, go, x, gi = three(dtype=BF16)
        gi = tensor(np.zeros((5,), BF16))
    elif case == "unsupported+complex":
        x, beta = i32, cbeta
    elif case == "complex+mismatch":
        beta, gi = cbeta, f16
    elif case == "dims+shape":
        x, gi = wrong_shape, f32_9d
    elif case == "empty+dtype":
        go = aclnn.aclCreateTensor((0,), ACL_INT32, None, 0, ACL_FORMAT_ND, (0,), np.zeros(0, np.int32))
        x = gi = tensor(np.zeros(0, np.float32))
    elif case == "empty+shape":
        go, gi = tensor(np.zeros((0, 3), np.float32)), tensor(np.zeros((0, 3), np.float32))
        x = tensor(np.zeros((3, 0), np.float32))
    elif case == "empty+dims":
        go = x = gi = tensor(np.zeros((1,) * 8 + (0,), np.float32))
    assert status_of(go, x, beta, gi) == expected
    assert fragment in aclnn.aclGetRecentErrMsg()


# --------------------------------------------------------------------------
# Emulator checks
# --------------------------------------------------------------------------


def test_read_only_gradinput_is_161002():
    _, _, _, go, x, _ = three()
    ro = np.zeros((2, 3), np.float32)
    ro.flags.writeable = False
    assert status_of(go, x, None, tensor(ro)) == ACLNN_ERR_PARAM_INVALID
    assert "gradInput's data is read-only" in aclnn.aclGetRecentErrMsg()


@pytest.mark.parametrize("platform, field", [
    (Platform(ub_size=10), "platform.ub_size"),
    (Platform(block_size=3), "platform.block_size"),
    (Platform(soc_version="ascend950", ub_size=1000), "platform.ub_size"),
    (Platform(soc_version="ascend950", ub_size=2**40), "platform.ub_size"),
], ids=["a2-ub10", "a2-block3", "950-ub1000", "950-ub2**40"])
def test_a_platform_that_cannot_be_tiled_is_161002_naming_the_field(platform, field):
    """A bad user platform is a parameter error (161002), not an internal one (561000)."""
    aclnn.set_platform(platform)
    _, _, _, go, x, gi = three((4, 5))
    assert status_of(go, x, None, gi) == ACLNN_ERR_PARAM_INVALID
    msg = aclnn.aclGetRecentErrMsg()
    assert field in msg and "internal error" not in msg, msg
    assert f"soc_version {platform.soc_version!r}" in msg


# --------------------------------------------------------------------------
# Phase two
# --------------------------------------------------------------------------


def test_executor_runs_once(stream):
    g, x, out, go, xt, gi = three(dtype=F32)
    status, ws, executor = aclnn.aclnnSwishBackwardGetWorkspaceSize(go, xt, None, gi)
    assert status == ACLNN_SUCCESS and ws == Platform().lib_workspace_size
    assert aclnn.aclnnSwishBackward(WORKSPACE, ws, executor, stream) == ACLNN_SUCCESS
    assert aclnn.aclnnSwishBackward(WORKSPACE, ws, executor, stream) == ACLNN_ERR_INNER_EXECUTOR_REUSED
    assert "already run" in aclnn.aclGetRecentErrMsg()
    assert aclnn.aclrtSynchronizeStream(stream) == aclnn.ACL_SUCCESS
    np.testing.assert_array_equal(bits(out), bits(swish_backward(g, x)))


def test_phase_two_argument_checks_leave_the_executor_usable(stream):
    g, x, out, go, xt, gi = three(dtype=F16)
    status, ws, executor = aclnn.aclnnSwishBackwardGetWorkspaceSize(go, xt, None, gi)
    assert status == ACLNN_SUCCESS
    assert aclnn.aclnnSwishBackward(WORKSPACE, ws, None, stream) == ACLNN_ERR_PARAM_NULLPTR
    assert "executor is a null pointer" in aclnn.aclGetRecentErrMsg()
    assert aclnn.aclnnSwishBackward(WORKSPACE, ws, "exe", stream) == ACLNN_ERR_PARAM_INVALID
    assert aclnn.aclnnSwishBackward(WORKSPACE, ws - 1, executor, stream) == ACLNN_ERR_PARAM_INVALID
    assert f"smaller than the {ws} bytes" in aclnn.aclGetRecentErrMsg()
    assert aclnn.aclnnSwishBackward(None, ws, executor, stream) == ACLNN_ERR_PARAM_NULLPTR
    assert "workspace is a null pointer" in aclnn.aclGetRecentErrMsg()
    assert aclnn.aclnnSwishBackward(WORKSPACE[: ws - 1], ws, executor, stream) == ACLNN_ERR_PARAM_INVALID
    assert "fewer than workspaceSize" in aclnn.aclGetRecentErrMsg()
    assert not executor.used
    np.testing.assert_array_equal(out, np.zeros_like(out))  # nothing ran
    assert aclnn.aclnnSwishBackward(WORKSPACE, ws, executor, stream) == ACLNN_SUCCESS
    assert aclnn.aclrtSynchronizeStream(stream) == aclnn.ACL_SUCCESS
    np.testing.assert_array_equal(bits(out), bits(swish_backward(g, x)))


@pytest.mark.parametrize("which", ["gradOutput", "self", "gradInput"])
def test_tensor_destroyed_between_phases(which, stream):
    _, _, out, go, xt, gi = three()
    status, ws, executor = aclnn.aclnnSwishBackwardGetWorkspaceSize(go, xt, None, gi)
    assert aclnn.aclDestroyTensor({"gradOutput": go, "self": xt, "gradInput": gi}[which]) == ACLNN_SUCCESS
    assert aclnn.aclnnSwishBackward(WORKSPACE, ws, executor, stream) == ACLNN_ERR_INNER_TENSOR_DESTROYED
    assert f"{which} was destroyed" in aclnn.aclGetRecentErrMsg()
    assert aclnn.aclrtSynchronizeStream(stream) == aclnn.ACL_SUCCESS
    np.testing.assert_array_equal(out, np.zeros_like(out))


# --------------------------------------------------------------------------
# Results: layouts, beta dtypes, empty tensors, ranks
# --------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", KERNEL_DTYPES, ids=lambda d: d.name)
@pytest.mark.parametrize("in_layout", LAYOUTS)
@pytest.mark.parametrize("out_layout", LAYOUTS)
def test_layouts_match_swish_backward(dtype, in_layout, out_layout, stream):
    beta = np.float32(-842.45) if dtype == F32 else np.float32(1.1)
    got, expected = run_layouts(dtype, in_layout, out_layout, beta, stream)
    # the whole output storage: the view's elements written, the rest untouched
    np.testing.assert_array_equal(bits(got), bits(expected))


def test_in_place_output_aliasing_an_input(stream):
    rng = np.random.default_rng(7)
    g, x = random_values(rng, (5, 7), BF16), random_values(rng, (5, 7), BF16)
    expected = swish_backward(g, x, 2.5)
    gt = tensor(g)
    status, _ = launch(gt, tensor(x), aclnn.aclCreateScalar(2.5, ACL_DOUBLE), gt, stream)
    assert status == ACLNN_SUCCESS
    np.testing.assert_array_equal(bits(g), bits(expected))


BETAS = [
    (ACL_BOOL, True, np.float32(1.0)),
    (ACL_INT8, -3, np.float32(-3.0)),
    (ACL_INT16, 300, np.float32(300.0)),
    (ACL_INT32, -70001, np.float32(-70001.0)),
    (ACL_INT64, 2**40 + 1, np.float32(2.0**40)),       # rounds to the nearest float32
    (ACL_UINT8, 200, np.float32(200.0)),
    (ACL_FLOAT16, 1.1, np.float32(1.099609375)),       # float16(1.1)
    (ACL_BF16, 1.1, np.float32(1.1015625)),            # bfloat16(1.1)
    (ACL_FLOAT, 878.97, np.float32(878.97)),
    (ACL_DOUBLE, -842.45, np.float32(-842.45)),
    (ACL_DOUBLE, 1e300, np.float32(np.inf)),           # beyond float32: +inf, as a C cast
]


@pytest.mark.parametrize("acl_dt,value,beta32", BETAS, ids=lambda v: str(v))
def test_every_beta_dtype_converts_from_the_value_it_holds(acl_dt, value, beta32, stream):
    rng = np.random.default_rng(8)
    g, x = random_values(rng, (40,), F32), random_values(rng, (40,), F32)
    out = np.zeros(40, np.float32)
    scalar = aclnn.aclCreateScalar(value, acl_dt)
    assert scalar is not None
    status, executor = launch(tensor(g), tensor(x), scalar, tensor(out), stream)
    assert status == ACLNN_SUCCESS
    assert bits(executor.tiling.beta) == bits(beta32)
    np.testing.assert_array_equal(bits(out), bits(swish_backward(g, x, beta32)))
    if acl_dt in (ACL_INT8, ACL_BF16):
        assert_bits_equal(out, ref_swish_grad(g, x, beta32))


@pytest.mark.parametrize("shape", [(0,), (3, 0), (2, 0, 4), (0,) * 8])
def test_empty_tensors_succeed_with_workspace_0(shape, stream):
    sentinel = np.full(8, 7.0, np.float32)
    go = tensor(np.zeros(shape, np.float32))
    gi = aclnn.aclCreateTensor(shape, ACL_FLOAT, None, 0, ACL_FORMAT_ND, (8,), sentinel)
    status, ws, executor = aclnn.aclnnSwishBackwardGetWorkspaceSize(go, go, aclnn.aclCreateScalar(2, ACL_INT32), gi)
    assert (status, ws) == (ACLNN_SUCCESS, 0) and executor.tiling is None
    assert aclnn.aclnnSwishBackward(None, 0, executor, stream) == ACLNN_SUCCESS
    assert aclnn.aclrtSynchronizeStream(stream) == aclnn.ACL_SUCCESS
    np.testing.assert_array_equal(sentinel, np.full(8, 7.0, np.float32))
    assert aclnn.aclnnSwishBackward(None, 0, executor, stream) == ACLNN_ERR_INNER_EXECUTOR_REUSED


def test_empty_private_format():
    a = np.zeros((0, 3, 2, 2), np.float16)
    s = formats.nd_to_nc1hwc0(a)
    t = aclnn.aclCreateTensor(a.shape, ACL_FLOAT16, None, 0, ACL_FORMAT_NC1HWC0, s.shape, s)
    assert aclnn.aclnnSwishBackwardGetWorkspaceSize(t, t, None, t)[:2] == (ACLNN_SUCCESS, 0)


@pytest.mark.parametrize("rank", range(9))
def test_ranks_0_to_8(rank, stream):
    dtype = KERNEL_DTYPES[rank % 3]
    rng = np.random.default_rng(100 + rank)
    shape = tuple([3, 2, 1, 2, 3, 1, 2, 2][:rank])
    g, x = random_values(rng, shape, dtype), random_values(rng, shape, dtype)
    beta = np.float32(rng.uniform(-3, 3))
    # contiguous
    out = np.zeros(shape, dtype)
    assert launch(tensor(g), tensor(x), aclnn.aclCreateScalar(beta, ACL_FLOAT), tensor(out), stream)[0] == 0
    np.testing.assert_array_equal(bits(out), bits(swish_backward(g, x, beta)))
    # reversed dims (a transposed view) for inputs and output
    gb, xb = random_values(rng, shape[::-1], dtype), random_values(rng, shape[::-1], dtype)
    ob = np.zeros(shape[::-1], dtype)
    gv, xv, ov = gb.transpose(), xb.transpose(), ob.transpose()
    assert launch(tensor_over(gv, gb), tensor_over(xv, xb), aclnn.aclCreateScalar(beta, ACL_FLOAT),
                  tensor_over(ov, ob), stream)[0] == 0
    np.testing.assert_array_equal(bits(ov), bits(swish_backward(gv, xv, beta)))


def test_independent_reference_on_a_random_tensor(stream):
    rng = np.random.default_rng(9)
    for dtype in KERNEL_DTYPES:
        g, x = random_values(rng, (257,), dtype), random_values(rng, (257,), dtype)
        out = np.zeros(257, dtype)
        assert launch(tensor(g), tensor(x), aclnn.aclCreateScalar(-1.7, ACL_FLOAT), tensor(out), stream)[0] == 0
        assert_bits_equal(out, ref_swish_grad(g, x, np.float32(-1.7)))


# --------------------------------------------------------------------------
# Storage formats through the API
# --------------------------------------------------------------------------


def _private(arrays, fmt, to_storage, **kw):
    out = []
    for a in arrays:
        s = to_storage(a, **kw)
        out.append((s, aclnn.aclCreateTensor(a.shape, ACL_OF[a.dtype], None, 0, fmt, s.shape, s)))
    return out


@pytest.mark.parametrize("dtype", KERNEL_DTYPES, ids=lambda d: d.name)
@pytest.mark.parametrize("fmt,shape,kw", [
    (ACL_FORMAT_NC1HWC0, (2, 3, 4, 5), {}),
    (ACL_FORMAT_NC1HWC0, (1, 19, 2, 3), {"c0": 4}),
    (ACL_FORMAT_FRACTAL_NZ, (2, 17, 19), {}),
    (ACL_FORMAT_FRACTAL_NZ, (33, 7), {"n0": 8, "m0": 4}),
], ids=["nc1hwc0", "nc1hwc0-c0=4", "nz", "nz-n0=8-m0=4"])
def test_storage_format_run_equals_nd_run(dtype, fmt, shape, kw, stream):
    rng = np.random.default_rng(10)
    g, x = random_values(rng, shape, dtype), random_values(rng, shape, dtype)
    if fmt == ACL_FORMAT_NC1HWC0:
        to_storage, back = formats.nd_to_nc1hwc0, formats.nc1hwc0_to_nd
    else:
        to_storage, back = formats.nd_to_fractal_nz, formats.fractal_nz_to_nd
    (gs, gt), (xs, xt), (os_, ot) = _private([g, x, np.zeros(shape, dtype)], fmt, to_storage, **kw)
    status, executor = launch(gt, xt, aclnn.aclCreateScalar(1.1, ACL_FLOAT), ot, stream)
    assert status == ACLNN_SUCCESS
    np.testing.assert_array_equal(bits(back(os_, shape)), bits(swish_backward(g, x, np.float32(1.1))))
    # the tiling counts the padded storage
    fields, block_dim = ref_tiling(os_.size, dtype.itemsize)
    assert os_.size > g.size
    assert executor.tiling.block_dim == block_dim
    for name in ("smallCoreDataNum", "bigCoreDataNum", "tailBlockNum"):
        assert int(executor.tiling.data[name]) == fields[name], name


def test_padded_tiling_uses_more_cores_than_the_logical_count(stream):
    """4000 float32 fit one tile (7016): ND uses 1 core; NC1HWC0 pads to 32000 elements and 48 cores."""
    rng = np.random.default_rng(11)
    shape = (1, 1, 1, 4000)
    g, x = random_values(rng, shape, F32), random_values(rng, shape, F32)
    out_nd = np.zeros(shape, np.float32)
    status, ex_nd = launch(tensor(g), tensor(x), None, tensor(out_nd), stream)
    assert status == 0 and ex_nd.tiling.block_dim == ref_tiling(4000, 4)[1] == 1
    (gs, gt), (xs, xt), (os_, ot) = _private([g, x, np.zeros(shape, np.float32)], ACL_FORMAT_NC1HWC0,
                                             formats.nd_to_nc1hwc0)
    assert os_.size == 32000
    status, ex = launch(gt, xt, None, ot, stream)
    assert status == 0
    fields, block_dim = ref_tiling(32000, 4)
    assert (ex.tiling.block_dim, int(ex.tiling.data["smallCoreDataNum"]), int(ex.tiling.data["tailBlockNum"])) \
        == (block_dim, fields["smallCoreDataNum"], fields["tailBlockNum"]) == (48, 664, 16)
    np.testing.assert_array_equal(bits(formats.nc1hwc0_to_nd(os_, shape)), bits(out_nd))


@pytest.mark.parametrize("soc", ["ascend910b", "ascend950"])
def test_a_contiguous_gradinput_is_written_directly(soc, stream):
    """2**24 float32 elements: the launch allocates nothing of the output's size (64 MiB), by tracemalloc."""
    import tracemalloc

    aclnn.set_platform(Platform(soc_version=soc))
    n = 2**24
    rng = np.random.default_rng(13)
    g = rng.standard_normal(n, dtype=np.float32)
    x = rng.standard_normal(n, dtype=np.float32)
    out = np.zeros(n, np.float32)
    go, xt, gi = tensor(g), tensor(x), tensor(out)
    launch(go, xt, None, gi, stream)   # the same launch once untraced: compiling allocates too
    out[:] = 0
    tracemalloc.start()
    try:
        status, _ = launch(go, xt, None, gi, stream)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert status == ACLNN_SUCCESS
    assert peak < out.nbytes // 8, f"the launch allocated {peak} bytes at its peak ({out.nbytes} bytes of output)"
    platform = Platform(soc_version=soc)
    for part in (slice(0, 4096), slice(n - 4096, n), slice(n // 2, n // 2 + 4096)):
        np.testing.assert_array_equal(bits(out[part]), bits(swish_backward(g[part], x[part], platform=platform)))

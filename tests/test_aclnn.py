"""Tests of swishgrad_numba.aclnn: the two-phase API, its checks, streams and formats.

Results through the API are compared bit for bit with ``swish_backward``
(tested on its own elsewhere) and, for a few cases, with an independent
float32 reference written from SPEC section 2. Tiling fields of padded
formats are compared with a reference written from SPEC section 3.
"""
import io
import math
import re
import runpy
from contextlib import redirect_stdout
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

from swishgrad_numba import Platform, aclnn, formats, swish_backward
from swishgrad_numba.aclnn import (
    ACL_BF16, ACL_BOOL, ACL_COMPLEX64, ACL_COMPLEX128, ACL_DOUBLE, ACL_FLOAT, ACL_FLOAT16, ACL_FORMAT_FRACTAL_NZ,
    ACL_FORMAT_NC1HWC0, ACL_FORMAT_ND, ACL_INT8, ACL_INT16, ACL_INT32, ACL_INT64, ACL_UINT8,
    ACLNN_ERR_INNER_EXECUTOR_REUSED, ACLNN_ERR_INNER_TENSOR_DESTROYED, ACLNN_ERR_PARAM_INVALID,
    ACLNN_ERR_PARAM_NULLPTR, ACLNN_ERR_RUNTIME_ERROR, ACLNN_SUCCESS,
)

BF16 = np.dtype(ml_dtypes.bfloat16)
F32, F16 = np.dtype(np.float32), np.dtype(np.float16)
ACL_OF = {F32: ACL_FLOAT, F16: ACL_FLOAT16, BF16: ACL_BF16}
KERNEL_DTYPES = [F32, F16, BF16]
UINT = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}
WORKSPACE = np.zeros(16 * 1024 * 1024, dtype=np.uint8)
SAMPLE = Path(__file__).resolve().parents[1] / "docs" / "aclnn_sample.py"


# --------------------------------------------------------------------------
# Independent references (SPEC sections 2 and 3)
# --------------------------------------------------------------------------


def _exp32(t):
    out = np.empty(t.shape, dtype=np.float32)
    for i, v in enumerate(t.reshape(-1)):
        try:
            out.reshape(-1)[i] = np.float32(math.exp(float(v)))
        except OverflowError:
            out.reshape(-1)[i] = np.inf
    return out


def ref_swish_grad(g, x, beta32):
    """SPEC section 2's instruction sequence, one float32 NumPy operation per step."""
    one = np.float32(1.0)
    with np.errstate(all="ignore"):
        xf = x.astype(np.float32)
        xf = xf * np.float32(beta32)
        t = xf * np.float32(-1.0)
        t = _exp32(t)
        t = t + one
        o = one / t
        t = one - o
        xf = xf * t
        xf = one + xf
        o = o * xf
        o = g.astype(np.float32) * o
    return o.astype(x.dtype)


def ref_tiling(n, b, ub=196608, cores=48, block=32):
    """SPEC section 3's host tiling: (blockDim, small, big, tailBlockNum)."""
    units = 7 if b == 4 else 12
    tile_block_num = (ub // block) // units
    tile_data_num = tile_block_num * block // b
    blocks = -(-n * b // block)
    c = 1 if tile_data_num >= n else min(cores, blocks)
    every = blocks // c
    return c, every * block // b, (every + 1) * block // b, blocks % c


# --------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------


def bits(a):
    return np.ascontiguousarray(a).view(UINT[a.dtype.itemsize])


def assert_matches_reference(out, ref):
    """Bit-equal, except that any NaN equals any NaN (the NaN sign and payload are not modelled)."""
    out_nan = np.isnan(out.astype(np.float32))
    np.testing.assert_array_equal(out_nan, np.isnan(ref.astype(np.float32)))
    np.testing.assert_array_equal(bits(out)[~out_nan], bits(ref)[~out_nan])


def random_values(rng, shape, dtype, specials=True):
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


def tensor_over(view, base):
    """The tensor describing NumPy ``view`` of the C-contiguous ``base``."""
    item = base.itemsize
    strides = [s // item for s in view.strides]
    offset = (view.__array_interface__["data"][0] - base.__array_interface__["data"][0]) // item
    return aclnn.aclCreateTensor(view.shape, ACL_OF[base.dtype], strides, offset, ACL_FORMAT_ND, base.shape, base)


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
    status, ws, executor = aclnn.aclnnSwishBackwardGetWorkspaceSize(go, x, beta, gi)
    if status != ACLNN_SUCCESS:
        assert ws == 0 and executor is None
    return status


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


def three(shape=(2, 3), dtype=F32, seed=0):
    rng = np.random.default_rng(seed)
    g, x = random_values(rng, shape, dtype), random_values(rng, shape, dtype)
    out = np.zeros(shape, dtype=dtype)
    return g, x, out, tensor(g), tensor(x), tensor(out)


# --------------------------------------------------------------------------
# The seed sample
# --------------------------------------------------------------------------


def test_translated_c_sample_prints_the_seed_values():
    buf = io.StringIO()
    with redirect_stdout(buf):
        rc = runpy.run_path(str(SAMPLE), run_name="aclnn_sample")["main"]()
    assert rc == 0
    printed = re.findall(r"out result\[(\d)\] is: (\S+)", buf.getvalue())
    assert [int(i) for i, _ in printed] == list(range(6))
    got = np.array([np.float32(v) for _, v in printed], dtype=np.float32)
    g, x = np.ones(6, np.float32), np.arange(1, 7, dtype=np.float32)
    np.testing.assert_array_equal(bits(got), bits(swish_backward(g, x, np.float32(1.1))))
    assert_matches_reference(got, ref_swish_grad(g, x, np.float32(1.1)))
    spec = np.array([0.95636696, 1.0978101, 1.0776381, 1.0405896, 1.0182244, 1.0075958], dtype=np.float32)
    np.testing.assert_array_equal(bits(got), bits(spec))
    # the same six values as `swishgrad demo` prints for float32
    from swishgrad_numba.cli.demo import run_demo

    lines = []
    run_demo(out=lines.append)
    demo = [line.split(":", 1)[1].split() for line in lines if line.startswith("[float32] gradInput")]
    assert len(demo) == 1
    np.testing.assert_array_equal(bits(np.array(demo[0], dtype=np.float32)), bits(got))


# --------------------------------------------------------------------------
# SPEC section 5, check 1: null pointers
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
    assert bits(np.array(executor.tiling.data["sconf"])) == np.float32(1.0).view(np.uint32)
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


# SPEC section 8: ASCEND910B <= soc <= ASCEND910E in CANN's SocVersion enum order.
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
# Emulator checks: storage bounds, formats, writable output
# --------------------------------------------------------------------------


def test_view_outside_its_storage_is_161002():
    _, _, _, go, x, _ = three()
    base = np.zeros(10, np.float32)
    gi = aclnn.aclCreateTensor((2, 3), ACL_FLOAT, (3, 1), 5, ACL_FORMAT_ND, (10,), base)
    assert status_of(go, x, None, gi) == ACLNN_ERR_PARAM_INVALID
    assert "reaches element 10, outside its storage of 10 elements" in aclnn.aclGetRecentErrMsg()
    # a storage shape smaller than the data limits the view, not the data size
    big = np.zeros(100, np.float32)
    x2 = aclnn.aclCreateTensor((2, 3), ACL_FLOAT, (3, 1), 0, ACL_FORMAT_ND, (5,), big)
    assert status_of(go, x2, None, tensor(np.zeros((2, 3), np.float32))) == ACLNN_ERR_PARAM_INVALID
    assert "self's view" in aclnn.aclGetRecentErrMsg()
    # the last element exactly at the end is fine
    ok = aclnn.aclCreateTensor((2, 3), ACL_FLOAT, (3, 1), 4, ACL_FORMAT_ND, (10,), base)
    assert status_of(go, x, None, ok) == ACLNN_SUCCESS


INTP_MAX = 2**63 - 1
ONE_F32 = np.zeros(1, np.float32)


def _replace(which, t, shape=(2, 3)):
    """gradOutput, self and gradInput of ``shape`` (float32), with ``which`` replaced by ``t``."""
    _, _, _, go, x, gi = three(shape)
    args = {"gradOutput": go, "self": x, "gradInput": gi}
    args[which] = t
    return args["gradOutput"], args["self"], None, args["gradInput"]


def _over_one(shape, strides, offset=0, storage=None):
    """A float32 tensor of ``shape`` and ``strides`` over a 1-element storage (or ``storage``)."""
    storage = ONE_F32 if storage is None else storage
    return aclnn.aclCreateTensor(shape, ACL_FLOAT, strides, offset, ACL_FORMAT_ND, storage.shape, storage)


@pytest.mark.parametrize("which", ["gradOutput", "self", "gradInput"])
def test_stride_beyond_numpy_bytes_is_161002(which, stream):
    """A size-1 dim's stride never moves the view, but 2**62 float32 elements is 2**64 bytes: NumPy cannot hold it.

    (It used to pass phase one and fail on the stream with 507000.)"""
    t = _over_one((2, 1, 3), (0, 2**62, 0))
    assert t is not None
    assert status_of(*_replace(which, t, (2, 1, 3))) == ACLNN_ERR_PARAM_INVALID
    msg = aclnn.aclGetRecentErrMsg()
    assert f"{which}'s stride {2**62} (dim 1) is {2**64} bytes" in msg and str(INTP_MAX) in msg
    # the largest stride NumPy can take in bytes passes, and the launch runs
    ok = _over_one((2, 1, 3), (0, INTP_MAX // 4, 0))
    assert launch(*_replace(which, ok, (2, 1, 3)), stream)[0] == ACLNN_SUCCESS


def test_element_count_beyond_numpy_is_161002():
    """2**80 elements broadcast (stride 0) from one float32: more than NumPy can count or address."""
    t = _over_one((2**40, 2**40), (0, 0))
    assert status_of(t, t, None, t) == ACLNN_ERR_PARAM_INVALID
    msg = aclnn.aclGetRecentErrMsg()
    assert f"gradOutput's view ({2**40}, {2**40}) has {2**80} elements" in msg and str(INTP_MAX) in msg


@pytest.mark.parametrize("which", ["gradOutput", "self", "gradInput"])
def test_byte_extent_beyond_numpy_is_161002(which):
    """Strides that fit in bytes, but the span from the storage start to the last element does not."""
    t = _over_one((2, 3), (0, 2**60))  # reaches element 2**61: byte 2**63 + 3
    assert status_of(*_replace(which, t)) == ACLNN_ERR_PARAM_INVALID
    msg = aclnn.aclGetRecentErrMsg()
    assert f"{which}'s view" in msg and f"spans {(2**61 + 1) * 4} bytes" in msg
    t = _over_one((2, 3), (0, 0), offset=2**62)
    assert status_of(*_replace(which, t)) == ACLNN_ERR_PARAM_INVALID
    msg = aclnn.aclGetRecentErrMsg()
    assert f"{which}'s view" in msg and f"spans {(2**62 + 1) * 4} bytes" in msg


def test_broadcast_views_are_bounded_by_the_largest_storage(stream):
    """The launch allocates view-sized buffers: the view may not outgrow every storage the caller passed."""
    big = (2**17, 2**17)               # 2**34 float32 over 4 bytes: 64 GiB per materialised buffer
    t = _over_one(big, (0, 0))
    assert status_of(t, t, None, t) == ACLNN_ERR_PARAM_INVALID
    msg = aclnn.aclGetRecentErrMsg()
    assert f"gradInput's view {big} has {2**34} elements, more than the largest storage" in msg
    assert "(1 elements)" in msg
    # broadcast inputs over one element each, a real output of 20: fine, and the results are the broadcast's
    g1, x1 = np.array([0.75], np.float32), np.array([-1.5], np.float32)
    out = np.zeros((4, 5), np.float32)
    status, _ = launch(_over_one((4, 5), (0, 0), storage=g1), _over_one((4, 5), (0, 0), storage=x1), None,
                       tensor(out), stream)
    assert status == ACLNN_SUCCESS
    np.testing.assert_array_equal(bits(out), bits(swish_backward(np.full((4, 5), 0.75, np.float32),
                                                                 np.full((4, 5), -1.5, np.float32))))
    # the bound is the largest of the three storages, whichever tensor holds it: 20 elements fit 20, 21 do not
    store = np.zeros(20, np.float32)
    for holder in ("gradOutput", "self", "gradInput"):
        for n, expected in ((20, ACLNN_SUCCESS), (21, ACLNN_ERR_PARAM_INVALID)):
            args = {name: _over_one((n,), (0,)) for name in ("gradOutput", "self", "gradInput")}
            args[holder] = _over_one((n,), (0,), storage=store)
            assert status_of(args["gradOutput"], args["self"], None, args["gradInput"]) == expected, (holder, n)


def test_read_only_gradinput_is_161002():
    _, _, _, go, x, _ = three()
    ro = np.zeros((2, 3), np.float32)
    ro.flags.writeable = False
    assert status_of(go, x, None, tensor(ro)) == ACLNN_ERR_PARAM_INVALID
    assert "gradInput's data is read-only" in aclnn.aclGetRecentErrMsg()


def test_formats_must_agree():
    rng = np.random.default_rng(3)
    a = random_values(rng, (1, 3, 2, 2), np.float32)
    s = formats.nd_to_nc1hwc0(a)
    nc = aclnn.aclCreateTensor(a.shape, ACL_FLOAT, None, 0, ACL_FORMAT_NC1HWC0, s.shape, s)
    nd = tensor(a)
    assert status_of(nc, nd, None, nc) == ACLNN_ERR_PARAM_INVALID
    assert "share one storage format" in aclnn.aclGetRecentErrMsg()
    bad = aclnn.aclCreateTensor(a.shape, ACL_FLOAT, None, 0, ACL_FORMAT_NC1HWC0, (1, 2, 2, 2, 4), np.zeros(32, np.float32))
    assert status_of(nc, nc, None, bad) == ACLNN_ERR_PARAM_INVALID
    assert "is not the ACL_FORMAT_NC1HWC0 storage" in aclnn.aclGetRecentErrMsg()
    s8 = formats.nd_to_nc1hwc0(a, 4)
    other_c0 = aclnn.aclCreateTensor(a.shape, ACL_FLOAT, None, 0, ACL_FORMAT_NC1HWC0, s8.shape, s8)
    assert status_of(nc, nc, None, other_c0) == ACLNN_ERR_PARAM_INVALID
    assert "storage shapes must be equal" in aclnn.aclGetRecentErrMsg()
    shifted = aclnn.aclCreateTensor(a.shape, ACL_FLOAT, None, 1, ACL_FORMAT_NC1HWC0, s.shape, np.zeros(s.size + 1, np.float32))
    assert status_of(nc, nc, None, shifted) == ACLNN_ERR_PARAM_INVALID
    assert "offset 0" in aclnn.aclGetRecentErrMsg()


def test_create_tensor_rejects_what_cannot_be_a_tensor():
    good = np.zeros(6, np.float32)
    cases = [
        (((2, 3), 99, None, 0, ACL_FORMAT_ND, (6,), good), "data_type 99"),
        (((2, 3), ACL_FLOAT, (1,), 0, ACL_FORMAT_ND, (6,), good), "one entry per dim"),
        (((2, 3), ACL_FLOAT, (3, -1), 0, ACL_FORMAT_ND, (6,), good), "non-negative"),
        (((2, -3), ACL_FLOAT, None, 0, ACL_FORMAT_ND, (6,), good), "view_shape must hold non-negative"),
        (((2, 3), ACL_FLOAT, None, -1, ACL_FORMAT_ND, (6,), good), "offset must be an integer >= 0"),
        (((2, 3), ACL_FLOAT, None, 0, 77, (6,), good), "format 77"),
        (((2, 3), ACL_FLOAT, None, 0, ACL_FORMAT_ND, (7,), good), "needs 7 elements, data holds 6"),
        (((2, 3), ACL_FLOAT16, None, 0, ACL_FORMAT_ND, (6,), good), "data has dtype float32"),
        (((2, 3), ACL_FLOAT, None, 0, ACL_FORMAT_ND, (6,), good[::-1]), "C-contiguous"),
        (((2, 3), ACL_FLOAT, None, 0, ACL_FORMAT_ND, (6,), [0.0] * 6), "numpy.ndarray"),
        (((2, 3), ACL_FLOAT, None, 0, ACL_FORMAT_ND, (6,), np.zeros(23, np.uint8)), "whole number"),
    ]
    for args, fragment in cases:
        assert aclnn.aclCreateTensor(*args) is None, fragment
        assert fragment in aclnn.aclGetRecentErrMsg()


@pytest.mark.parametrize("value", [0.0, 2.0, np.float64(2.0), np.float32(0.0), True, np.True_, "2"],
                         ids=lambda v: f"{type(v).__name__}-{v}")
def test_enum_arguments_must_be_real_integers(value):
    """A float equal to an enum value (ACL_FLOAT is 0, ACL_FORMAT_ND is 2, ...) or a bool is not one."""
    good = np.zeros(6, np.float32)
    assert aclnn.aclCreateTensor((2, 3), value, None, 0, ACL_FORMAT_ND, None, good) is None
    assert "data_type must be an integer (aclDataType)" in aclnn.aclGetRecentErrMsg()
    assert aclnn.aclCreateTensor((2, 3), ACL_FLOAT, None, 0, value, None, good) is None
    assert "format must be an integer (aclFormat)" in aclnn.aclGetRecentErrMsg()
    assert aclnn.aclCreateScalar(1.0, value) is None
    assert "data_type must be an integer (aclDataType)" in aclnn.aclGetRecentErrMsg()
    assert aclnn.aclrtMalloc(8, value) == (aclnn.ACL_ERROR_INVALID_PARAM, None)
    assert "policy must be an integer (aclrtMemMallocPolicy)" in aclnn.aclGetRecentErrMsg()
    assert aclnn.aclrtMemcpy(good, 24, good, 24, value) == aclnn.ACL_ERROR_INVALID_PARAM
    assert "kind must be an integer (aclrtMemcpyKind)" in aclnn.aclGetRecentErrMsg()
    for argname, args in (("offset", ((2, 3), ACL_FLOAT, None, value, ACL_FORMAT_ND, None, good)),
                          ("strides", ((2, 3), ACL_FLOAT, (3, value), 0, ACL_FORMAT_ND, None, good)),
                          ("view_shape", ((2, value), ACL_FLOAT, None, 0, ACL_FORMAT_ND, None, good)),
                          ("storage_shape", ((2, 3), ACL_FLOAT, None, 0, ACL_FORMAT_ND, (value,), good))):
        assert aclnn.aclCreateTensor(*args) is None, argname
        assert argname in aclnn.aclGetRecentErrMsg()


def test_numpy_integer_enums_are_accepted_and_stored_as_int():
    good = np.zeros(6, np.float32)
    t = aclnn.aclCreateTensor((2, 3), np.int64(ACL_FLOAT), None, np.uint8(0), np.int32(ACL_FORMAT_ND), None, good)
    assert t is not None and type(t.data_type) is int and type(t.format) is int and type(t.offset) is int
    s = aclnn.aclCreateScalar(1.5, np.int16(ACL_FLOAT16))
    assert s is not None and type(s.data_type) is int and s.value == np.float16(1.5)


@pytest.mark.parametrize("argname,args", [
    ("strides", ((2, 3), ACL_FLOAT, (2**63, 1), 0, ACL_FORMAT_ND, None, np.zeros(6, np.float32))),
    ("view_shape", ((2**63, 0), ACL_FLOAT, None, 0, ACL_FORMAT_ND, (6,), np.zeros(6, np.float32))),
    ("storage_shape", ((2, 3), ACL_FLOAT, None, 0, ACL_FORMAT_ND, (2**63, 0), np.zeros(6, np.float32))),
    ("offset", ((2, 3), ACL_FLOAT, None, 2**63, ACL_FORMAT_ND, None, np.zeros(6, np.float32))),
])
def test_create_tensor_values_must_fit_int64(argname, args):
    """Shapes, strides and the offset are C int64_t."""
    assert aclnn.aclCreateTensor(*args) is None
    msg = aclnn.aclGetRecentErrMsg()
    assert argname in msg and "int64" in msg


def test_malloc_beyond_memory_is_an_error_not_an_exception():
    assert aclnn.aclrtMalloc(2**63) == (aclnn.ACL_ERROR_INVALID_PARAM, None)
    assert "exceeds" in aclnn.aclGetRecentErrMsg()
    # 4 EiB: more than any 64-bit address space maps
    assert aclnn.aclrtMalloc(2**62) == (aclnn.ACL_ERROR_RT_MEMORY_ALLOCATION, None)
    assert "cannot allocate" in aclnn.aclGetRecentErrMsg()


def test_create_tensor_over_raw_bytes_shares_memory():
    raw = np.zeros(24, np.uint8)
    t = aclnn.aclCreateTensor((2, 3), ACL_FLOAT, None, 0, ACL_FORMAT_ND, (2, 3), raw)
    assert np.shares_memory(t.storage, raw) and t.storage.dtype == np.float32


def test_create_scalar_holds_value_in_its_dtype():
    assert aclnn.aclCreateScalar(1.1, ACL_BF16).value == np.float32(1.1015625)
    assert aclnn.aclCreateScalar(300, ACL_INT8) is None
    assert "does not fit ACL_INT8" in aclnn.aclGetRecentErrMsg()
    assert aclnn.aclCreateScalar(1.5, ACL_INT32) is None
    assert "integral" in aclnn.aclGetRecentErrMsg()
    assert aclnn.aclCreateScalar(1j, ACL_FLOAT) is None
    assert "complex" in aclnn.aclGetRecentErrMsg()
    assert aclnn.aclCreateScalar("1", ACL_FLOAT) is None
    assert aclnn.aclCreateScalar(1.0, 99) is None
    assert aclnn.aclDestroyScalar(None) == ACLNN_SUCCESS
    s = aclnn.aclCreateScalar(1.0, ACL_FLOAT)
    assert aclnn.aclDestroyScalar(s) == ACLNN_SUCCESS
    assert aclnn.aclDestroyScalar(s) == ACLNN_ERR_PARAM_INVALID
    t = tensor(np.zeros(2, np.float32))
    assert aclnn.aclDestroyTensor(None) == ACLNN_SUCCESS
    assert aclnn.aclDestroyTensor(t) == ACLNN_SUCCESS
    assert aclnn.aclDestroyTensor(t) == ACLNN_ERR_PARAM_INVALID
    assert "already destroyed" in aclnn.aclGetRecentErrMsg()


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


def test_destroyed_stream_is_a_runtime_error():
    _, _, _, go, xt, gi = three()
    status, s = aclnn.aclrtCreateStream()
    assert aclnn.aclrtDestroyStream(s) == aclnn.ACL_SUCCESS
    assert aclnn.aclrtDestroyStream(s) == aclnn.ACL_ERROR_RT_PARAM_INVALID
    assert aclnn.aclrtSynchronizeStream(s) == aclnn.ACL_ERROR_RT_PARAM_INVALID
    status, ws, executor = aclnn.aclnnSwishBackwardGetWorkspaceSize(go, xt, None, gi)
    assert aclnn.aclnnSwishBackward(WORKSPACE, ws, executor, s) == ACLNN_ERR_RUNTIME_ERROR
    assert "stream was destroyed" in aclnn.aclGetRecentErrMsg()
    assert aclnn.aclnnSwishBackward(WORKSPACE, ws, executor, 5) == ACLNN_ERR_RUNTIME_ERROR


def test_failed_launch_reports_on_synchronize(monkeypatch, stream):
    def boom(*args):
        raise RuntimeError("emulated kernel fault")

    monkeypatch.setattr(aclnn.op_api, "run_tiling", boom)
    _, _, out, go, xt, gi = three()
    status, ws, executor = aclnn.aclnnSwishBackwardGetWorkspaceSize(go, xt, None, gi)
    assert aclnn.aclnnSwishBackward(WORKSPACE, ws, executor, stream) == ACLNN_SUCCESS
    assert aclnn.aclrtSynchronizeStream(stream) == aclnn.ACL_ERROR_RT_INTERNAL_ERROR
    assert "emulated kernel fault" in aclnn.aclGetRecentErrMsg()
    assert aclnn.aclrtSynchronizeStream(stream) == aclnn.ACL_SUCCESS  # the error was consumed


def test_launches_on_one_stream_run_in_order(stream):
    """Each launch reads the previous launch's output: only in-order execution gives the chain."""
    rng = np.random.default_rng(5)
    x = random_values(rng, (300,), F32, specials=False)
    bufs = [random_values(rng, (300,), F32, specials=False)] + [np.zeros(300, np.float32) for _ in range(4)]
    xt = tensor(x)
    for a, b in zip(bufs, bufs[1:]):
        status, ws, executor = aclnn.aclnnSwishBackwardGetWorkspaceSize(tensor(a), xt, None, tensor(b))
        assert aclnn.aclnnSwishBackward(WORKSPACE, ws, executor, stream) == ACLNN_SUCCESS
    assert aclnn.aclrtSynchronizeStream(stream) == aclnn.ACL_SUCCESS
    expected = bufs[0]
    for _ in range(4):
        expected = swish_backward(expected, x)
    np.testing.assert_array_equal(bits(bufs[-1]), bits(expected))


def test_default_stream_and_several_streams():
    rng = np.random.default_rng(6)
    streams = [aclnn.aclrtCreateStream()[1] for _ in range(2)] + [None]
    jobs = []
    for i, s in enumerate(streams):
        g, x = random_values(rng, (64,), F16), random_values(rng, (64,), F16)
        out = np.zeros(64, F16)
        status, ws, executor = aclnn.aclnnSwishBackwardGetWorkspaceSize(tensor(g), tensor(x), None, tensor(out))
        assert aclnn.aclnnSwishBackward(WORKSPACE, ws, executor, s) == ACLNN_SUCCESS
        jobs.append((g, x, out))
    for s in streams:
        assert aclnn.aclrtSynchronizeStream(s) == aclnn.ACL_SUCCESS
    for g, x, out in jobs:
        np.testing.assert_array_equal(bits(out), bits(swish_backward(g, x)))
    for s in streams[:2]:
        assert aclnn.aclrtDestroyStream(s) == aclnn.ACL_SUCCESS


# --------------------------------------------------------------------------
# Results: layouts, beta dtypes, empty tensors, ranks
# --------------------------------------------------------------------------


def _layouts(rng, dtype):
    """(name, storage base, view) pairs: contiguous, transposed, sliced, stride 0."""
    base = random_values(rng, (6, 10), dtype)
    yield "contiguous", base[:4, :5].copy(), None
    base_t = random_values(rng, (10, 6), dtype)
    yield "transposed", base_t, base_t.T[1:5, 2:7]
    yield "sliced", base, base[1:5, 1:10:2]
    row = base.reshape(-1)[:5]
    yield "stride0", base, np.lib.stride_tricks.as_strided(row, shape=(4, 5), strides=(0, base.itemsize))


@pytest.mark.parametrize("dtype", KERNEL_DTYPES, ids=lambda d: d.name)
@pytest.mark.parametrize("in_layout", ["contiguous", "transposed", "sliced", "stride0"])
@pytest.mark.parametrize("out_layout", ["contiguous", "transposed", "sliced", "stride0"])
def test_layouts_match_swish_backward(dtype, in_layout, out_layout, stream):
    rng = np.random.default_rng(42)
    beta = np.float32(-842.45) if dtype == F32 else np.float32(1.1)

    def make(layout):
        for name, base, view in _layouts(rng, dtype):
            if name == layout:
                if view is None:
                    return base, base, tensor(base)
                return base, view, tensor_over(view, base)

    g_base, g_view, g_t = make(in_layout)
    x_base, x_view, x_t = make(in_layout)
    o_base, o_view, o_t = make(out_layout)
    expected_base = o_base.copy()
    expected_view = expected_base if o_view is o_base else np.lib.stride_tricks.as_strided(
        expected_base.reshape(-1)[(o_view.__array_interface__["data"][0] - o_base.__array_interface__["data"][0])
                                  // o_base.itemsize:], shape=o_view.shape, strides=o_view.strides)
    swish_backward(g_view, x_view, beta, out=expected_view)
    status, _ = launch(g_t, x_t, aclnn.aclCreateScalar(beta, ACL_FLOAT), o_t, stream)
    assert status == ACLNN_SUCCESS
    # the whole output storage: the view's elements written, the rest untouched
    np.testing.assert_array_equal(bits(o_base), bits(expected_base))


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
    assert np.array(executor.tiling.data["sconf"]).view(np.uint32) == beta32.view(np.uint32)
    np.testing.assert_array_equal(bits(out), bits(swish_backward(g, x, beta32)))
    if acl_dt in (ACL_INT8, ACL_BF16):
        assert_matches_reference(out, ref_swish_grad(g, x, beta32))


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
        assert_matches_reference(out, ref_swish_grad(g, x, np.float32(-1.7)))


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
    block_dim, small, big, tail = ref_tiling(os_.size, dtype.itemsize)
    assert os_.size > g.size
    assert executor.tiling.block_dim == block_dim
    assert int(executor.tiling.data["smallCoreDataNum"]) == small
    assert int(executor.tiling.data["bigCoreDataNum"]) == big
    assert int(executor.tiling.data["tailBlockNum"]) == tail


def test_padded_tiling_uses_more_cores_than_the_logical_count(stream):
    """4000 float32 fit one tile (7016): ND uses 1 core; NC1HWC0 pads to 32000 elements and 48 cores."""
    rng = np.random.default_rng(11)
    shape = (1, 1, 1, 4000)
    g, x = random_values(rng, shape, F32), random_values(rng, shape, F32)
    out_nd = np.zeros(shape, np.float32)
    status, ex_nd = launch(tensor(g), tensor(x), None, tensor(out_nd), stream)
    assert status == 0 and ex_nd.tiling.block_dim == ref_tiling(4000, 4)[0] == 1
    (gs, gt), (xs, xt), (os_, ot) = _private([g, x, np.zeros(shape, np.float32)], ACL_FORMAT_NC1HWC0,
                                             formats.nd_to_nc1hwc0)
    assert os_.size == 32000
    status, ex = launch(gt, xt, None, ot, stream)
    assert status == 0
    block_dim, small, big, tail = ref_tiling(32000, 4)
    assert (ex.tiling.block_dim, int(ex.tiling.data["smallCoreDataNum"]), int(ex.tiling.data["tailBlockNum"])) \
        == (block_dim, small, tail) == (48, 664, 16)
    np.testing.assert_array_equal(bits(formats.nc1hwc0_to_nd(os_, shape)), bits(out_nd))


def test_garbage_arguments_return_errors_and_never_raise():
    odd = [None, [], [1], "x", 1.5, -1, object(), {"a": 1}, np.zeros(3), True]
    for v in odd:
        assert aclnn.aclCreateTensor(v, ACL_FLOAT, None, 0, ACL_FORMAT_ND, None, np.zeros(3, np.float32)) is None \
            or v in ([], [1])
        assert aclnn.aclCreateTensor((3,), v, None, 0, ACL_FORMAT_ND, None, np.zeros(3, np.float32)) is None
        assert aclnn.aclCreateTensor((3,), ACL_FLOAT, None, 0, v, None, np.zeros(3, np.float32)) is None
        assert aclnn.aclCreateScalar(1.0, v) is None
        assert aclnn.aclnnSwishBackwardGetWorkspaceSize(v, v, None, v)[0] != ACLNN_SUCCESS
        assert aclnn.aclnnSwishBackward(v, v, v, v) != ACLNN_SUCCESS
        assert aclnn.aclrtSynchronizeStream(v) == aclnn.ACL_SUCCESS if v is None else \
            aclnn.aclrtSynchronizeStream(v) == aclnn.ACL_ERROR_RT_PARAM_INVALID
        assert aclnn.aclrtMemcpy(v, 4, v, 4, v) == aclnn.ACL_ERROR_INVALID_PARAM
        assert aclnn.aclrtMalloc(v)[0] == aclnn.ACL_ERROR_INVALID_PARAM
    assert aclnn.aclGetRecentErrMsg()


def test_memcpy_bounds():
    dst, src = np.zeros(4, np.float32), np.arange(4, dtype=np.float32)
    assert aclnn.aclrtMemcpy(dst, 16, src, 8, aclnn.ACL_MEMCPY_HOST_TO_DEVICE) == aclnn.ACL_SUCCESS
    np.testing.assert_array_equal(dst, [0, 1, 0, 0])
    assert aclnn.aclrtMemcpy(dst, 20, src, 8, aclnn.ACL_MEMCPY_HOST_TO_DEVICE) == aclnn.ACL_ERROR_INVALID_PARAM
    assert aclnn.aclrtMemcpy(dst, 8, src, 12, aclnn.ACL_MEMCPY_HOST_TO_DEVICE) == aclnn.ACL_ERROR_INVALID_PARAM
    assert aclnn.aclrtMemcpy(dst, 16, src[:1], 8, aclnn.ACL_MEMCPY_HOST_TO_DEVICE) == aclnn.ACL_ERROR_INVALID_PARAM
    assert "exceeds" in aclnn.aclGetRecentErrMsg()

"""Tests of swishgrad_numba.aclnn.tensor: creating tensors and scalars, and the geometry checks of phase one.

Creation refuses only what cannot describe a tensor; phase one refuses views that NumPy cannot address, that
leave their storage, or that would make the launch allocate beyond the caller's storage. Results through the API
are compared bit for bit with ``swish_backward`` (tested on its own elsewhere).
"""
import functools
from fractions import Fraction

import ml_dtypes
import numpy as np
import pytest

from aclnn_helpers import (  # noqa: F401  (fixtures)
    bits, launch, random_values, reference_platform, status_of, stream, tensor, three,
)
from swishgrad_numba import aclnn, formats, swish_backward
from swishgrad_numba.aclnn import (
    ACL_BF16, ACL_FLOAT, ACL_FLOAT16, ACL_FORMAT_NC1HWC0, ACL_FORMAT_ND, ACL_INT8, ACL_INT32, ACL_INT64,
    ACLNN_ERR_PARAM_INVALID,
    ACLNN_SUCCESS,
)


# --------------------------------------------------------------------------
# Creating tensors and scalars
# --------------------------------------------------------------------------


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


@functools.lru_cache(maxsize=None)
def _candidates(dtype) -> tuple:
    """(value, bit pattern) of every non-negative finite pattern of a 16-bit dtype, and of the first power of
    two past its largest finite, which stands for infinity (its pattern, all exponent bits set, is even, so a
    tie at the overflow boundary goes to infinity as round-to-nearest-even says)."""
    patterns = np.arange(0x8000, dtype=np.uint16)
    with np.errstate(invalid="ignore"):
        values = patterns.view(dtype).astype(np.float64)
    finite = np.isfinite(values)
    inf_pattern = int(np.array(np.inf, dtype).view(np.uint16))
    return tuple((Fraction(float(v)), int(p)) for v, p in zip(values[finite], patterns[finite])) + (
        (Fraction(2) ** int(ml_dtypes.finfo(dtype).maxexp), inf_pattern),)


def _nearest_by_search(value: Fraction, dtype) -> int:
    """The bit pattern of ``dtype`` nearest ``value``, by search over every finite pattern (ties: the even
    one); independent of the code under test."""
    a = abs(value)
    best = min(_candidates(dtype), key=lambda c: (abs(c[0] - a), c[1] & 1))
    return best[1] | (0x8000 if value < 0 else 0)


@pytest.mark.parametrize("acl_dt, dtype, value", [
    (ACL_FLOAT16, np.float16, Fraction(1) + Fraction(1, 2**11) + Fraction(1, 2**60)),
    (ACL_FLOAT16, np.float16, 65519),
    (ACL_FLOAT16, np.float16, 65520),
    (ACL_FLOAT16, np.float16, np.int64(-65519)),
    (ACL_FLOAT16, np.float16, Fraction(3, 2**26) + Fraction(1, 2**90)),
    (ACL_BF16, ml_dtypes.bfloat16, Fraction(1) + Fraction(1, 2**8) + Fraction(1, 2**60)),
    (ACL_BF16, ml_dtypes.bfloat16, np.int64(2**40 + 2**32 + 1)),
    (ACL_BF16, ml_dtypes.bfloat16, np.uint64(2**64 - 1)),
    (ACL_BF16, ml_dtypes.bfloat16, 2**128 - 2**119 - 1),
], ids=repr)
def test_create_scalar_rounds_integers_and_fractions_once_16_bit(acl_dt, dtype, value):
    held = aclnn.aclCreateScalar(value, acl_dt).value
    exact = Fraction(int(value)) if isinstance(value, (int, np.integer)) else value
    assert int(np.array(held, dtype).view(np.uint16)) == _nearest_by_search(exact, np.dtype(dtype)), held


def test_create_scalar_rounds_integers_and_fractions_once_float32():
    assert aclnn.aclCreateScalar(2**128 - 2**103 - 1, ACL_FLOAT).value == np.finfo(np.float32).max
    assert aclnn.aclCreateScalar(np.int64(2**60 + 2**36 + 1), ACL_FLOAT).value == np.float32(2**60 + 2**37)
    value = Fraction(1) + Fraction(1, 2**24) + Fraction(1, 2**60)
    assert aclnn.aclCreateScalar(value, ACL_FLOAT).value == np.float32(1 + 2**-23)


def test_create_scalar_integral_types_and_durations():
    assert aclnn.aclCreateScalar(Fraction(14, 2), ACL_INT32).value == 7
    assert aclnn.aclCreateScalar(Fraction(2**60 + 1, 2), ACL_INT64) is None   # float() would make it integral
    assert "integral" in aclnn.aclGetRecentErrMsg()
    assert aclnn.aclCreateScalar(np.timedelta64(1, "s"), ACL_FLOAT) is None
    assert "value must be a number, got timedelta64" in aclnn.aclGetRecentErrMsg()


# --------------------------------------------------------------------------
# Geometry: storage bounds, NumPy addressing, the launch buffers, storage formats
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
def test_stride_beyond_numpy_bytes_is_161002(which):
    """2**62 float32 elements is 2**64 bytes: NumPy cannot take that stride on a dim that moves (size 2)."""
    t = _over_one((1, 2, 3), (0, 2**62, 0))
    assert t is not None
    assert status_of(*_replace(which, t, (1, 2, 3))) == ACLNN_ERR_PARAM_INVALID
    msg = aclnn.aclGetRecentErrMsg()
    assert f"{which}'s stride {2**62} (dim 1) is {2**64} bytes" in msg and str(INTP_MAX) in msg


@pytest.mark.parametrize("which", ["gradOutput", "self", "gradInput"])
@pytest.mark.parametrize("stride", [2**62, 2**63 - 1, INTP_MAX // 4 + 1, 0, 5])
def test_the_stride_of_a_size_1_dim_never_matters(which, stride, stream):
    """A size-1 dim's stride never moves the view: any int64 value is accepted, and the result is the same.

    (A stride past NumPy's bytes used to be refused with 161002.)"""
    rng = np.random.default_rng(14)
    storage = random_values(rng, (2, 3), np.float32)
    go, x = storage.copy(), random_values(rng, (2, 3), np.float32)
    expected = swish_backward(go.reshape(2, 1, 3), x.reshape(2, 1, 3))
    shape, strides = (2, 1, 3), (3, stride, 1)
    arrays = {"gradOutput": go, "self": x, "gradInput": np.zeros((2, 3), np.float32)}
    tensors = {name: aclnn.aclCreateTensor(shape, ACL_FLOAT, strides if name == which else None, 0, ACL_FORMAT_ND,
                                           (2, 3), arr) for name, arr in arrays.items()}
    assert all(t is not None for t in tensors.values())
    status, _ = launch(tensors["gradOutput"], tensors["self"], None, tensors["gradInput"], stream)
    assert status == ACLNN_SUCCESS, aclnn.aclGetRecentErrMsg()
    np.testing.assert_array_equal(bits(arrays["gradInput"].reshape(2, 1, 3)), bits(expected))


def test_the_stride_of_a_size_1_dim_never_matters_in_a_padded_format(stream):
    """NC1HWC0 wants its view's contiguous strides; a size-1 dim's stride is not part of that rule."""
    rng = np.random.default_rng(15)
    shape = (1, 3, 2, 2)
    storage_shape = formats.nc1hwc0_shape(shape, 16)
    arrays = [random_values(rng, storage_shape, np.float16) for _ in range(2)] + [np.zeros(storage_shape, np.float16)]
    tensors = [aclnn.aclCreateTensor(shape, ACL_FLOAT16, (2**62, 4, 2, 1), 0, ACL_FORMAT_NC1HWC0, storage_shape, a)
               for a in arrays]
    status, _ = launch(tensors[0], tensors[1], None, tensors[2], stream)
    assert status == ACLNN_SUCCESS, aclnn.aclGetRecentErrMsg()
    np.testing.assert_array_equal(bits(arrays[2]), bits(swish_backward(arrays[0], arrays[1])))


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


def test_formats_must_agree():
    rng = np.random.default_rng(3)
    a = random_values(rng, (1, 3, 2, 2), np.float32)
    s = formats.nd_to_nc1hwc0(a)
    nc = aclnn.aclCreateTensor(a.shape, ACL_FLOAT, None, 0, ACL_FORMAT_NC1HWC0, s.shape, s)
    nd = tensor(a)
    assert status_of(nc, nd, None, nc) == ACLNN_ERR_PARAM_INVALID
    assert "share one storage format" in aclnn.aclGetRecentErrMsg()
    bad = aclnn.aclCreateTensor(a.shape, ACL_FLOAT, None, 0, ACL_FORMAT_NC1HWC0, (1, 2, 2, 2, 4),
                                np.zeros(32, np.float32))
    assert status_of(nc, nc, None, bad) == ACLNN_ERR_PARAM_INVALID
    assert "is not the ACL_FORMAT_NC1HWC0 storage" in aclnn.aclGetRecentErrMsg()
    s8 = formats.nd_to_nc1hwc0(a, 4)
    other_c0 = aclnn.aclCreateTensor(a.shape, ACL_FLOAT, None, 0, ACL_FORMAT_NC1HWC0, s8.shape, s8)
    assert status_of(nc, nc, None, other_c0) == ACLNN_ERR_PARAM_INVALID
    assert "storage shapes must be equal" in aclnn.aclGetRecentErrMsg()
    shifted = aclnn.aclCreateTensor(a.shape, ACL_FLOAT, None, 1, ACL_FORMAT_NC1HWC0, s.shape,
                                    np.zeros(s.size + 1, np.float32))
    assert status_of(nc, nc, None, shifted) == ACLNN_ERR_PARAM_INVALID
    assert "offset 0" in aclnn.aclGetRecentErrMsg()

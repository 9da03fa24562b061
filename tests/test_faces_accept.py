"""The functional API accepts exactly what the aclnn API accepts, for every described operator (issue 40's done
criterion), generated from the registry: every operator of ``ops.description.DESCRIPTIONS`` on

- dtypes per SoC: every dtype the aclnn face has a code for that a tensor of the emulator can hold (the lists',
  and the integers, bool and complex beyond them), on each SoC family with its own list or bfloat16 rule;
- ranks: 0-d, 8 and 9 dims, inputs of differing ranks that broadcast (0-d with 2-d, 8 with 9);
- broadcast shapes per SoC (the A2's kernels broadcast otherwise than the 950's);
- attribute values of every kind: bool, int, float (negative too), None, string, complex, each as the aclnn
  signature takes it (a float attribute an aclScalar of ``ACL_BOOL``, ``ACL_INT64``, ``ACL_DOUBLE`` or
  ``ACL_COMPLEX64``, None a null pointer; a bool or choice attribute the value itself; a choice with
  ``acl_codes`` its integer code).

Where both faces accept, their results are equal bit for bit; the aclnn output is asked in the dtype PyTorch's
promotion gives (the inputs' where ``out_same_dtype`` and they agree). :mod:`test_faces_agree` covers the
registered operators that are not described; :mod:`test_described` the statuses and the pairs of dtypes.
"""
import ml_dtypes
import numpy as np
import pytest

from aclnn_helpers import reference_platform  # noqa: F401
from reference import assert_bits_equal
import swishgrad_numba as sg
from swishgrad_numba import Platform, aclnn
from swishgrad_numba.aclnn import ACLNN_SUCCESS, aclCreateScalar
from swishgrad_numba.aclnn.enums import ACL_DTYPES
from swishgrad_numba.ops import get_operator
from swishgrad_numba.ops.description import DESCRIPTIONS
from test_faces_agree import result_dtype
from test_described import NAMES as DESCRIBED   # the described operators test_described generates for

#: The element-wise operators (the row operators' shapes, axis and outputs are another matter: their faces'
#: acceptance is checked in test_faces_accept_rows).
NAMES = [n for n in DESCRIBED if DESCRIPTIONS[n].rows is None]

CODE = {dtype.name: code for code, (_name, dtype) in ACL_DTYPES.items()}
#: Every SoC family whose list or bfloat16 rule differs: an A2, an A3, the 950, the 910E (bfloat16 by the gate,
#: not by ``GetDtypeSupportListV2``), chips without bfloat16.
SOCS = ("ascend910b", "ascend910_93", "ascend950", "ascend910e", "ascend310p", "ascend910")
DTYPES = ("float32", "float16", "bfloat16", "float64", "int8", "uint8", "int16", "int32", "int64", "bool",
          "complex64", "complex128")
BF16 = np.dtype(ml_dtypes.bfloat16)


def _np(name):
    return BF16 if name == "bfloat16" else np.dtype(name)


def _values(shape, dtype, seed):
    rng = np.random.default_rng(seed)
    if dtype.kind == "b":
        return rng.integers(0, 2, shape).astype(bool)
    if dtype.kind in "iu":
        return rng.integers(-4 if dtype.kind == "i" else 0, 5, shape).astype(dtype)
    v = rng.uniform(-6, 6, shape)
    if dtype.kind == "c":
        return (v + 1j * rng.uniform(-1, 1, shape)).astype(dtype)
    return v.astype(np.float32).astype(dtype)


def _out_dtype(desc, dtypes):
    """The output the aclnn face is asked for: PyTorch's promotion of the inputs (the floating result type,
    float32 for integers and bool; complex where one is), the inputs' dtype where ``out_same_dtype`` and they
    agree."""
    if desc.out_same_dtype and len(set(dtypes)) == 1 and dtypes[0].kind != "b":
        return dtypes[0]
    if any(d.kind == "c" for d in dtypes):
        return np.dtype(np.complex128) if any(d in (np.complex128, np.float64) for d in dtypes) \
            else np.dtype(np.complex64)
    return result_dtype(*dtypes)


def _tensor(a):
    return aclnn.aclCreateTensor(a.shape, CODE[a.dtype.name], None, 0, aclnn.ACL_FORMAT_ND, a.shape, a)


def _acl_value(a, value):
    """Attribute ``a``'s ``value`` as the aclnn signature takes it."""
    if a.kind == "float":
        if value is None or isinstance(value, str):
            return value                   # a null pointer; a string is no aclScalar (refused as one)
        code = {bool: "bool", int: "int64", float: "float64", complex: "complex64"}[type(value)]
        return aclCreateScalar(value, CODE[code])
    if a.kind == "choice" and a.acl_codes is not None and value in a.choices:
        return next((code for code, choice in a.acl_codes.items() if choice == value), 0)
    return value


def _defaults(desc):
    return {a.name: a.default for a in desc.attributes}


def _agree(desc, platform, arrays, values=None):
    """Both faces on ``platform``: each accepts exactly what the other does, and their bits agree."""
    values = _defaults(desc) if values is None else values
    try:
        got = getattr(sg, desc.functional)(*arrays, **values, platform=platform)
    except (TypeError, ValueError) as exc:
        got, refusal = None, exc
    try:
        shape = np.broadcast_shapes(*(a.shape for a in arrays))
    except ValueError:
        shape = arrays[0].shape
    out = np.zeros(shape, _out_dtype(desc, [a.dtype for a in arrays]))
    aclnn.set_platform(platform)
    by = {a.acl: _acl_value(a, values[a.name]) for a in desc.attributes}
    by.update({i.acl: _tensor(x) for i, x in zip(desc.inputs, arrays)}, **{desc.out: _tensor(out)})
    get_ws, launch = (getattr(aclnn, n) for n in desc.aclnn)
    status, ws, ex = get_ws(*(by[n] for n in desc.acl_arguments))
    said = aclnn.aclGetRecentErrMsg()
    if got is None:
        assert status != ACLNN_SUCCESS, f"the aclnn face accepts, the functional refuses: {refusal}"
        return
    assert status == ACLNN_SUCCESS, f"the functional face accepts, the aclnn refuses ({status}): {said}"
    assert launch(np.zeros(ws, np.uint8) if ws else None, ws, ex, None) == ACLNN_SUCCESS
    assert aclnn.aclrtSynchronizeStream(None) == aclnn.ACL_SUCCESS, aclnn.aclGetRecentErrMsg()
    assert got.dtype == out.dtype and got.shape == out.shape
    if got.dtype.kind == "c":   # a complex result (aclnnSigmoidBackward's): its real and imaginary parts
        got, out = (v.view(np.float32 if v.dtype == np.complex64 else np.float64) for v in (got, out))
    assert_bits_equal(got, out, "functional and aclnn")


@pytest.mark.parametrize("soc", SOCS)
@pytest.mark.parametrize("name", NAMES)
def test_dtypes_per_soc(name, soc):
    desc = DESCRIPTIONS[name]
    platform = Platform(soc_version=soc)
    for dtype in DTYPES:
        arrays = [_values((3, 4), _np(dtype), seed) for seed in range(len(desc.inputs))]
        try:
            _agree(desc, platform, arrays)
        except AssertionError as exc:
            raise AssertionError(f"{dtype}: {exc}") from None


#: Ranks, and shapes that broadcast (or do not), per input count.
SHAPES = {1: [((),), ((1,) * 8,), ((2,) + (1,) * 6 + (3,),), ((1,) * 9,), ((0, 3),)],
          2: [((), ()), ((), (3, 4)), ((3, 4), ()), ((1,) * 8, (1,) * 8), ((1,) * 9, (1,) * 9), ((1,) * 8, (1,) * 9),
              ((2, 1, 1, 1, 1, 1, 1, 3), (1,) * 7 + (3,)), ((3, 1), (1, 4)), ((3, 4), (4,)), ((2, 3), (3, 2)),
              ((0, 4), (1, 4))]}


@pytest.mark.parametrize("soc", ("ascend910b", "ascend950", "ascend310p"))
@pytest.mark.parametrize("name", NAMES)
def test_ranks_and_broadcast_shapes_per_soc(name, soc):
    desc = DESCRIPTIONS[name]
    platform = Platform(soc_version=soc)
    for shapes in SHAPES[len(desc.inputs)]:
        arrays = [_values(s, np.dtype(np.float32), seed) for seed, s in enumerate(shapes)]
        try:
            _agree(desc, platform, arrays)
        except AssertionError as exc:
            raise AssertionError(f"shapes {shapes}: {exc}") from None


#: One value of each kind an attribute may be given.
KINDS = {"bool": True, "int": 2, "float": 0.375, "negative float": -0.375, "None": None, "string": "0.5",
         "complex": 0.5 + 0j}
ATTRIBUTED = [(n, a.name) for n in NAMES for a in DESCRIPTIONS[n].attributes]


@pytest.mark.parametrize("name, attr", ATTRIBUTED)
def test_attribute_kinds(name, attr):
    desc = DESCRIPTIONS[name]
    a = next(a for a in desc.attributes if a.name == attr)
    platform = get_operator(name).default_platform
    arrays = [_values((3, 4), np.dtype(np.float32), seed) for seed in range(len(desc.inputs))]
    kinds = dict(KINDS)
    if a.kind == "choice":
        kinds.update({f"choice {c!r}": c for c in a.choices}, string="erf")
        if a.acl_codes is not None:   # the aclnn signature takes an integer (its code): no int in the functional
            del kinds["int"]
    for kind, value in kinds.items():
        try:
            _agree(desc, platform, arrays, {**_defaults(desc), attr: value})
        except AssertionError as exc:
            raise AssertionError(f"{attr}={value!r} ({kind}): {exc}") from None

"""The functional face accepts exactly what the aclnn pair accepts, for every row operator (the descriptions'
"rows" kind, issue 40), generated from the registry: every ``DESCRIPTIONS[n]`` with ``rows`` set, on

- dtypes per SoC (:data:`test_faces_accept.SOCS`, :data:`test_faces_accept.DTYPES`: floats, integers, bool,
  complex), the axis input's and every other input's (RmsNorm's gamma: x's or float32);
- ranks 0-d, 1-d, 8 and 9 dims; the split axis odd or even;
- the axis attribute in and out of range and of every type (bool, NumPy integer, float, None, string);
- every other input's shape right or wrong (gamma matching RmsNorm's trailing axes or not, SwiGluGrad's grad);
- a float attribute of every kind (a C double in the aclnn signature: aclnnRmsNorm's epsilon), negative too;
- empty tensors, on modelled SoCs and others.

Where both faces accept, every output is equal bit for bit. The aclnn outputs are asked in the shapes and dtypes
the description gives (``Rows.shapes``, ``Rows.dtypes_with``), or the functional face's results where it accepts.
"""
from fractions import Fraction

import numpy as np
import pytest

from aclnn_helpers import reference_platform  # noqa: F401
from described_rows_helpers import shapes as default_shapes
from reference import assert_bits_equal
import swishgrad_numba as sg
from swishgrad_numba import Platform, aclnn
from swishgrad_numba.aclnn import ACLNN_SUCCESS
from swishgrad_numba.ops import get_operator
from swishgrad_numba.ops.description import DESCRIPTIONS
from test_faces_accept import DTYPES, KINDS, SOCS, _np, _tensor, _values

#: Every row operator of the registry (a new one is covered with no change here).
NAMES = sorted(n for n in DESCRIPTIONS if DESCRIPTIONS[n].rows is not None)
F32 = np.dtype(np.float32)


def _outs(desc):
    return tuple(desc.rows.outputs) or (("out", desc.out),)


def _x(desc):
    return next(i for i in desc.inputs if i.role == "x")


def _axis_attribute(desc):
    return next((a for a in desc.attributes if a.kind == "int"), None)


def _axis(desc, arrays, values):
    """The axis the description's rules give these inputs, or None where it has none (an invalid call)."""
    xs = arrays[[i.name for i in desc.inputs].index(_x(desc).name)].shape
    if desc.rows.axis_from:
        g = arrays[[i.name for i in desc.inputs].index(desc.rows.axis_from)].shape
        return len(xs) - len(g) if len(g) <= len(xs) else None
    dim = values[_axis_attribute(desc).name]
    if not isinstance(dim, (int, np.integer)) or isinstance(dim, (bool, np.bool_)) or not -len(xs) <= dim < len(xs):
        return None
    return int(dim) % len(xs)


def _acl_outputs(desc, arrays, values, got):
    """The aclnn outputs: zeros like the functional face's results where it accepted, else of the shapes and
    dtypes the description gives (x's shape where the axis is invalid: the call is refused for it)."""
    if got is not None:
        return [np.zeros_like(r) for r in (got if isinstance(got, tuple) else (got,))]
    x = arrays[[i.name for i in desc.inputs].index(_x(desc).name)]
    d = _axis(desc, arrays, values)
    by = desc.rows.shapes(tuple(x.shape), d) if d is not None and x.ndim else {}
    fixed = desc.rows.dtypes_with(x.dtype.name) if desc.rows.dtypes_with is not None else {}
    return [np.zeros(by.get(n, x.shape), _np(fixed[n][0]) if n in fixed else x.dtype) for n, _ in _outs(desc)]


def _agree(desc, platform, arrays, values=None):
    """Both faces on ``platform``: each accepts exactly what the other does, and every output's bits agree."""
    values = {a.name: a.default for a in desc.attributes} if values is None else values
    try:
        got = getattr(sg, desc.functional)(*arrays, **values, platform=platform)
    except (TypeError, ValueError, NotImplementedError) as exc:
        got, refusal = None, exc
    outs = _acl_outputs(desc, arrays, values, got)
    aclnn.set_platform(platform)
    by = {a.acl: values[a.name] for a in desc.attributes}   # an int64 axis, a C double: the value itself
    by.update({i.acl: _tensor(a) for i, a in zip(desc.inputs, arrays)})
    by.update({acl: _tensor(o) for (_, acl), o in zip(_outs(desc), outs)})
    get_ws, launch = (getattr(aclnn, n) for n in desc.aclnn)
    status, ws, ex = get_ws(*(by[n] for n in desc.acl_arguments))
    said = aclnn.aclGetRecentErrMsg()
    if got is None:
        assert status != ACLNN_SUCCESS, f"the aclnn face accepts, the functional refuses: {refusal!r}"
        return
    assert status == ACLNN_SUCCESS, f"the functional face accepts, the aclnn refuses ({status}): {said}"
    assert launch(np.zeros(ws, np.uint8) if ws else None, ws, ex, None) == ACLNN_SUCCESS
    assert aclnn.aclrtSynchronizeStream(None) == aclnn.ACL_SUCCESS, aclnn.aclGetRecentErrMsg()
    for (name, _), r, o in zip(_outs(desc), got if isinstance(got, tuple) else (got,), outs):
        assert r.dtype == o.dtype and r.shape == o.shape, name
        assert_bits_equal(r, o, f"{name}: functional and aclnn")


def _inputs(desc, x_shape, dtype, others=None, seed=0):
    """Every input for an axis input of ``x_shape``: the others of the shapes the default axis gives them, of
    ``dtype`` (or ``others``' dtype)."""
    by = default_shapes(desc, tuple(x_shape)) if len(x_shape) else {i.name: () for i in desc.inputs}
    return [_values(by[i.name] if i.role != "x" else tuple(x_shape),
                    dtype if i.role == "x" or others is None else others, seed + k)
            for k, i in enumerate(desc.inputs)]


def _check(desc, platform, cases):
    for what, arrays, values in cases:
        try:
            _agree(desc, platform, arrays, values)
        except AssertionError as exc:
            raise AssertionError(f"{what}: {exc}") from None


@pytest.mark.parametrize("soc", SOCS)
@pytest.mark.parametrize("name", NAMES)
def test_dtypes_per_soc(name, soc):
    desc = DESCRIPTIONS[name]
    _check(desc, Platform(soc_version=soc), [(dtype, _inputs(desc, (3, 4), _np(dtype)), None) for dtype in DTYPES])


@pytest.mark.parametrize("name", [n for n in NAMES if len(DESCRIPTIONS[n].inputs) > 1])
def test_the_other_inputs_dtypes(name):
    """Every other input (RmsNorm's gamma: x's dtype or float32) of every dtype, with each float x."""
    desc = DESCRIPTIONS[name]
    _check(desc, get_operator(name).default_platform,
           [(f"x {x}, others {o}", _inputs(desc, (3, 4), _np(x), _np(o)), None)
            for x in ("float32", "float16", "bfloat16") for o in DTYPES])


#: Axis-input shapes: 0-d, 1-d, 8 and 9 dims, the split axis even and odd, empty ones.
X_SHAPES = [(), (4,), (5,), (1,) * 7 + (4,), (2,) + (1,) * 6 + (6,), (1,) * 8 + (4,), (3, 5), (4, 3), (0, 4),
            (3, 0), (0,), (2, 0, 4)]


@pytest.mark.parametrize("soc", ("ascend910b", "ascend950", "ascend310p"))
@pytest.mark.parametrize("name", NAMES)
def test_ranks_and_axes_per_soc(name, soc):
    desc = DESCRIPTIONS[name]
    a = _axis_attribute(desc)
    dims = [None] if a is None else [-1, 0]
    cases = []
    for xs in X_SHAPES:
        for dim in dims:
            values = None if a is None else {a.name: dim}
            d = dim if dim is not None and len(xs) else -1
            try:   # the others' shapes at this axis (the description's), where the axis has them
                by = desc.rows.shapes(xs, d % len(xs)) if len(xs) and a is not None else None
            except (IndexError, ZeroDivisionError):
                by = None
            arrays = _inputs(desc, xs, F32)
            if by is not None:
                arrays = [_values(by[i.name], F32, k) for k, i in enumerate(desc.inputs)]
            cases.append((f"x {xs}, dim {dim}", arrays, values))
    _check(desc, Platform(soc_version=soc), cases)


#: Axis values: in and out of range for a 2-d x, and of every type.
AXES = [-3, -2, -1, 0, 1, 2, True, False, np.bool_(True), np.int64(1), np.int32(-1), np.uint8(0), 1.0,
        np.float64(0.0), None, "1", 1 + 0j]


@pytest.mark.parametrize("name", [n for n in NAMES if _axis_attribute(DESCRIPTIONS[n]) is not None])
def test_axis_values_of_every_type(name):
    desc = DESCRIPTIONS[name]
    a = _axis_attribute(desc)
    cases = []
    for dim in AXES:
        d = dim if isinstance(dim, (int, np.integer)) and not isinstance(dim, (bool, np.bool_)) \
            and -2 <= dim < 2 else -1
        by = desc.rows.shapes((4, 6), int(d) % 2)
        cases.append((f"{a.name}={dim!r}", [_values(by[i.name], F32, k) for k, i in enumerate(desc.inputs)],
                      {a.name: dim}))
    _check(desc, get_operator(name).default_platform, cases)


def _wrong_shapes(shape):
    """A right shape and wrong ones: an axis dropped or added (leading, trailing), one longer, ones, 0-d."""
    shape = tuple(shape)
    out = [shape, shape[1:], (2,) + shape, shape + (1,), tuple(s + 1 for s in shape), (1,) * len(shape), ()]
    if shape:
        out += [shape[:-1] + (1,), (1,) + shape[1:]]
    return out


@pytest.mark.parametrize("name", [n for n in NAMES if len(DESCRIPTIONS[n].inputs) > 1])
def test_the_other_inputs_shapes(name):
    """Every other input's shape right or wrong (RmsNorm's gamma: x's last axes, one, two or all of them, or
    not; SwiGluGrad's grad: x's with dim halved)."""
    desc = DESCRIPTIONS[name]
    cases = []
    for xs in ((2, 3, 4), (4,), (2, 4)):
        for last in range(1, len(xs) + 1):
            right = default_shapes(desc, xs)
            if desc.rows.axis_from:   # the row: x's last ``last`` axes
                right = desc.rows.shapes(xs, len(xs) - last)
            elif last > 1:
                continue
            for i in (i for i in desc.inputs if i.role != "x"):
                for shape in _wrong_shapes(right[i.name]):
                    arrays = [_values(shape if j is i else right[j.name], F32, k)
                              for k, j in enumerate(desc.inputs)]
                    cases.append((f"x {xs}, {i.name} {shape}", arrays, None))
    _check(desc, get_operator(name).default_platform, cases)


#: A float attribute (a C double in the aclnn signature) of every kind: test_faces_accept's, and more.
DOUBLES = {**KINDS, "zero": 0.0, "negative zero": -0.0, "numpy float32": np.float32(1e-5), "numpy int": np.int64(0),
           "numpy bool": np.bool_(False), "nan": float("nan"), "inf": float("inf"), "huge": 1e300,
           "tiny negative": -1e-300, "negative int": -1, "fraction": Fraction(1, 3), "0-d array": np.array(1e-5)}
FLOATED = [(n, a.name) for n in NAMES for a in DESCRIPTIONS[n].attributes if a.kind == "float"]


@pytest.mark.parametrize("name, attr", FLOATED)
def test_float_attribute_kinds(name, attr):
    desc = DESCRIPTIONS[name]
    arrays = _inputs(desc, (3, 4), F32)
    _check(desc, get_operator(name).default_platform,
           [(f"{attr}={v!r} ({kind})", arrays, {**{a.name: a.default for a in desc.attributes}, attr: v})
            for kind, v in DOUBLES.items()])

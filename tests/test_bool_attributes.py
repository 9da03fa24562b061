"""One rule for a bool given for a float attribute, in every operator and every API (issue 38.4): it converts
as a C cast does (True 1.0, False 0.0; numpy.bool_ too), as torch's F.softplus / F.elu / F.leaky_relu take
it and as aclnn's scalars may be ACL_BOOL (dtypes.to_float32, the one place attributes are converted).
LeakyRelu refused it and the others took it.

The functions are found by their signatures (every parameter whose default is a float is a float attribute),
so an operator added later is covered too."""
from __future__ import annotations

import inspect

import numpy as np
import pytest

import swishgrad_numba as sg
from reference import assert_bits_equal

BOOLS = (True, np.False_)
X = np.array([-3.0, -1.5, -0.25, 0.0, 0.5, 2.0, 7.0, -30.0], dtype=np.float32)


def _float_attributes(fn) -> list:
    return [n for n, p in inspect.signature(fn).parameters.items() if type(p.default) is float]


def _cases(module, names, extra=()):
    out = [(name, attr) for name in names for attr in _float_attributes(getattr(module, name))]
    return out + [case for case in extra if case not in out]


# swish_backward's beta defaults to None (it also takes the aliases scale and sconf)
FUNCTIONAL = _cases(sg, [n for n in sg.__all__ if inspect.isfunction(getattr(sg, n))], [("swish_backward", "beta")])


# the row-wise operators: x and gamma (rows of 4), and the module's row shape
ROW_ARGS = {"rms_norm": (X.reshape(2, 4), np.full(4, 0.75, dtype=np.float32))}
MODULE_ARGS = {"RMSNorm": {"normalized_shape": X.shape[-1]}}


def _args(name):
    if name in ROW_ARGS:
        return ROW_ARGS[name]
    return (X[::-1].copy(), X) if name.endswith("backward") else (X,)


def test_the_functions_found_cover_every_float_attribute():
    names = {name for name, _ in FUNCTIONAL}
    assert {"swish", "swish_backward", "leaky_relu", "leaky_relu_backward", "softplus", "softplus_backward",
            "elu", "elu_backward"} <= names
    assert {attr for _, attr in FUNCTIONAL} >= {"beta", "negative_slope", "threshold", "alpha", "scale",
                                                  "input_scale"}


@pytest.mark.parametrize("name, attr", FUNCTIONAL)
def test_a_bool_attribute_is_its_c_cast_in_the_functional_api(name, attr):
    fn = getattr(sg, name)
    for value in BOOLS:
        got, want = fn(*_args(name), **{attr: value}), fn(*_args(name), **{attr: float(value)})
        got, want = (got, want) if isinstance(got, tuple) else ((got,), (want,))   # rms_norm: (y, rstd)
        for g, w in zip(got, want, strict=True):
            assert_bits_equal(g, w, f"{name}({attr}={value!r})")


def test_a_bool_attribute_is_its_c_cast_in_dask():
    da = pytest.importorskip("dask.array")
    from swishgrad_numba import dask as sgd

    for name, attr in _cases(sgd, sgd.__all__):
        # a row-wise operator's gamma stays a NumPy array (dask.rms_norm takes it whole)
        args = [a if i and name in ROW_ARGS else da.from_array(a, chunks=4) for i, a in enumerate(_args(name))]
        lazy = [getattr(sgd, name)(*args, **{attr: value}) for value in (np.True_, 1.0)]
        got, want = ((v,) if not isinstance(v, tuple) else v for v in lazy)   # rms_norm: (y, rstd)
        for g, w in zip(got, want, strict=True):
            assert_bits_equal(g.compute(scheduler="sync"), w.compute(scheduler="sync"), f"{name} {attr}")


def test_a_bool_attribute_is_its_c_cast_in_the_torch_modules():
    torch = pytest.importorskip("torch")
    from swishgrad_numba import torch as st

    classes = [n for n in st.__all__
               if isinstance(getattr(st, n), type) and issubclass(getattr(st, n), torch.nn.Module)]
    cases = [(n, a) for n in classes for a in _float_attributes(getattr(st, n).__init__)]
    assert {"Swish", "LeakyReLU", "Softplus", "ELU"} <= {n for n, _ in cases}
    x = torch.from_numpy(X)
    for name, attr in cases:
        for value in BOOLS:
            extra = MODULE_ARGS.get(name, {})
            got = getattr(st, name)(**extra, **{attr: value})(x).detach().numpy()
            want = getattr(st, name)(**extra, **{attr: float(value)})(x).detach().numpy()
            assert_bits_equal(got, want, f"{name}({attr}={value!r})")


def test_a_read_kernels_attribute_follows_the_rule():
    # the read kernels' attributes were refused as bool: now checked by the same rule (dtypes.to_float32)
    from swishgrad_numba.ops.read_kernel import ReadOperator

    values = ReadOperator._attribute_values(type("Op", (), {"attributes": ("scale",), "name": "toy"})(),
                                            {"scale": np.True_}, ("scale",))
    assert values == {"scale": True}
    with pytest.raises(TypeError, match="attribute scale must be a real number"):
        ReadOperator._attribute_values(type("Op", (), {"attributes": ("scale",), "name": "toy"})(),
                                       {"scale": "1.0"}, ("scale",))

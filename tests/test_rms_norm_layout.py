"""Issue 40's layout for RmsNorm (issue 42): no per-operator module at the package's top level;
the torch and Dask faces are generated from its description (issue 40); both keep their public names."""
import importlib.util
import pkgutil

import swishgrad_numba


def test_no_top_level_rms_norm_module():
    top = {m.name for m in pkgutil.iter_modules(swishgrad_numba.__path__)}
    assert not [name for name in top if "rms_norm" in name], top


def test_public_names_are_the_generated_faces():
    from swishgrad_numba import dask as sgd
    from swishgrad_numba import torch as sgt

    assert sgt.RMSNorm.__module__ == "swishgrad_numba.torch"   # generated (faces/torch_rows_formula.py)
    # issue 40: the Dask face is generated from the description (ops/rms_norm/description.py, faces/rows.py)
    assert sgd.rms_norm.__module__ == "swishgrad_numba.dask"
    assert importlib.util.find_spec("swishgrad_numba.ops.rms_norm.dask_face") is None
    assert importlib.util.find_spec("swishgrad_numba.ops.rms_norm.torch_face") is None

"""Every swishgrad_numba.dask function refuses, when its graph is built, what its in-memory function
refuses, with the same message: the host tiling's refusals included (issue 38.3: the A2 Swish host's
bfloat16 gate came only at ``.compute()``)."""
from __future__ import annotations

import re

import ml_dtypes
import numpy as np
import pytest

da = pytest.importorskip("dask.array")

import swishgrad_numba as sg  # noqa: E402
from swishgrad_numba import dask as sgd  # noqa: E402

BF16 = np.dtype(ml_dtypes.bfloat16)
# A UB smaller than any kernel's buffers: a host-tiling refusal (or the operator's refusal of the platform)
SMALL_UB = {"a2": sg.Platform(soc_version="ascend910b1", ub_size=64),
            "950": sg.Platform(soc_version="ascend950pr_9599", ub_size=64)}
# ... which these two hosts accept (noted in the report of issue 38): left out, their launch compiles
SMALL_UB_ACCEPTED = {("elu_backward", "a2"), ("softplus", "950")}
# the A2 Relu host never refuses: a tileLength under one 32-byte block becomes one block (relu_tiling.cpp)
SMALL_UB_ACCEPTED |= {("relu", "a2")}


def _refused_alike(name, dtype, platform, **kwargs):
    x = np.linspace(-2, 2, 20).reshape(4, 5).astype(dtype)
    args = (x, x) if name.endswith("backward") else (x,)
    with pytest.raises((TypeError, ValueError)) as in_memory:
        getattr(sg, name)(*args, platform=platform, **kwargs)
    with pytest.raises(in_memory.type, match="^" + re.escape(str(in_memory.value)) + "$"):
        getattr(sgd, name)(*(da.from_array(a, chunks=2) for a in args), platform=platform, **kwargs)


# the row-wise rms_norm takes (x, gamma): its refusals are checked alike in tests/test_dask_rms_norm.py
ROW_WISE = {"rms_norm"}


@pytest.mark.parametrize("name, arch", [(name, arch) for name in sgd.__all__ for arch in SMALL_UB
                                        if (name, arch) not in SMALL_UB_ACCEPTED and name not in ROW_WISE])
def test_a_host_tiling_refusal_comes_when_the_graph_is_built(name, arch):
    _refused_alike(name, np.float32, SMALL_UB[arch])


@pytest.mark.parametrize("name", ["swish", "silu", "gelu_backward"])
def test_the_a2_hosts_bfloat16_gate_comes_when_the_graph_is_built(name):
    # the A2 Swish and GeluGrad hosts take bfloat16 on ascend910b and ascend310b only
    _refused_alike(name, BF16, sg.Platform(soc_version="ascend910_93"))


def test_an_attribute_the_host_refuses_comes_when_the_graph_is_built():
    # the EluGradV2 host refuses a negative alpha with is_result
    _refused_alike("elu_backward", np.float32, sg.ASCEND950_PLATFORM, alpha=-1.0, is_result=True)

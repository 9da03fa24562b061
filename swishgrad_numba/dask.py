"""Dask integration: SwishGrad over chunked arrays, on one machine or a cluster.

:func:`swish_backward` maps the NumPy :func:`swishgrad_numba.swish_backward`
over the blocks of Dask arrays. SwishGrad is elementwise and its result is a
pure function of each element's bits and beta, so the chunked result is bit
for bit the in-memory one whatever the chunking, the scheduler or the number
of workers.

Dask is an optional dependency (``pip install "swishgrad_numba[dask]"``).
This module imports without it; calling :func:`swish_backward` then raises an
:class:`ImportError` that says how to install it.
"""
from __future__ import annotations

import numpy as np

from .faces import swish_grad as api
from .dtypes import canonical_dtype, to_float32
from .tiling.host import check_platform
# The helpers every Dask face shares (faces/dask_support.py), under the names this module has always used.
from .faces.dask_support import NO_DASK as _NO_DASK
from .faces.dask_support import as_dask as _as_dask
from .faces.dask_support import da, map_broadcast
from .faces.dask_support import probe as _probe
from .faces.dask_support import known_shape as _known_shape
from .faces.dask_support import map_pair as _map_pair
from .faces.dask_support import map_unary as _map_unary
from .faces.dask_support import require_dask as _require_dask

__all__ = ["swish_backward"]

def _block(grad_block, x_block, beta, platform):
    """One block: the in-memory emulator on a pair of aligned NumPy blocks."""
    return api.swish_backward(np.asarray(grad_block), np.asarray(x_block), beta, platform=platform)


def swish_backward(grad_output, x, beta=1.0, *, platform=None):
    """Gradient of Swish over Dask arrays, block by block through the emulated NPU kernel.

    Parameters
    ----------
    grad_output, x : dask.array.Array or numpy.ndarray
        Same shape and dtype (float32, float16 or ``ml_dtypes.bfloat16``),
        any chunking: when the two chunkings differ both are rechunked to
        their common refinement. A NumPy input takes the other input's
        chunks (Dask's automatic chunks when both are NumPy).
    beta : float
        The Swish beta; rounded to float32 once.
    platform : Platform, optional
        The device whose kernel runs on every block (an Ascend 950 SoC: the
        arch35 kernel); the A2 reference platform by default.

    Returns
    -------
    dask.array.Array
        A lazy array of ``x``'s shape and dtype; computing it gives bit for
        bit what :func:`swishgrad_numba.swish_backward` returns for the
        whole arrays in memory.

    Raises
    ------
    ImportError
        If Dask is not installed.
    TypeError, ValueError
        For inputs that are not arrays, unsupported or unequal dtypes,
        unequal or unknown shapes, a ``beta`` that is not a real number, or a
        ``platform`` that is not a Platform.

    Notes
    -----
    Every worker that runs a block needs ``swishgrad_numba`` installed. Each
    block is one kernel launch on the worker, using Numba's threads; see
    ``docs/integrations.md`` for sizing workers on a cluster.
    """
    if da is None:
        raise ImportError(_NO_DASK)
    beta32 = to_float32(beta, argname="beta")
    platform = check_platform(platform)
    other_chunks = {"grad_output": x, "x": grad_output}
    arrays = []
    for name, value in (("grad_output", grad_output), ("x", x)):
        other = other_chunks[name]
        chunks = other.chunks if isinstance(other, da.Array) and isinstance(value, np.ndarray) \
            and other.shape == value.shape else "auto"
        arrays.append(_as_dask(value, name, chunks))
    g, xs = arrays
    canonical_dtype(g.dtype, argname="grad_output.dtype")
    dtype = canonical_dtype(xs.dtype, argname="x.dtype")
    if g.dtype != xs.dtype:
        raise TypeError(f"grad_output and x must have the same dtype, got {g.dtype} and {xs.dtype}")
    for name, arr in (("grad_output", g), ("x", xs)):
        if any(np.isnan(size) for size in arr.shape):
            raise ValueError(f"{name} has unknown chunk sizes {arr.shape}; call {name}.compute_chunk_sizes() first")
    if g.shape != xs.shape:
        raise ValueError(f"grad_output and x must have the same shape, got {g.shape} and {xs.shape}")
    # The platform's rules for these dtypes (bfloat16 on its SoC, ...) and the host tiling's, checked as the
    # in-memory API checks them, before the graph is built (see _probe).
    api.swish_backward(_probe(g), _probe(xs), beta32, platform=platform)
    if g.chunks != xs.chunks:
        # The common refinement of both chunkings: every block pair aligned.
        index = tuple(range(xs.ndim))
        _, (g, xs) = da.core.unify_chunks(g, index, xs, index)
    return da.map_blocks(
        _block, g, xs, beta=beta32, platform=platform,
        dtype=dtype, meta=np.empty((0,) * xs.ndim, dtype=dtype), token="swish_backward",
    )


# ---------------------------------------------------------------- the Swish family
#
# One function per operator of the family, block by block, each bit for bit
# its in-memory NumPy counterpart (all are elementwise). The checks are the
# in-memory functions' own: each call first runs its operator on one-element
# arrays of the inputs' dtypes (_probe), which checks the dtypes, the
# platform (its overflow mode, block size and bfloat16 gate), the attributes
# and the host tiling (a SoC it refuses a dtype on, a UB too small) exactly as
# the NumPy API does, and gives the result's dtype: so the graph is never
# built where computing it would be refused (issue 38.3). The probe launches
# the kernel once on one element, so it is compiled (or loaded from the disk
# cache) when the graph is built rather than when it is computed. A masked
# input is refused as the NumPy API refuses one.

__all__ += ["silu", "silu_backward", "swish"]   # generated, at the end (issue 40)



# ---------------------------------------------------------------- described operators (issue 40)

__all__ += ["leaky_relu", "leaky_relu_backward", "elu", "elu_backward", "softplus", "softplus_backward"]  # described(name), the generator, is public but no operator


def described(name: str):
    """Described operator ``name``'s Dask function, generated: its functional face block by block, checked
    first on empty inputs of their ranks and dtypes; inputs that broadcast are broadcast first. Bit for bit
    the in-memory result (an element reads its own inputs only, whatever the chunking or broadcast)."""
    from .faces.functional import face, signature
    from .ops.registry import get_operator

    desc, numpy_fn = get_operator(name).described_by, face(name)
    if desc.rows is not None:   # the "rows" kind: the axis whole in every block (issue 40)
        from .faces.rows import dask_face

        return dask_face(desc, numpy_fn)
    sig = signature(desc).replace(parameters=[p for p in signature(desc).parameters.values() if p.name != "out"])
    names = [i.name for i in desc.inputs]

    def fn(*args, **kwargs):
        bound = sig.bind(*args, **kwargs)
        bound.apply_defaults()
        kw = {k: v for k, v in bound.arguments.items() if k not in names}
        if len(names) == 1:
            return _map_unary(numpy_fn, bound.arguments[names[0]], desc.functional, **kw)
        # one shape where the platform's op_api takes no broadcast (desc.one_shape_on: SiluGrad's A2)
        on = kw.get("platform") or get_operator(name).default_platform
        return map_broadcast(numpy_fn, {n: bound.arguments[n] for n in names}, desc.functional,
                             broadcast=desc.broadcast and not desc.one_shape(on), **kw)

    fn.__name__ = fn.__qualname__ = desc.functional
    fn.__signature__ = sig
    fn.__doc__ = f"{desc.summary}, block by block over Dask arrays: :func:`swishgrad_numba.{desc.functional}`."
    return fn


leaky_relu = described("leaky_relu")
leaky_relu_backward = described("leaky_relu_grad")
elu = described("elu")
elu_backward = described("elu_grad")
softplus = described("softplus")
softplus_backward = described("softplus_grad")
sigmoid = described("sigmoid")   # issue 29, generated from its description (issue 40)
sigmoid_backward = described("sigmoid_grad")
__all__ += ["sigmoid", "sigmoid_backward"]

rms_norm = described("rms_norm")   # issue 42: RmsNorm by row blocks (issue 40: generated, the rows kind)
__all__ += ["rms_norm"]
# Mish, Hardswish (issue 41), SwiGlu (issue 40: its blocks keep dim whole): generated from their descriptions.
mish = described("mish")
mish_backward = described("mish_grad")
hardswish = described("hardswish")
hardswish_backward = described("hardswish_grad")
swiglu = described("swiglu")   # issue 40: the rows kind, generated (ops/swi_glu/description.py)
swiglu_backward = described("swiglu_grad")
__all__ += ["mish", "mish_backward", "hardswish", "hardswish_backward", "swiglu", "swiglu_backward"]

# Relu and ThresholdBackward (issue 41): generated from their descriptions.
relu = described("relu")
threshold_backward = described("threshold_backward")
__all__ += ["relu", "threshold_backward"]
swish = described("swish")  # noqa: E305  (issue 40: generated from its description, ops/swish/)
silu = described("silu")
silu_backward = described("silu_grad")

# FastGelu and FastGeluGrad (Ascend 950 kernels only): generated from their descriptions.
fast_gelu = described("fast_gelu")
fast_gelu_backward = described("fast_gelu_grad")
__all__ += ["fast_gelu", "fast_gelu_backward"]
# Gelu and GeluGrad: generated from their descriptions.
gelu = described("gelu")
gelu_backward = described("gelu_grad")
__all__ += ["gelu", "gelu_backward"]
# GeluV2 (Ascend 950 only) and GeluGradV2: generated from their descriptions (approximate "none" or "tanh").
gelu_v2 = described("gelu_v2")
gelu_backward_v2 = described("gelu_grad_v2")
__all__ += ["gelu_v2", "gelu_backward_v2"]

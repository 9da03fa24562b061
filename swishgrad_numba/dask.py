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

from .faces.dask_support import map_broadcast, map_unary as _map_unary

__all__ = ["swish_backward"]

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
    from .faces.functional import face
    from .faces.signature import signature
    from .ops.registry import get_operator

    desc = get_operator(name).described_by
    numpy_fn = face(name)
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
swish_backward = described("swish_grad")   # issue 40: SwishGrad's Dask face, generated from its description

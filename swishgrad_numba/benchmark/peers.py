"""What the emulator is timed against.

- the operator's float32 NumPy golden (:func:`swishgrad_numba.golden.numpy_golden`);
- PyTorch's ``silu_backward``, allocating and writing into a given output
  (:func:`torch_ops`, on tensors that share the arrays' memory: :func:`torch_tensor`);
- the emulator's own arithmetic over flat chunks (:func:`flat_loop`: SwishGrad's program on the
  engine, one walk of passes of a chunk cut into a bin per thread, without the kernel's tiling): what the
  tile structure costs;
- a STREAM triad (:func:`triad`): the memory-bandwidth roofline.
"""
from __future__ import annotations

import functools
import os

import numpy as np
from numba import njit, prange

from .. import kernel, runtime
from ..kernel import plan as kernel_plan
from ..dtypes import FLOAT32, dtype_info, to_float32
from ..golden import numpy_golden
from ..platform import REFERENCE_PLATFORM

__all__ = ["FLAT_CHUNK", "TORCH_OMP_WAIT_POLICY", "flat_loop", "numpy_golden", "torch_available", "torch_omp_wait_policy",
           "torch_ops", "torch_tensor", "triad"]

#: Elements per pass of the flat loop (about one float32 tile).
FLAT_CHUNK = 8192


def _check_vectors(arrays: dict, numpy_dtype, what: str) -> None:
    """Raise unless every array is 1-D, C-contiguous, of ``numpy_dtype`` and of one size."""
    size = None
    for name, arr in arrays.items():
        if not isinstance(arr, np.ndarray) or arr.ndim != 1 or not arr.flags.c_contiguous or arr.dtype != numpy_dtype:
            raise ValueError(f"{name} must be a 1-D C-contiguous {what} array")
        if size is not None and arr.size != size:
            raise ValueError(f"{', '.join(list(arrays)[:-1])} and {list(arrays)[-1]} must have the same size")
        size = arr.size


# --------------------------------------------------------------------------
# the emulator's arithmetic without tiles
# --------------------------------------------------------------------------

def flat_loop(grad, x, out, beta, chunk: int = FLAT_CHUNK, platform=None):
    """The emulator's arithmetic over flat chunks, into ``out``: SwishGrad's program on the engine, one
    walk of passes of ``chunk`` elements cut into a bin per thread (one bin under
    :data:`swishgrad_numba.kernel.SERIAL_BELOW` elements).

    ``grad``, ``x``, ``out``: 1-D C-contiguous arrays of one supported dtype
    and one size; the inputs are not modified. Gives the same bits as
    :func:`~swishgrad_numba.swish_backward` on ``platform``'s kernel (the
    arithmetic is element-wise); only the tile structure (the host tiling, its
    record and the cores' ranges) is missing.
    """
    info = dtype_info(out.dtype, argname="out.dtype")
    _check_vectors({"grad": grad, "x": x, "out": out}, info.numpy, info.name)
    if not isinstance(chunk, int) or chunk < 1:
        raise ValueError(f"chunk must be a positive int, got {chunk!r}")
    beta32 = to_float32(beta, argname="beta")
    from ..program import compiled   # the compiled programs import the operators

    c = compiled("swish_grad", (platform or REFERENCE_PLATFORM).architecture, info.name)
    if out.size:
        threads = 1 if out.size < kernel.SERIAL_BELOW else runtime.num_threads()
        raw = (lambda a: a) if info is FLOAT32 else (lambda a: a.view(np.uint16))
        kernel.run_walk(c.params(beta=beta32), (raw(grad), raw(x)), raw(out), _flat_plan(out.size, chunk, threads))
    return out


@functools.lru_cache(maxsize=64)
def _flat_plan(n: int, chunk: int, threads: int):
    """One core's walk of ``n`` elements in passes of ``chunk``, cut into ``threads`` bins; made once per
    arguments, so that a warm call does not spend its time planning (as
    :func:`swishgrad_numba.kernel.plan_launch`'s kept plans)."""
    passes = -(-n // chunk)
    made = kernel_plan.plan([kernel_plan.CoreRun(0, 1, 0, passes, chunk, n - (passes - 1) * chunk, n)], n, threads)
    made.pieces.flags.writeable = made.bins.flags.writeable = False
    return made


# --------------------------------------------------------------------------
# the roofline
# --------------------------------------------------------------------------

@njit(parallel=True, cache=True, error_model="numpy")
def _triad_kernel(a, b, c, s):
    for i in prange(a.shape[0]):
        a[i] = b[i] + s * c[i]


@njit(cache=True, error_model="numpy")
def _triad_kernel_serial(a, b, c, s):
    for i in range(a.shape[0]):
        a[i] = b[i] + s * c[i]


def triad(a, b, c, s=3.0, parallel: bool = True):
    """STREAM triad ``a[:] = b + s * c`` on 1-D C-contiguous float32 arrays (Numba, ``prange`` if ``parallel``)."""
    _check_vectors({"a": a, "b": b, "c": c}, np.dtype(np.float32), "float32")
    (_triad_kernel if parallel else _triad_kernel_serial)(a, b, c, np.float32(s))
    return a


# --------------------------------------------------------------------------
# PyTorch
# --------------------------------------------------------------------------

#: GNU OpenMP's wait policy the benchmark asks PyTorch's worker threads for.
#: With the default (spinning for a while after each parallel region) torch's
#: idle workers take the cores from whatever is timed next: in one process,
#: the emulator read 830 Me/s right after torch and 1,631 Me/s alone at 2^20
#: float32 (issue 22). Passive workers sleep at once.
TORCH_OMP_WAIT_POLICY = "PASSIVE"


def torch_available() -> bool:
    """Whether PyTorch can be imported; imports it with passive OpenMP workers
    (:data:`TORCH_OMP_WAIT_POLICY`) where it is not loaded yet and the user
    set no ``OMP_WAIT_POLICY`` (OpenMP reads it once, when torch loads)."""
    import sys

    if "torch" not in sys.modules and "OMP_WAIT_POLICY" not in os.environ:
        os.environ["OMP_WAIT_POLICY"] = TORCH_OMP_WAIT_POLICY
        _policy_at_load["torch"] = TORCH_OMP_WAIT_POLICY
    elif "torch" not in sys.modules:
        _policy_at_load["torch"] = os.environ["OMP_WAIT_POLICY"].upper()
    try:
        import torch  # noqa: F401
    except ImportError:
        return False
    return True


_policy_at_load: dict = {}


def torch_omp_wait_policy() -> str:
    """The OpenMP wait policy torch's workers run with, as far as this
    process knows: ``"PASSIVE"``/``"ACTIVE"``, or ``"unknown"`` when torch
    was imported before the benchmark (by then the policy is fixed)."""
    return _policy_at_load.get("torch", "unknown")


def torch_tensor(arr: np.ndarray):
    """A CPU tensor sharing ``arr``'s memory, of the torch dtype the dtype table names.

    The elements move as bit patterns (NumPy has no bfloat16 torch knows),
    so the tensor holds exactly ``arr``'s values.
    """
    import torch

    info = dtype_info(arr.dtype, argname="arr.dtype")
    return torch.from_numpy(arr.view(info.bits_dtype)).view(getattr(torch, info.torch_name))


def torch_ops():
    """PyTorch's ``(silu_backward, silu_backward.grad_input)``: allocating, and writing into ``grad_input=``.

    Bound once, so that timing a small call does not time the look-up.
    """
    import torch

    return torch.ops.aten.silu_backward, torch.ops.aten.silu_backward.grad_input

""":func:`run_tiling`: SwishGrad's kernel for a given tiling (the benchmark's path). ``swish_backward``, once
here, is generated from SwishGrad's description (issue 40: ``swishgrad_numba.swish_backward``).

Plain Python that checks the arguments and decides how to launch; the
kernels (:mod:`swishgrad_numba.kernel`) only compute.
"""
from __future__ import annotations

import dataclasses

import numpy as np

from .. import kernel
from ..dtypes import dtype_info
from ..platform import ARCH_950, OVERFLOW_MODES, Platform
from ..tiling import as_tiling_record, tiling_fields
from ..tiling.launch import negative_fields
from ..tiling.operators import is_op_tiling, run_op_tiling
from ..tiling.records import layout_of
from ..ops import swish_grad as swish_grad_op

__all__ = ["run_tiling", "MAX_WORK_FACTOR"]

#: :func:`run_tiling` refuses a tiling whose walk would transfer more than
#: this many times the tensor's elements (plus a little slack): a sound
#: tiling transfers each element once (plus an A2 block of padding per core).
MAX_WORK_FACTOR = 4
_WORK_SLACK = 1 << 16

def run_tiling(grad, x: np.ndarray, out: np.ndarray, tiling, block_dim=None, *,
               overflow_mode: str = "infnan", platform: Platform | None = None) -> np.ndarray:
    """Run the emulated kernel over flat contiguous arrays with a given tiling.

    Parameters
    ----------
    grad, x, out : numpy.ndarray
        1-D, C-contiguous, of one supported dtype and one size. ``grad`` is
        None for a forward operator's record (``"swish"``, ``"silu"``).
    tiling : Tiling, OpTiling, record, struct bytes or Mapping
        Any form :func:`~swishgrad_numba.tiling.as_tiling_record` accepts; its
        layout (A2 or 950) picks the kernel. It should describe ``out.size``
        elements (as :func:`compute_tiling` makes it); a broken one runs as
        the device would, except that nothing outside the arrays is touched.
        Another registered operator's :class:`~swishgrad_numba.ops.OpTiling`
        (``compute_tiling(op=...)``) runs through that operator's own
        launch, after :func:`~swishgrad_numba.tiling.validate_tiling` found
        no error in it (on ``platform``).
    block_dim : int, optional
        Cores launched; required for a bare record, overrides a Tiling's.
    overflow_mode : str
        The device's float overflow mode, ``"infnan"`` (default) or ``"saturation"``
        (see :class:`~swishgrad_numba.platform.Platform`; an A2 record only).
    platform : Platform, optional
        An OpTiling's platform for its check (by default the reference
        platform of its kernel); not used for SwishGrad's records.

    Returns
    -------
    numpy.ndarray
        ``out``.

    Raises
    ------
    ValueError
        For arrays that do not fit, a 950 tiling with a negative length or
        count that a launched block reads (the message names the field), or
        a tiling whose walk would transfer more than :data:`MAX_WORK_FACTOR`
        times the tensor's elements.
    """
    if overflow_mode not in OVERFLOW_MODES:
        raise ValueError(f"overflow_mode must be one of {', '.join(map(repr, OVERFLOW_MODES))}, got {overflow_mode!r}")
    if is_op_tiling(tiling):
        if block_dim is not None:
            tiling = dataclasses.replace(tiling, block_dim=int(block_dim))
        return run_op_tiling(grad, x, out, tiling, platform, saturation=overflow_mode == "saturation")
    info = dtype_info(out.dtype, argname="out.dtype")
    for name, arr in (("grad", grad), ("x", x), ("out", out)):
        if not isinstance(arr, np.ndarray) or arr.ndim != 1 or not arr.flags.c_contiguous or arr.dtype != info.numpy:
            raise ValueError(f"{name} must be a 1-D C-contiguous {info.name} array")
    if grad.size != out.size or x.size != out.size:
        raise ValueError("grad, x and out must have the same size")
    if not out.flags.writeable:
        raise ValueError("out must be writeable")
    record, block_dim, _key = as_tiling_record(tiling, block_dim)
    if block_dim < 1:
        raise ValueError(f"tiling.block_dim must be >= 1, got {block_dim}")
    layout = layout_of(record)
    fields = tiling_fields(record)
    arch = kernel.arch_code(layout.architecture)
    if overflow_mode == "saturation" and layout.architecture == ARCH_950:
        raise ValueError("overflow_mode 'saturation' is not supported by the Ascend 950 kernel (Inf/NaN mode only)")
    classes = kernel.plan.classes_of(fields, block_dim, arch)
    negative = negative_fields(layout.architecture, fields, classes)[0]
    if negative:
        raise ValueError("tiling: " + ", ".join(f"{name} must be >= 0, got {getattr(fields, name)}"
                                                 for name in negative)
                         + " (a launched block reads it as a length or count)")
    numel = out.size
    if numel == 0:
        return out
    # Every core of a broken record may walk the whole tensor: bound the work.
    work = kernel.plan.work_bound(fields, block_dim, arch, numel)
    limit = MAX_WORK_FACTOR * numel + _WORK_SLACK
    if work > limit:
        raise ValueError(f"tiling: its walk would transfer up to {work} elements of a {numel}-element tensor "
                         f"(at most {MAX_WORK_FACTOR} x numel + {_WORK_SLACK} are run); validate the tiling first")
    launch_plan = kernel.plan_launch(fields, block_dim, arch, numel)
    swish_grad_op.launch(grad, x, out, launch_plan, np.float32(record[layout.beta_field]), info, arch,
                  saturation=overflow_mode == "saturation")
    return out

"""Any registered operator's record: validated, and run with its own launch.

:func:`validate_op_tiling` checks an :class:`~swishgrad_numba.ops.OpTiling`
(``compute_tiling(op=...)``'s result) generically: the operator's kernel
says, through its ``walk_check`` (:class:`~swishgrad_numba.ops.WalkCheck`),
what its record means to the walk (its UB plan, its own field and key
findings, and the walk as the template's core classes where it is one);
everything else is SwishGrad's machinery, written once: the kernel's rules
(:mod:`.rules`), the coverage analysis (:mod:`.coverage`), the balance
figures and, on request, the instrumented walk (:mod:`.checked`).
:func:`run_op_tiling` refuses a record with any error finding and runs the
others through the operator's own launch.
"""
from __future__ import annotations

import numpy as np

from ..dtypes import dtype_info
from ..platform import ARCH_950, ASCEND950_PLATFORM, REFERENCE_PLATFORM, Platform
from .balance import balance_of
from .coverage import analyse_coverage
from .findings import ValidationReport, finding
from .host import check_numel
from .launch import KERNEL_NAMES, Launch, negative_walk_fields, padded_slots, walk_classes
from .records import layouts
from .rules import structure

__all__ = ["validate_op_tiling", "run_op_tiling", "is_op_tiling"]


def is_op_tiling(tiling) -> bool:
    """Whether ``tiling`` is a registered operator's :class:`~swishgrad_numba.ops.OpTiling`."""
    from ..ops import OpTiling   # the registry's modules import this package: import on use

    return isinstance(tiling, OpTiling)


def _platform(platform, architecture: str, op: str) -> Platform:
    if platform is None:
        return ASCEND950_PLATFORM if architecture == ARCH_950 else REFERENCE_PLATFORM
    if not isinstance(platform, Platform):
        raise TypeError(f"platform must be a Platform, got {type(platform).__name__}")
    if platform.architecture != architecture:
        raise ValueError(f"platform (soc_version {platform.soc_version!r}) runs the "
                         f"{KERNEL_NAMES[platform.architecture]}, but the {op} tiling is for the "
                         f"{KERNEL_NAMES[architecture]}; give a platform of the record's kernel, or None")
    return platform


def validate_op_tiling(tiling, numel, dtype, platform: Platform | None = None, block_dim=None, *,
                       checked: bool = False) -> ValidationReport:
    """:func:`~swishgrad_numba.tiling.validate_tiling` of an operator's
    :class:`~swishgrad_numba.ops.OpTiling` (arguments as there, but no
    ``buffers``: the operator's own UB plan is used)."""
    from ..ops.registry import get_operator

    op = get_operator(tiling.op)
    kern = op.kernels.get(tiling.architecture)
    if kern is None or kern.walk_check is None:
        why = op.no_kernel.get(tiling.architecture)
        raise ValueError(f"tiling: operator {op.name!r} has no validator for the {tiling.architecture} kernel"
                         + (f" ({why})" if why else ""))
    numel = check_numel(numel)
    info = dtype_info(dtype, argname="dtype")
    platform = _platform(platform, tiling.architecture, op.name)
    if block_dim is None:
        block_dim = tiling.block_dim
    if isinstance(block_dim, bool) or not isinstance(block_dim, (int, np.integer)):
        raise TypeError(f"block_dim must be an integer, got {type(block_dim).__name__}")
    if block_dim != tiling.block_dim:
        tiling = type(tiling)(tiling.op, tiling.architecture, tiling.data, int(block_dim), tiling.tiling_key,
                              tiling.workspace_size)
    check = kern.walk_check(tiling, numel, info, platform)
    findings = list(check.findings)
    balance = None
    if check.fields is None:
        # no core-class walk: the operator's findings say it all; the UB and the launch here
        cores = platform.core_num
        if not 1 <= tiling.block_dim <= cores:
            findings.insert(0, finding("BLOCK_DIM_RANGE", f"block dim {tiling.block_dim} is outside [1, {cores}] "
                                                          f"(the platform's core count)."))
        ub_use = sum(count * check.pass_len * nbytes for count, nbytes in check.buffers)
        if ub_use > platform.ub_size:
            findings.append(finding("UB_OVERFLOW", f"the kernel's buffers of {check.pass_len} elements take "
                                                   f"{ub_use} bytes, more than the {platform.ub_size}-byte "
                                                   f"unified buffer."))
    else:
        layout = layouts()[tiling.architecture]   # the templates' fields, as SwishGrad's records lay them out
        launch = Launch(layout, check.fields, 0.0, tiling.block_dim, tiling.tiling_key, info, platform)
        classes = walk_classes(launch)
        found, ub_use = structure(launch, classes, numel, check.buffers, check.whole_blocks)
        findings = found + findings
        if not negative_walk_fields(launch):
            padded = padded_slots(platform, info.itemsize, numel)
            cov = analyse_coverage(classes, numel, padded, info.itemsize, tiling.architecture == ARCH_950, findings)
            balance = balance_of(launch, classes, numel, cov, ub_use)
            if checked:
                from .validate import cross_check

                cross_check(launch, numel, findings)
    return ValidationReport(numel=numel, dtype=info.numpy, platform=platform, block_dim=tiling.block_dim,
                            fields=tiling.fields, findings=tuple(findings), balance=balance,
                            buffers=tuple(check.buffers) if tiling.architecture != ARCH_950 else ())


def run_op_tiling(grad, x: np.ndarray, out: np.ndarray, tiling, platform: Platform | None = None,
                  saturation: bool = False) -> np.ndarray:
    """:func:`~swishgrad_numba.run_tiling` of an operator's record: validated
    first (on ``platform``, by default the reference platform of the
    record's kernel), refused with a ValueError listing its errors, else run
    by the operator's own launch, in the saturation overflow mode where
    ``saturation`` (refused where the operator or the 950 has no such mode), its Axpys rounding as
    ``platform.axpy_rounding`` says."""
    from ..ops.registry import get_operator

    op = get_operator(tiling.op)
    kern = op.kernels.get(tiling.architecture)
    if kern is None or kern.run is None:
        why = op.no_kernel.get(tiling.architecture)
        raise ValueError(f"tiling: operator {op.name!r} has no launch for the {tiling.architecture} kernel"
                         + (f" ({why})" if why else ""))
    if saturation and not op.saturation:
        raise ValueError(f"overflow_mode 'saturation' is not emulated for {op.name} (only infnan is)")
    if saturation and tiling.architecture == ARCH_950:
        raise ValueError("overflow_mode 'saturation' is not supported by the Ascend 950 kernel (Inf/NaN mode only)")
    info = dtype_info(out.dtype, argname="out.dtype")
    arrays = (("x", x), ("out", out)) if grad is None else (("grad", grad), ("x", x), ("out", out))
    for name, arr in arrays:
        if not isinstance(arr, np.ndarray) or arr.ndim != 1 or not arr.flags.c_contiguous or arr.dtype != info.numpy:
            raise ValueError(f"{name} must be a 1-D C-contiguous {info.name} array")
        if arr.size != out.size:
            raise ValueError(f"{name} must have out's size ({out.size}), got {arr.size}")
    if not out.flags.writeable:
        raise ValueError("out must be writeable")
    if out.size == 0:
        return out
    report = validate_op_tiling(tiling, out.size, info.numpy, platform)
    if not report.ok:
        raise ValueError(f"tiling: the {op.name} record is not run, it has errors: "
                         + "; ".join(str(f) for f in report.errors))
    # the operator's input count says whether there is a grad: every kernel's run gets it checked
    if op.inputs == 1 and grad is not None:
        raise ValueError(f"grad must be None for the forward operator {op.name!r} (it reads x only)")
    if op.inputs > 1 and grad is None:
        raise ValueError(f"grad must be an array for {op.name} (its gradOutput)")
    # an operator without the mode keeps the four-argument run (refused above when asked for it)
    extra = {"saturation": True} if saturation else {}
    if op.axpy:
        extra["axpy_rounding"] = _platform(platform, tiling.architecture, op.name).axpy_rounding
    kern.run(grad, x, out, tiling, **extra)
    return out

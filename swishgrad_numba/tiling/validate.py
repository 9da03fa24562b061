"""Is a tiling (SwishGrad's, or another registered operator's) correct for a tensor and a platform, and where not?

:func:`validate_tiling` checks a tiling record of either kernel
analytically, from the per-core ranges, never element by element: the
rules of the record's kernel (:mod:`.rules`), then the coverage of the
tensor by the launched cores (:mod:`.coverage`). :mod:`.checked` walks the
same tiling element by element and must agree (``checked=True`` runs
both). :func:`tiling_balance` gives the load-balance figures.

Semantics chosen where the device is not public (documented in
docs/validation.md): offsets are exact integers (a start past ``2**64``
would wrap on the device; here it is simply past the end, an error); on the
A2, element slots ``[numel, padded)`` of the block-rounded allocation are
the padding, an element straddling its end counts as beyond; the coverage
of padding slots is not checked (only the overrun is reported). The 950
has no padding.
"""
from __future__ import annotations

from ..dtypes import dtype_info
from ..platform import ARCH_950, Platform
from ..spec import a2 as spec_a2
from ..spec import arch35 as spec_arch35
from .balance import TilingBalance, balance_of
from .buffers import check_plan
from .checked import run_launch
from .coverage import analyse_coverage
from .findings import ValidationReport, finding
from .host import check_numel
from .operators import is_op_tiling, validate_op_tiling
from .launch import KERNEL_NAMES, launch_of, negative_walk_fields, padded_numel, padded_slots, walk_classes
from .rules import remarks, structure

__all__ = ["validate_tiling", "tiling_balance", "check_validate_numel"]

# Largest padded tensor (elements) the validator accepts.
_MAX_PADDED = 1 << 56

# The codes the checked run can confirm or contradict.
_WALK_CODES = frozenset({"COVERAGE_GAP", "COVERAGE_OVERLAP", "OVERRUN_PADDING", "OVERRUN_BEYOND_PADDING"})


def _plan(launch, buffers) -> tuple:
    """The A2 buffer plan the check uses; () for a 950 tiling."""
    if launch.architecture == ARCH_950:
        if buffers is not None:
            raise ValueError(f"buffers applies to Atlas A2 tilings (a plan of tile buffers); the "
                             f"{KERNEL_NAMES[ARCH_950]}'s buffer is {spec_arch35.BUFFER_NUM} slots of ubFormer "
                             f"elements")
        return ()
    return spec_a2.buffer_plan(launch.info.itemsize) if buffers is None else check_plan(buffers)


def cross_check(launch, numel: int, findings: list) -> None:
    """Run the instrumented walk and add a CHECKED_RUN_DISAGREES error if it contradicts the analysis."""
    run = run_launch(launch, numel)
    analytic = {f.code for f in findings} & _WALK_CODES
    seen = run.coverage_codes()
    if run.truncated:
        # a walk stopped early proves an overlap; what it saw must be a subset
        agree = "COVERAGE_OVERLAP" in analytic and seen <= analytic
    else:
        agree = analytic == seen
    if not agree:
        findings.append(finding("CHECKED_RUN_DISAGREES", f"the instrumented run found {sorted(seen)} where the "
                                                         f"analysis found {sorted(analytic)}."))


def check_validate_numel(numel: int, dtype, platform: Platform, argname: str = "numel") -> None:
    """The ValueError :func:`validate_tiling` raises for a tensor too large to
    analyse, naming ``numel`` by ``argname`` (the command line's option)."""
    info = dtype_info(dtype, argname="dtype")
    if padded_slots(platform, info.itemsize, numel) > _MAX_PADDED:
        raise ValueError(f"{argname} ({numel}) is too large to validate (at most {_MAX_PADDED // info.itemsize} "
                         f"elements)")


def validate_tiling(tiling, numel, dtype, platform: Platform | None = None, block_dim=None, *,
                    checked: bool = False, buffers=None) -> ValidationReport:
    """Say whether a SwishGrad tiling is correct for a tensor and a platform.

    Parameters
    ----------
    tiling : Tiling, OpTiling, record, bytes or Mapping
        A :func:`compute_tiling` result (carries its block dim and tiling
        key; for another registered operator, ``compute_tiling(op=...)``'s
        :class:`~swishgrad_numba.ops.OpTiling`, checked against that
        operator's kernel: docs/validation.md), a record of either kernel (:data:`TILING_DTYPE`, Atlas A2;
        :data:`ARCH35_TILING_DTYPE`, Ascend 950), the struct's bytes (72 or
        88), or a mapping of one layout's field names to numbers.
    numel : int
        Storage element count of the tensor (> 0).
    dtype : dtype-like
        float32, float16 or bfloat16.
    platform : Platform, optional
        The hardware. By default the reference platform of the record's
        kernel (A2: ``REFERENCE_PLATFORM``; 950: ``ASCEND950_PLATFORM``); a
        platform whose SoC runs the other kernel is a ValueError.
    block_dim : int, optional
        Cores launched; required for a bare record or bytes, overrides the
        one a :class:`Tiling` carries.
    checked : bool
        Also run the instrumented walk (:func:`~swishgrad_numba.tiling.checked_run`)
        and add a ``CHECKED_RUN_DISAGREES`` error if it contradicts the
        analytic coverage. Needs ``numel`` within the checked run's limit;
        skipped for a 950 record whose walk cannot be analysed
        (``FIELD_NEGATIVE``).
    buffers : sequence of (int, int), optional
        A2 only: the kernel's unified-buffer plan, ``(count,
        bytes_per_element)`` pairs, each buffer holding ``tileDataNum``
        elements and rounded up to 32 bytes. SwishGrad's
        (:func:`spec.a2.buffer_plan`) by default; give another operator's
        plan to check its tilings.

    Returns
    -------
    ValidationReport
        ``.ok``, ``.findings`` (each with ``code``, ``severity``, ``core``,
        ``tile``, ``message``; codes in :data:`CODES`) and ``.balance``
        (None when a 950 record's walk cannot be analysed).
    """
    if is_op_tiling(tiling):
        if buffers is not None:
            raise ValueError(f"buffers applies to SwishGrad's A2 records; the {tiling.op} tiling is checked with "
                             f"its operator's own buffer plan")
        return validate_op_tiling(tiling, numel, dtype, platform, block_dim, checked=checked)
    launch = launch_of(tiling, dtype, platform, block_dim)
    numel = check_numel(numel)
    plan = _plan(launch, buffers)
    itemsize = launch.info.itemsize
    check_validate_numel(numel, launch.info.numpy, launch.platform)
    padded = padded_numel(launch, numel)
    classes = walk_classes(launch)
    findings, ub_use = structure(launch, classes, numel, plan)
    balance = None
    walkable = not negative_walk_fields(launch)
    if walkable:
        cov = analyse_coverage(classes, numel, padded, itemsize, launch.architecture == ARCH_950, findings)
        balance = balance_of(launch, classes, numel, cov, ub_use)
    findings += remarks(launch)
    if checked and walkable:
        cross_check(launch, numel, findings)
    return ValidationReport(numel=numel, dtype=launch.info.numpy, platform=launch.platform, block_dim=launch.block_dim,
                            fields=launch.fields_dict(), findings=tuple(findings), balance=balance, buffers=plan)


def tiling_balance(tiling, numel, dtype, platform: Platform | None = None, block_dim=None, *,
                   buffers=None) -> TilingBalance:
    """Load-balance figures of a tiling (see :class:`TilingBalance`).

    Arguments as for :func:`validate_tiling`.

    Raises
    ------
    ValueError
        Also for a 950 record whose walk cannot be analysed (a negative
        length or count).
    """
    report = validate_tiling(tiling, numel, dtype, platform, block_dim, buffers=buffers)
    if report.balance is None:
        bad = [f.message for f in report.findings if f.code in ("FIELD_NEGATIVE", "FIELD_RANGE")]
        if not bad:   # an operator's walk that is not in core-class form (docs/validation.md)
            bad = [f"the {tiling.op} kernel's walk is not analysed per core"] if is_op_tiling(tiling) else []
        raise ValueError("tiling: no load balance for a walk that cannot be analysed: " + " ".join(bad))
    return report.balance

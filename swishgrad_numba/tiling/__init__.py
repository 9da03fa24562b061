"""Tilings: the host computation, the struct records, their binaries, and their validation.

- :mod:`.records`: :class:`Tiling` and the record layouts (SwishGrad's structs are its operator
  module's, :mod:`swishgrad_numba.ops.swish_grad.host`);
- :mod:`.host`: :func:`compute_tiling`, the operators' common checks before their own host tilings;
- :mod:`.io`: struct binaries and the loose forms a tiling arrives in;
- :mod:`.validate`: is a tiling correct (:func:`validate_tiling`), and how
  well does it balance (:func:`tiling_balance`); built on :mod:`.launch`
  (the tiling normalised, its core classes), :mod:`.rules` (each kernel's
  field rules), :mod:`.coverage` (gaps, overlaps, overruns from the core
  ranges), :mod:`.balance` and :mod:`.findings` (the codes and the report);
- :mod:`.buffers`: A2 unified-buffer plans (SwishGrad's and other operators');
- :mod:`.checked`: the instrumented walk that counts every element write;
- :mod:`.verdict` and :mod:`.sweep`: both kernels' host tilings checked over
  millions of sizes and platforms.
"""
from .host import check_numel, compute_tiling
from .io import as_tiling_record, read_tiling_bin, record_from_fields, write_tiling_bin
from .records import Tiling, tiling_fields
from .balance import TilingBalance
from .buffers import buffer_plan_bytes, parse_buffer_plan, swishgrad_buffer_plan
from .checked import MAX_CHECKED_NUMEL, CheckedRun, checked_run
from .findings import CODES, Finding, ValidationReport
from .launch import FIELD_CAP
from .sweep import SweepResult, platform_sweep_grid, run_sweep, sweep_grid
from .validate import tiling_balance, validate_tiling
from .verdict import vectorized_verdict, vectorized_verdict_arch35

__all__ = [
    "Tiling", "as_tiling_record", "check_numel", "compute_tiling", "read_tiling_bin", "record_from_fields",
    "tiling_fields", "write_tiling_bin",
    "CODES", "FIELD_CAP", "MAX_CHECKED_NUMEL", "CheckedRun", "Finding", "SweepResult", "TilingBalance",
    "ValidationReport", "buffer_plan_bytes", "checked_run", "parse_buffer_plan", "run_sweep", "swishgrad_buffer_plan",
    "platform_sweep_grid", "sweep_grid", "tiling_balance", "validate_tiling", "vectorized_verdict", "vectorized_verdict_arch35",
]

"""``swishgrad tiling / validate / timeline --op swiglu`` (and ``swiglu_grad``), and SwiGlu's place in ``swishgrad
ops list / show`` (issue 41).

SwiGlu runs on the engine's row machine, not the registry's element-wise walk: x is ``--numel`` elements in rows
of ``--cols`` (even; each row split into halves a and b, ``dim`` -1). The tiling is the platform's host tiling
(:func:`swishgrad_numba.ops.swi_glu.swiglu_tiling`; ``swiglu_grad`` the A2 SwiGluGrad's, or on a 950 its regbase
``GluBaseTilingData``, :mod:`swishgrad_numba.ops.swi_glu.host_950`); ``validate`` checks it, with fields changed
by ``--set NAME=VALUE`` and ``--block-dim`` (:func:`swishgrad_numba.ops.swi_glu.validate.validate_tiling`,
``validate_tiling_950``; exit 0 valid, 1 invalid, 2 bad arguments);
``timeline`` estimates its launch (:func:`swishgrad_numba.devicetime.rows.estimate_swiglu`).
"""
from __future__ import annotations

import dataclasses
import json
import sys

from .tiling_args import UsageError, refuse_options, rows_platform

EXIT_OK, EXIT_INVALID, EXIT_USAGE = 0, 1, 2
#: The row operators here: name -> (aclnn, kernel op, grad).
ROW_OPERATORS = {"swiglu": ("aclnnSwiGlu", "SwiGlu", False), "swiglu_grad": ("aclnnSwiGluGrad", "SwiGluGrad", True)}

__all__ = ["ROW_OPERATORS", "list_rows", "show", "cmd_tiling", "cmd_validate", "estimate"]


_Usage = UsageError


def _grad_platforms() -> list:
    """The architectures whose SwiGluGrad runs (probed on one tiny call, so a kernel added later is listed)."""
    import numpy as np

    from ..ops.swi_glu import swiglu_backward
    from ..platform import ASCEND950_PLATFORM, REFERENCE_PLATFORM

    found = []
    for arch, p in (("a2", REFERENCE_PLATFORM), ("950", ASCEND950_PLATFORM)):
        try:
            swiglu_backward(np.ones(1, np.float32), np.ones(2, np.float32), platform=p)
        except NotImplementedError:
            continue
        found.append(arch)
    return found


def list_rows() -> list:
    """``ops list`` rows of the row operators: (name, aclnn, kernel op, kernels, dtypes)."""
    return [("swiglu", "aclnnSwiGlu", "SwiGlu", "a2 (rows), 950 (rows)", "float32, float16, bfloat16"),
            ("swiglu_grad", "aclnnSwiGluGrad", "SwiGluGrad", ", ".join(f"{a} (rows)" for a in _grad_platforms()),
             "float32, float16, bfloat16")]


def show(name: str, soc, dtype: str) -> int:
    """``ops show swiglu``: what it computes, then one tile's row stream, one instruction per line."""
    from ..engine import opcodes as O
    from ..ops.swi_glu.host import swiglu_tiling
    from ..ops.swi_glu.kernel import row_program
    from ..ops.swi_glu.host_950 import swiglu_grad_tiling_950
    from ..ops.swi_glu.kernel_grad import row_program_grad
    from ..ops.swi_glu.kernel_grad_950 import programs, row_program_950
    from ..platform import Platform
    from ._options import OptionError, check_soc

    grad = ROW_OPERATORS[name][2]
    try:
        platform = Platform() if soc is None else Platform(soc_version=check_soc(soc))
        grad_950 = grad and platform.architecture != "a2"
        if grad_950:
            t = swiglu_grad_tiling_950((1, 128), 1, dtype, platform.ub_size, platform.core_num)
        else:
            t = swiglu_tiling((1, 128), 1, dtype, platform.ub_size, platform.core_num, grad=grad)
    except (OptionError, ValueError, TypeError, KeyError) as exc:
        print(f"swishgrad ops show: {exc}", file=sys.stderr)
        return EXIT_USAGE
    print(f"// {name}: {ROW_OPERATORS[name][0]} (op type {ROW_OPERATORS[name][1]}), x split along dim into halves "
          f"a, b; " + ("grad_x = (g * d(silu(a) b)/da, g * silu(a))" if grad else "out = silu(a) * b"))
    print(f"//   on the engine's row machine (ops/swi_glu/); float32, float16, bfloat16")
    if grad_950:
        print(f"// the Compute (arch35/swi_glu_grad_base.h), one program per output, {dtype}:")
        for p in programs(dtype):
            print("\n".join("//   " + line for line in str(p).splitlines()))
    print(f"// one tile of 1 x 64 on {platform.soc_family} ({platform.architecture}), {dtype}:")
    prog = row_program_950(t) if grad_950 else row_program_grad(t) if grad else row_program(t)
    for row in prog.code[prog.stream_ptr[0]:prog.stream_ptr[1]]:
        op, *fields = (int(v) for v in row)
        print(f"{O.ROW_NAMES[op - len(O.NAMES)]:<14}" + " ".join(f"{k}={v}" for k, v in
                                                                 zip(("dst", "src0", "src1", "count", "k0", "k1",
                                                                      "mode"), fields)))
    return EXIT_OK


def _launch(args, platform):
    """(x shape, dtype name, grad, host tiling) of the options."""
    from ..dtypes import canonical_dtype
    from ..ops.swi_glu.api import grad_tiling, tiling_for

    for flag, dest in (("--gamma-dtype", "gamma_dtype"),):
        if getattr(args, dest, None) is not None:
            raise _Usage(f"{flag} does not apply to --op {args.op}")
    if getattr(args, "epsilon", 1e-6) != 1e-6:
        raise _Usage(f"--epsilon does not apply to --op {args.op}")
    if args.numel is None:
        raise _Usage("--numel is required")
    if args.cols is None:
        raise _Usage(f"--op {args.op} needs --cols (x's row length, split into halves a and b)")
    if args.numel % args.cols:
        raise _Usage(f"--numel {args.numel} must be whole rows of --cols {args.cols}")
    grad = ROW_OPERATORS[args.op][2]
    try:
        name = canonical_dtype(args.dtype, argname="--dtype").name
        shape = (args.numel // args.cols, args.cols)
        t = tiling_for(shape, -1, name, platform)
        if grad:
            t = grad_tiling(shape, 1, name, platform)
        return shape, name, grad, t
    except (TypeError, ValueError, NotImplementedError) as exc:
        raise _Usage(str(exc)) from None


def _tiles(t) -> str:
    from ..ops.swi_glu.host_950 import GluBaseTiling, loops

    if isinstance(t, GluBaseTiling):
        kernel = "MoveAlign" if t.move_align else "UbRearrange"
        return (f"{t.row_tile_num} x {t.col_tile_num} blocks of {t.row_base} x {t.col_base} (tails {t.row_tail} x "
                f"{t.col_tail}) on {t.used_core_num} cores, {kernel}, "
                f"{sum(len(loops(t, c)) for c in range(t.used_core_num))} UB loops")
    return f"{t.total_tiles} tiles of {t.base_row_len} x {t.base_col_len} on {t.block_dim} cores"


def cmd_tiling(args) -> int:
    try:
        refuse_options(args, ("--attr", "--write", "--beta"), args.op)
        platform = rows_platform(args)
        shape, name, _grad, t = _launch(args, platform)
    except _Usage as exc:
        print(f"swishgrad tiling: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if args.json:
        print(json.dumps({"op": args.op, "x_shape": list(shape), "dtype": name, "platform": vars(platform),
                          "tiling": dataclasses.asdict(t)}, indent=2))
        return EXIT_OK
    print(f"{args.op} host tiling for x {shape} {name} (rows of {shape[1]}, halves of {shape[1] // 2}) on "
          f"{platform}:")
    for k, v in dataclasses.asdict(t).items():
        print(f"  {k} = {v}")
    print(f"  {_tiles(t)}")
    return EXIT_OK


def cmd_validate(args) -> int:
    from ..ops.swi_glu.host_950 import GluBaseTiling
    from ..ops.swi_glu.validate import validate_tiling, validate_tiling_950, with_fields

    try:
        refuse_options(args, ("--file", "--host", "--attr", "--checked", "--tiling-key", "--beta"), args.op)
        platform = rows_platform(args)
        shape, _name, grad, t = _launch(args, platform)
        changes = {}
        for text in args.set or ():
            field, sep, value = text.partition("=")
            if not sep:
                raise _Usage(f"--set {text!r}: expected NAME=VALUE")
            changes[field] = value
        if args.block_dim is not None:
            changes["used_core_num" if isinstance(t, GluBaseTiling) else "block_dim"] = args.block_dim
        try:
            t = with_fields(t, changes)
        except ValueError as exc:
            raise _Usage(f"--set: {exc}") from None
    except _Usage as exc:
        print(f"swishgrad validate: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    report = (validate_tiling_950(t, shape, 1, platform) if isinstance(t, GluBaseTiling)
              else validate_tiling(t, shape, 1, platform, grad=grad))
    if args.json:
        print(json.dumps({"ok": report.ok, "op": args.op, "block_dim": report.block_dim,
                          "total_tiles": report.total_tiles, "tiling": dataclasses.asdict(t),
                          "findings": list(report.findings)}, indent=2))
    else:
        shape_text = (f"{t.row_tile_num} x {t.col_tile_num} blocks" if isinstance(t, GluBaseTiling)
                      else f"{t.base_row_len} x {t.base_col_len} tiles")
        print(f"{args.op} tiling ({shape_text}, {t.block_dim} cores): {'valid' if report.ok else 'INVALID'}")
        for f in report.findings:
            print(f"  - {f}")
    return EXIT_OK if report.ok else EXIT_INVALID


def estimate(args, platform, params):
    """``timeline --op swiglu`` / ``swiglu_grad``'s estimate of the options' launch (:mod:`.timeline` prints and
    writes it)."""
    from ..devicetime.rows import estimate_swiglu

    refuse_options(args, ("--file", "--block-dim", "--compare", "--best"), args.op)
    shape, name, grad, _t = _launch(args, platform)
    try:
        return estimate_swiglu(shape, -1, name, grad=grad, platform=platform, params=params,
                               allow_invalid=args.allow_invalid)
    except ValueError as exc:
        raise _Usage(str(exc)) from None

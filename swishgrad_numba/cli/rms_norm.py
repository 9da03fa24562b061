"""``swishgrad tiling / validate / timeline --op rms_norm``: RmsNorm's host tiling, its check and its device time
(issue 42).

RmsNorm is row-wise: x is ``--numel`` elements in rows of ``--cols`` (gamma's size), ``--gamma-dtype`` gamma's
dtype (default x's; float32 with a 16-bit x is the mixed kernel), ``--epsilon`` its epsilon. The tiling is the
platform kernel's (:func:`swishgrad_numba.ops.rms_norm.validate.host_tiling`): its mode, rows per core and
cores. ``validate`` checks it, with fields changed by ``--set NAME=VALUE`` and ``--block-dim``, by
:func:`~swishgrad_numba.ops.rms_norm.validate.validate_tiling` (exit 0 valid, 1 invalid, 2 bad arguments);
``timeline`` estimates its launch (:func:`swishgrad_numba.devicetime.rows.estimate_rms_norm`).
"""
from __future__ import annotations

import dataclasses
import json
import sys

import numpy as np

from .tiling_args import UsageError, parse_positive, refuse_options, rows_platform

EXIT_OK, EXIT_INVALID, EXIT_USAGE = 0, 1, 2

__all__ = ["add_rms_norm_options", "misplaced", "cmd_tiling", "cmd_validate", "estimate"]


_Usage = UsageError


def add_rms_norm_options(p) -> None:
    g = p.add_argument_group("--op rms_norm (x is NUMEL elements in rows of --cols)")
    g.add_argument("--cols", type=parse_positive, default=None, metavar="N",
                   help="rms_norm: the row length, gamma's elements (x holds NUMEL / N rows); swiglu, swiglu_grad: "
                        "x's row length, split into halves a and b")
    g.add_argument("--gamma-dtype", default=None, help="rms_norm: gamma's dtype (default x's; float32 with a "
                                                       "16-bit x runs the mixed-dtype kernel)")
    g.add_argument("--epsilon", type=float, default=1e-6, help="rms_norm: epsilon (%(default)s)")


def misplaced(args, command: str):
    """The usage message for rms_norm's options given with another --op, or None."""
    given = [name for name, dest in (("--cols", "cols"), ("--gamma-dtype", "gamma_dtype")) if getattr(args, dest)]
    if args.epsilon != 1e-6:
        given.append("--epsilon")
    if given:
        return f"swishgrad {command}: error: {', '.join(given)}: --op rms_norm's options only"
    return None


def _launch(args, platform):
    """(x shape, gamma shape, x dtype, gamma dtype, host tiling) of the options."""
    from ..dtypes import canonical_dtype
    from ..ops.rms_norm.validate import host_tiling

    if args.numel is None:
        raise _Usage("--numel is required")
    if args.cols is None:
        raise _Usage("--op rms_norm needs --cols (the row length, gamma's elements)")
    if args.numel % args.cols:
        raise _Usage(f"--numel {args.numel} must be whole rows of --cols {args.cols}")
    try:
        xd = canonical_dtype(args.dtype, argname="--dtype")
        gd = xd if args.gamma_dtype is None else canonical_dtype(args.gamma_dtype, argname="--gamma-dtype")
        shape, gshape = (args.numel // args.cols, args.cols), (args.cols,)
        return shape, gshape, xd, gd, host_tiling(shape, gshape, xd, gd, args.epsilon, platform)
    except (TypeError, ValueError, NotImplementedError) as exc:
        raise _Usage(str(exc)) from None


def _fields(t) -> dict:
    return {k: (v.item() if isinstance(v, np.generic) else v) for k, v in dataclasses.asdict(t).items()}


def _core_rows(t) -> str:
    last = max(0, min(t.block_factor, t.num_row - (t.block_dim - 1) * t.block_factor))
    return f"{t.block_dim} cores, {t.block_factor} rows each" + (f" (the last {last})" if last != t.block_factor
                                                                 else "")


def cmd_tiling(args) -> int:
    try:
        refuse_options(args, ("--attr", "--write", "--beta"), "rms_norm")
        platform = rows_platform(args)
        shape, _g, xd, gd, t = _launch(args, platform)
    except _Usage as exc:
        print(f"swishgrad tiling: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if args.json:
        print(json.dumps({"op": "rms_norm", "x_shape": list(shape), "dtype": xd.name, "gamma_dtype": gd.name,
                          "platform": vars(platform), "tiling": _fields(t)}, indent=2))
        return EXIT_OK
    print(f"rms_norm host tiling for x {shape} {xd.name}, gamma {gd.name} on {platform}:")
    for k, v in _fields(t).items():
        print(f"  {k} = {v}")
    print(f"  rows per core: {_core_rows(t)}")
    return EXIT_OK


def cmd_validate(args) -> int:
    from ..ops.rms_norm.validate import validate_tiling, with_fields

    try:
        refuse_options(args, ("--file", "--host", "--attr", "--checked", "--tiling-key", "--beta"), "rms_norm")
        platform = rows_platform(args)
        _s, _g, xd, gd, t = _launch(args, platform)
        changes = {}
        for text in args.set or ():
            name, sep, value = text.partition("=")
            if not sep:
                raise _Usage(f"--set {text!r}: expected NAME=VALUE")
            changes[name] = value
        if args.block_dim is not None:
            changes["block_dim"] = args.block_dim
        try:
            t = with_fields(t, changes)
        except ValueError as exc:
            raise _Usage(f"--set: {exc}") from None
    except _Usage as exc:
        print(f"swishgrad validate: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    host = _launch(args, platform)[4]
    report = validate_tiling(t, xd, gd, platform, host.num_row, host.num_col, args.epsilon)
    if args.json:
        print(json.dumps({"ok": report.ok, "op": "rms_norm", "mode": report.mode, "block_dim": report.block_dim,
                          "rows_per_core": report.rows_per_core, "tiling": _fields(t),
                          "findings": list(report.findings)}, indent=2))
    else:
        print(f"rms_norm tiling ({t.mode}, {_core_rows(t)}): {'valid' if report.ok else 'INVALID'}")
        for f in report.findings:
            print(f"  - {f}")
    return EXIT_OK if report.ok else EXIT_INVALID


def estimate(args, platform, params):
    """``timeline --op rms_norm``'s estimate of the options' launch (:mod:`.timeline` prints and writes it)."""
    from ..devicetime.rows import estimate_rms_norm

    refuse_options(args, ("--file", "--block-dim", "--compare", "--best"), "rms_norm")
    shape, gshape, xd, gd, _t = _launch(args, platform)
    try:
        return estimate_rms_norm(shape, gshape, xd, gd, args.epsilon, platform=platform, params=params,
                                 allow_invalid=args.allow_invalid)
    except ValueError as exc:
        raise _Usage(str(exc)) from None

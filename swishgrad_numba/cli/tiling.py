"""``swishgrad tiling`` and ``swishgrad validate``: inspect and check tilings.

``tiling`` prints the host tiling of a tensor with its load-balance figures
(and can write the 72-byte struct); past the size the load-balance analysis
handles (padded tensors of 2**56 elements) it prints the tiling and says the
balance was skipped. ``validate`` checks a given tiling
(fields on the command line, a 72-byte binary, or the host tiling with
fields overridden) and exits 0 when it is correct, 1 when it is not, 2 on
bad arguments; ``validate --sweep`` checks the host tiling over a large
grid of sizes, dtypes and platforms.
"""
from __future__ import annotations

import argparse
import json
import re
import sys

from ._paths import check_input_file, check_output_file

EXIT_OK, EXIT_INVALID, EXIT_USAGE = 0, 1, 2


class _UsageError(Exception):
    """A bad argument found after parsing: message to stderr, exit 2."""


def _uint(text: str) -> int:
    try:
        value = int(text, 0)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if not 0 <= value < 1 << 64:
        raise argparse.ArgumentTypeError(f"must be in [0, 2**64), got {value}")
    return value


def _positive(text: str) -> int:
    value = _uint(text)
    if value == 0:
        raise argparse.ArgumentTypeError("must be > 0")
    return value


def _buffer_plan(text: str) -> tuple:
    from ..validation import parse_buffer_plan

    try:
        return parse_buffer_plan(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _add_platform_options(p) -> None:
    from ..platform import REFERENCE_PLATFORM as ref

    g = p.add_argument_group("platform (defaults: the SPEC's reference platform)")
    g.add_argument("--ub-size", type=_positive, default=ref.ub_size, help="unified buffer bytes (%(default)s)")
    g.add_argument("--core-num", type=_positive, default=ref.core_num, help="AI cores (%(default)s)")
    g.add_argument("--block-size", type=_positive, default=ref.block_size, help="DataCopy block bytes (%(default)s)")
    g.add_argument("--soc-version", default=ref.soc_version, help="SoC family (%(default)s)")


def _platform(args):
    from ..platform import Platform

    return Platform(ub_size=args.ub_size, core_num=args.core_num, block_size=args.block_size,
                    soc_version=args.soc_version)


def _dtype(args):
    from ..dtypes import canonical_dtype

    try:
        return canonical_dtype(args.dtype, argname="--dtype")
    except (TypeError, ValueError) as exc:
        raise _UsageError(str(exc)) from None


# The library names its arguments as the Python API does; say the option instead.
_OPTION_OF = {"numel": "--numel", "platform.ub_size": "--ub-size", "platform.core_num": "--core-num",
              "platform.block_size": "--block-size", "scale": "--scale"}
_API_NAME = re.compile(r"(?<![\w.-])(platform\.(?:ub_size|core_num|block_size)|numel|scale)\b")


def _message(exc) -> str:
    """The error's message with the API argument names replaced by the options that set them."""
    return _API_NAME.sub(lambda m: _OPTION_OF[m.group(1)], str(exc))


def _print_record(fields: dict, out) -> None:
    width = max(len(k) for k in fields)
    for name, value in fields.items():
        print(f"  {name:<{width}} = {value}", file=out)


# ----------------------------------------------------------------------------
# swishgrad tiling

def _cmd_tiling(args) -> int:
    from ..tiling import compute_tiling
    from ..tiling.io import write_tiling_bin
    from ..validation import tiling_balance

    try:
        if args.write is not None:
            check_output_file(args.write, "--write")
        dt = _dtype(args)
        platform = _platform(args)
        tiling = compute_tiling(args.numel, dt, scale=args.scale, platform=platform)
    except (_UsageError, TypeError, ValueError) as exc:
        print(f"swishgrad tiling: error: {_message(exc)}", file=sys.stderr)
        return EXIT_USAGE
    # The host tiling takes any size whose fields fit in uint64; the load-balance
    # analysis stops at padded tensors of 2**56 elements. Past that the tiling is
    # still printed (and written), and the balance is reported as skipped.
    try:
        balance, skipped = tiling_balance(tiling, args.numel, dt, platform), None
    except ValueError as exc:
        balance, skipped = None, _message(exc)
    fields = tiling.as_dict()
    fields["workspaceSize"] = tiling.workspace_size
    if args.write is not None:
        try:
            write_tiling_bin(args.write, tiling)
        except OSError as exc:
            print(f"swishgrad tiling: error: --write: cannot write {args.write!r}: {exc.strerror or exc}",
                  file=sys.stderr)
            return EXIT_USAGE
    if args.json:
        print(json.dumps({"numel": args.numel, "dtype": dt.name, "platform": vars(platform),
                          "tiling": fields, "struct_hex": tiling.tobytes().hex(),
                          "balance": balance.as_dict() if balance is not None else None,
                          "balance_skipped": skipped}, indent=2))
        return EXIT_OK
    print(f"host tiling for numel={args.numel} {dt.name} on {platform}:")
    _print_record(fields, sys.stdout)
    print(f"  struct (72 bytes) = {tiling.tobytes().hex()}")
    if args.write is not None:
        print(f"  written to {args.write}")
    if balance is None:
        print(f"load balance: skipped: {skipped}")
        return EXIT_OK
    print("load balance:")
    for line in balance.format().splitlines():
        print("  " + line)
    return EXIT_OK


# ----------------------------------------------------------------------------
# swishgrad validate

_FIELD_OPTIONS = (
    "smallCoreDataNum", "bigCoreDataNum", "finalBigTileNum", "finalSmallTileNum",
    "tileDataNum", "smallTailDataNum", "bigTailDataNum", "tailBlockNum",
)


def _tiling_from_args(args, dt, platform):
    """(record, block_dim, key) from --file / --host / field options."""
    import numpy as np

    from ..tiling import TILING_DTYPE, compute_tiling
    from ..tiling.io import read_tiling_bin

    given = {name: getattr(args, name) for name in _FIELD_OPTIONS if getattr(args, name) is not None}
    block_dim = args.block_dim
    if args.file and args.host:
        raise _UsageError("give at most one of --file and --host")
    if args.file:
        try:
            check_input_file(args.file, "--file")  # a FIFO would block the read
            record = read_tiling_bin(args.file)
        except OSError as exc:
            raise _UsageError(f"cannot read --file: {exc}") from None
        except ValueError as exc:
            raise _UsageError(_message(exc)) from None
        if block_dim is None:
            raise _UsageError("--block-dim is required with --file (the struct does not carry it)")
    elif args.host:
        try:
            host = compute_tiling(args.numel, dt, platform=platform)
        except ValueError as exc:
            raise _UsageError(f"the host tiling refuses this input: {_message(exc)}") from None
        record = host.data
        block_dim = host.block_dim if block_dim is None else block_dim
    else:
        missing = [name for name in _FIELD_OPTIONS if name not in given]
        if missing:
            raise _UsageError("without --file or --host every field is required; missing: "
                              + ", ".join("--" + m for m in missing))
        if block_dim is None:
            raise _UsageError("--block-dim is required")
        record = np.zeros((), dtype=TILING_DTYPE)[()]
    record = np.array(record, dtype=TILING_DTYPE)
    for name, value in given.items():
        record[name] = value
    if args.sconf is not None:
        with np.errstate(over="ignore"):
            record["sconf"] = np.float32(args.sconf)
    elif not args.file and not args.host:
        record["sconf"] = np.float32(1.0)
    return record[()], block_dim


def _progress_bar(out):
    width = 40

    def show(done: int, total: int) -> None:
        filled = width * done // max(total, 1)
        out.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {100 * done // max(total, 1):3d}% "
                  f"{done}/{total} combinations")
        if done >= total:
            out.write("\n")
        out.flush()

    return show


#: --sizes-per-case cap: 10000 sizes for each of the ~3600 (platform, dtype) cases is a grid of
#: ~30M combinations, a few GB; the default 1000 gives ~2.8M.
_MAX_SIZES_PER_CASE = 10_000


def _cmd_sweep(args) -> int:
    from ..validation import run_sweep, sweep_grid

    if args.max_numel >= 1 << 40:
        print("swishgrad validate: error: --max-numel must be below 2**40", file=sys.stderr)
        return EXIT_USAGE
    if args.sizes_per_case > _MAX_SIZES_PER_CASE:  # the grid is held in memory: ~70 bytes a combination
        print(f"swishgrad validate: error: --sizes-per-case must be at most {_MAX_SIZES_PER_CASE}, "
              f"got {args.sizes_per_case}", file=sys.stderr)
        return EXIT_USAGE
    grid = sweep_grid(sizes_per_case=args.sizes_per_case, max_numel=args.max_numel, seed=args.seed)
    progress = None if args.no_progress else _progress_bar(sys.stderr)
    result = run_sweep(grid, chunk=1 << 16, progress=progress)
    print(result.format())
    return EXIT_OK if result.ok else EXIT_INVALID


def _cmd_validate(args) -> int:
    if args.sweep:
        if args.buffers is not None:
            print("swishgrad validate: error: --buffers does not apply to --sweep (it checks SwishGrad's "
                  "host tiling with SwishGrad's buffers)", file=sys.stderr)
            return EXIT_USAGE
        return _cmd_sweep(args)
    from ..validation import validate_tiling

    try:
        if args.numel is None:
            raise _UsageError("--numel is required (or use --sweep)")
        dt = _dtype(args)
        platform = _platform(args)
        record, block_dim = _tiling_from_args(args, dt, platform)
        report = validate_tiling(record, args.numel, dt, platform, block_dim, checked=args.checked,
                                 buffers=args.buffers)
    except (_UsageError, TypeError, ValueError) as exc:
        print(f"swishgrad validate: error: {_message(exc)}", file=sys.stderr)
        return EXIT_USAGE
    if args.json:
        print(json.dumps({
            "ok": report.ok,
            "numel": report.numel,
            "dtype": report.dtype.name,
            "block_dim": report.block_dim,
            "buffers": [list(group) for group in report.buffers],
            "fields": report.fields,
            "findings": [{"code": f.code, "severity": f.severity, "core": f.core, "tile": f.tile,
                          "message": f.message} for f in report.findings],
            "balance": report.balance.as_dict() if report.balance else None,
        }, indent=2))
    else:
        print(report.format())
        if report.balance is not None:
            print("load balance:")
            for line in report.balance.format().splitlines():
                print("  " + line)
    return EXIT_OK if report.ok else EXIT_INVALID


def register(subparsers) -> None:
    p = subparsers.add_parser("tiling", help="print the host tiling of a tensor and its load balance",
                              description="Print the SwishGrad host tiling (SPEC section 3) of a tensor "
                                          "of NUMEL storage elements, and its load-balance figures.")
    p.add_argument("--numel", type=_positive, required=True, help="storage element count")
    p.add_argument("--dtype", default="float32", help="float32, float16 or bfloat16 (%(default)s)")
    p.add_argument("--scale", type=float, default=1.0, help="beta, stored as sconf (%(default)s)")
    _add_platform_options(p)
    p.add_argument("--write", metavar="PATH", help="also write the 72-byte struct to PATH")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=_cmd_tiling)

    v = subparsers.add_parser(
        "validate", help="check a tiling (exit 0 ok, 1 invalid, 2 bad arguments); --sweep checks the host",
        description="Validate a SwishGrad tiling for a tensor and platform. The tiling comes from "
                    "--file (a 72-byte struct), --host (the host tiling, fields overridable), or the "
                    "eight field options. Exit status: 0 correct, 1 incorrect, 2 bad arguments.")
    v.add_argument("--numel", type=_positive, help="storage element count of the tensor")
    v.add_argument("--dtype", default="float32", help="float32, float16 or bfloat16 (%(default)s)")
    _add_platform_options(v)
    src = v.add_argument_group("the tiling")
    src.add_argument("--file", metavar="PATH", help="read the 72-byte tiling struct from PATH")
    src.add_argument("--host", action="store_true", help="start from the host tiling of --numel/--dtype")
    for name in _FIELD_OPTIONS:
        src.add_argument("--" + name, type=_uint, default=None, metavar="N", help="set this field")
    src.add_argument("--sconf", type=float, default=None, help="set sconf (beta)")
    src.add_argument("--block-dim", type=_uint, default=None, help="cores launched")
    v.add_argument("--buffers", type=_buffer_plan, default=None, metavar="PLAN",
                   help="the kernel's unified-buffer plan, COUNTxBYTES per element for each group of tile "
                        "buffers, e.g. 2x4,2x4,2x4,1x4 (default: SwishGrad's for --dtype); each buffer is "
                        "rounded up to 32 bytes")
    v.add_argument("--checked", action="store_true", help="also run the instrumented walk (numel <= 2**25)")
    v.add_argument("--json", action="store_true", help="print JSON")
    sw = v.add_argument_group("sweep")
    sw.add_argument("--sweep", action="store_true",
                    help="check the host tiling over a grid of sizes, dtypes and platforms")
    sw.add_argument("--sizes-per-case", type=_positive, default=1000,
                    help="sizes per (platform, dtype) in the sweep (%(default)s)")
    sw.add_argument("--max-numel", type=_positive, default=1 << 36, help="largest size in the sweep (%(default)s)")
    sw.add_argument("--seed", type=_uint, default=0, help="seed of the sweep's random sizes (%(default)s)")
    sw.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
    v.set_defaults(func=_cmd_validate)

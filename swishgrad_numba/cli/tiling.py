"""``swishgrad tiling`` and ``swishgrad validate``: inspect and check tilings of either kernel.

``--soc`` (also ``--soc-version``) picks the kernel as CANN does:
``ascend950`` the Ascend 950's (88-byte struct, model section 9), any other
SoC the Atlas A2's (72-byte struct); the platform's sizes default to that
kernel's reference platform. ``tiling`` prints the host tiling of a tensor
with its load-balance figures (and can write the struct); past the size the
load-balance analysis handles (2**56 elements) it prints the tiling and
says the balance was skipped. ``validate`` checks a given tiling (one
kernel's field options, a struct binary whose length tells its kernel, or
the host tiling with fields overridden) and exits 0 when it is correct, 1
when it is not, 2 on bad arguments; ``validate --sweep`` checks both
kernels' host tilings over a large grid of sizes, dtypes and core counts on
the real platforms (``--hypothetical``: a grid of platforms no part has).
"""
from __future__ import annotations

import json
import sys

from ..platform import ARCH_950, ARCH_A2
from ..ops.swish_grad.host import LAYOUTS
from ._paths import PathArgumentError, check_input_file, check_output_file
from ._progress import progress_bar
from .op_tiling import add_op_options as _op_option
from .rms_norm import add_rms_norm_options, misplaced
from .tiling_args import (
    UsageError, parse_int, parse_uint, parse_positive, buffer_plan_option, add_platform_options,
    add_beta_option, architecture_of_soc, platform_of, dtype_of, check_host_arguments, print_record,
    print_struct_and_balance)

EXIT_OK, EXIT_INVALID, EXIT_USAGE = 0, 1, 2


# ----------------------------------------------------------------------------
# swishgrad tiling

def _cmd_tiling(args) -> int:
    from ..tiling import compute_tiling, tiling_balance
    from ..tiling.validate import check_validate_numel
    from ..tiling.io import write_tiling_bin
    from ..tiling.launch import KERNEL_NAMES

    if args.op == "rms_norm":   # row-wise: --numel in rows of --cols (issue 42)
        from .rms_norm import cmd_tiling

        return cmd_tiling(args)
    if args.op in ("swiglu", "swiglu_grad"):   # row-wise too (issue 41)
        from .swiglu import cmd_tiling as swiglu_tiling

        return swiglu_tiling(args)
    if misplaced(args, "tiling"):
        print(misplaced(args, "tiling"), file=sys.stderr)
        return EXIT_USAGE
    try:
        if args.write is not None:
            check_output_file(args.write, "--write")
        dt = dtype_of(args)
        platform = platform_of(args, architecture_of_soc(args))
        if args.op != "swish_grad":
            from .op_tiling import cmd_op_tiling, default_architecture

            platform = platform_of(args, architecture_of_soc(args) or default_architecture(args))

            return cmd_op_tiling(args, dt, platform)
        if args.attr:
            raise UsageError("--attr sets the other operators' attributes; SwishGrad's beta is --beta")
        check_host_arguments(args, dt, platform)
    except (UsageError, PathArgumentError) as exc:
        print(f"swishgrad tiling: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    tiling = compute_tiling(args.numel, dt, beta=args.beta, platform=platform)
    # The host tiling takes any size whose fields fit their C types; the load-balance
    # analysis stops at tensors of 2**56 elements. Past that the tiling is still
    # printed (and written), and the balance is reported as skipped.
    try:
        check_validate_numel(args.numel, dt, platform, "--numel")
        balance, skipped = tiling_balance(tiling, args.numel, dt, platform), None
    except ValueError as exc:
        balance, skipped = None, str(exc)
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
                          "kernel": tiling.architecture, "tiling": fields, "struct_hex": tiling.tobytes().hex(),
                          "balance": balance.as_dict() if balance is not None else None,
                          "balance_skipped": skipped}, indent=2))
        return EXIT_OK
    print(f"host tiling for numel={args.numel} {dt.name} on {platform} ({KERNEL_NAMES[tiling.architecture]}):")
    print_record(fields, sys.stdout)
    print_struct_and_balance(tiling, args.write, balance, skipped)
    return EXIT_OK


# ----------------------------------------------------------------------------
# swishgrad validate

def _options(names) -> str:
    return ", ".join("--" + name for name in names)


def _source_architecture(args, given: dict):
    """(record or None, the kernel of the tiling) from --file, the field options, or --soc."""
    from ..tiling.io import read_tiling_bin
    from ..tiling.records import layout_of

    if args.file:
        check_input_file(args.file, "--file")  # a FIFO would block the read
        try:
            record = read_tiling_bin(args.file)
        except OSError as exc:
            raise UsageError(f"cannot read --file: {exc}") from None
        except ValueError as exc:
            raise UsageError(f"--file: {exc}") from None
        return record, layout_of(record).architecture
    kinds = [arch for arch in (ARCH_A2, ARCH_950) if given[arch]]
    if len(kinds) == 2:
        raise UsageError(f"the A2 field options ({_options(given[ARCH_A2])}) and the 950 field options "
                          f"({_options(given[ARCH_950])}) describe different structs; give one kernel's")
    return None, (kinds[0] if kinds else architecture_of_soc(args) or ARCH_A2)


def _tiling_from_args(args, dt):
    """(tiling, block_dim, platform) from --file / --host / field options."""
    import numpy as np

    from ..tiling import Tiling, compute_tiling
    from ..tiling.launch import KERNEL_NAMES

    given = {arch: {name: getattr(args, name) for name in layout.int_fields if getattr(args, name) is not None}
             for arch, layout in LAYOUTS.items()}
    if args.file and args.host:
        raise UsageError("give at most one of --file and --host")
    record, arch = _source_architecture(args, given)
    soc_arch = architecture_of_soc(args)
    if soc_arch is not None and soc_arch != arch:
        source = "--file holds the struct" if args.file else "the field options are the fields"
        raise UsageError(f"--soc {args.soc_version} runs the {KERNEL_NAMES[soc_arch]}, but {source} of the "
                          f"{KERNEL_NAMES[arch]} ({LAYOUTS[arch].nbytes} bytes)")
    other = ARCH_A2 if arch == ARCH_950 else ARCH_950
    if given[other]:
        # only with --file: otherwise the field options decide the kernel
        raise UsageError(f"{_options(given[other])}: not fields of the struct --file holds (the "
                          f"{KERNEL_NAMES[arch]}'s, {LAYOUTS[arch].nbytes} bytes)")
    if args.buffers is not None and arch == ARCH_950:
        raise UsageError("--buffers applies to Atlas A2 tilings only (the 950 kernel's buffer is six slots of "
                          "ubFormer elements)")
    layout, platform, block_dim, key = LAYOUTS[arch], platform_of(args, arch), args.block_dim, args.tiling_key
    if args.file:
        if block_dim is None:
            raise UsageError("--block-dim is required with --file (the struct does not carry it)")
    elif args.host:
        check_host_arguments(args, dt, platform)
        host = compute_tiling(args.numel, dt, platform=platform)
        record = host.data
        block_dim = host.block_dim if block_dim is None else block_dim
        key = host.tiling_key if key is None else key
    else:
        missing = [name for name in layout.int_fields if name not in given[arch]]
        if missing:
            raise UsageError("without --file or --host every field is required; missing: " + _options(missing))
        if block_dim is None:
            raise UsageError("--block-dim is required")
        record = np.zeros((), dtype=layout.dtype)[()]
    record = np.array(record, dtype=layout.dtype)
    for name, value in given[arch].items():
        low, high = layout.int_range(name)
        if not low <= value <= high:
            raise UsageError(f"--{name} must be in {layout.int_range_text(name)}, got {value}")
        record[name] = value
    if args.beta is not None:
        with np.errstate(over="ignore"):
            record[layout.beta_field] = np.float32(args.beta)
    elif not args.file and not args.host:
        record[layout.beta_field] = np.float32(1.0)
    if key is None:
        return record[()], block_dim, platform
    return Tiling(data=record[()], block_dim=block_dim, tiling_key=key), block_dim, platform


#: --sizes-per-case cap: 10000 sizes for each of the ~4300 (kernel, platform, dtype) cases is a grid of
#: ~40M combinations, a few GB; the default 1000 gives ~3.3M.
_MAX_SIZES_PER_CASE = 10_000


def _cmd_sweep(args) -> int:
    from ..tiling.sweep import SWEEP_CORE_NUMS, SWEEP_PLATFORMS, platform_sweep_grid, run_sweep, sweep_grid

    if args.buffers is not None:
        print("swishgrad validate: error: --buffers does not apply to --sweep (it checks SwishGrad's "
              "host tilings with SwishGrad's buffers)", file=sys.stderr)
        return EXIT_USAGE
    if args.max_numel >= 1 << 40:
        print("swishgrad validate: error: --max-numel must be below 2**40", file=sys.stderr)
        return EXIT_USAGE
    if args.sizes_per_case > _MAX_SIZES_PER_CASE:  # the grid is held in memory: ~70 bytes a combination
        print(f"swishgrad validate: error: --sizes-per-case must be at most {_MAX_SIZES_PER_CASE}, "
              f"got {args.sizes_per_case}", file=sys.stderr)
        return EXIT_USAGE
    make_grid = sweep_grid if args.hypothetical else platform_sweep_grid
    grid = make_grid(sizes_per_case=args.sizes_per_case, max_numel=args.max_numel, seed=args.seed)
    progress = progress_bar(args.no_progress, "combination")
    try:
        result = run_sweep(grid, chunk=1 << 16, progress=progress)
    finally:
        if progress is not None:
            progress.close()
    if not args.hypothetical:
        print("platforms: " + "; ".join(str(p) for p in SWEEP_PLATFORMS) + f", each with core counts "
              f"{', '.join(str(c) for c in SWEEP_CORE_NUMS)} up to its own (--hypothetical: a grid of platforms "
              f"no Ascend part has)")
    print(result.format())
    return EXIT_OK if result.ok else EXIT_INVALID


def _op_tiling_from_args(args, dt):
    """(tiling, block_dim, platform) of ``validate --op OP`` for an operator other than SwishGrad."""
    from .op_tiling import OpUsageError, default_architecture, op_tiling_from_args

    given = [name for layout in LAYOUTS.values() for name in layout.int_fields if getattr(args, name) is not None]
    if given:
        raise UsageError(f"{_options(dict.fromkeys(given))}: SwishGrad's fields; set --op {args.op}'s struct "
                          f"fields with --set NAME=VALUE")
    platform = platform_of(args, architecture_of_soc(args) or default_architecture(args))
    try:
        tiling = op_tiling_from_args(args, dt, platform)
    except (OpUsageError, PathArgumentError) as exc:
        raise UsageError(str(exc)) from None
    return tiling, None, platform


def _cmd_validate(args) -> int:
    if args.op != "swish_grad":
        only = [opt for opt, given in (("--sweep", args.sweep), ("--hypothetical", args.hypothetical),
                                       ("--buffers", args.buffers is not None)) if given]
        if only:
            print(f"swishgrad validate: error: {', '.join(only)}: SwishGrad's (--op swish_grad) only",
                  file=sys.stderr)
            return EXIT_USAGE
    elif args.set or args.attr:
        print(f"swishgrad validate: error: {'--set' if args.set else '--attr'} applies to the other operators' "
              f"structs; SwishGrad's fields have their own options (--tileDataNum ..., --beta)", file=sys.stderr)
        return EXIT_USAGE
    if args.op in ("rms_norm", "swiglu", "swiglu_grad"):   # row-wise: --numel in rows of --cols (issues 42, 41)
        given = [name for layout in LAYOUTS.values() for name in layout.int_fields if getattr(args, name) is not None]
        if given:
            print(f"swishgrad validate: error: {_options(dict.fromkeys(given))}: SwishGrad's fields; set "
                  f"{args.op}'s with --set NAME=VALUE", file=sys.stderr)
            return EXIT_USAGE
        from .rms_norm import cmd_validate
        from .swiglu import cmd_validate as swiglu_validate

        return cmd_validate(args) if args.op == "rms_norm" else swiglu_validate(args)
    if misplaced(args, "validate"):
        print(misplaced(args, "validate"), file=sys.stderr)
        return EXIT_USAGE
    if args.sweep:
        return _cmd_sweep(args)
    if args.hypothetical:
        print("swishgrad validate: error: --hypothetical applies to --sweep only", file=sys.stderr)
        return EXIT_USAGE
    from ..tiling import validate_tiling
    from ..tiling.validate import check_validate_numel

    try:
        if args.numel is None:
            raise UsageError("--numel is required (or use --sweep)")
        dt = dtype_of(args)
        if args.op != "swish_grad":
            tiling, block_dim, platform = _op_tiling_from_args(args, dt)
        else:
            tiling, block_dim, platform = _tiling_from_args(args, dt)
        check_validate_numel(args.numel, dt, platform, "--numel")
        report = validate_tiling(tiling, args.numel, dt, platform, block_dim, checked=args.checked,
                                 buffers=args.buffers if args.op == "swish_grad" else None)
    except (UsageError, TypeError, ValueError) as exc:
        print(f"swishgrad validate: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if args.json:
        print(json.dumps({
            "ok": report.ok,
            "op": args.op,
            "kernel": report.architecture,
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
        print(("" if args.op == "swish_grad" else f"{args.op} ") + report.format())
        if report.balance is not None:
            print("load balance:")
            for line in report.balance.format().splitlines():
                print("  " + line)
    return EXIT_OK if report.ok else EXIT_INVALID


def register(subparsers) -> None:
    p = subparsers.add_parser("tiling", help="print the host tiling of a tensor and its load balance",
                              description="Print the SwishGrad host tiling of a tensor of NUMEL storage elements "
                                          "(Atlas A2: model section 3; Ascend 950 with --soc ascend950: section 9), "
                                          "and its load-balance figures.")
    p.add_argument("--numel", type=parse_positive, required=True, help="storage element count")
    p.add_argument("--dtype", default="float32", help="float32, float16 or bfloat16 (%(default)s)")
    _op_option(p)
    add_beta_option(p, "beta, stored as float32 in the struct's sconf (A2) or scale (950); default 1.0; swish_grad "
                    "and swish only", None)
    add_platform_options(p)
    p.add_argument("--write", metavar="PATH", help="also write the struct (72 bytes A2, 88 bytes 950) to PATH")
    p.add_argument("--json", action="store_true", help="print JSON")
    add_rms_norm_options(p)
    p.set_defaults(func=_cmd_tiling)

    v = subparsers.add_parser(
        "validate", help="check a tiling (exit 0 ok, 1 invalid, 2 bad arguments); --sweep checks the host",
        description="Validate a SwishGrad tiling of either kernel for a tensor and platform. The tiling comes "
                    "from --file (a 72-byte A2 or 88-byte 950 struct), --host (the host tiling of the --soc's "
                    "kernel, fields overridable), or one kernel's field options (all of them). Exit status: 0 "
                    "correct, 1 incorrect, 2 bad arguments.")
    v.add_argument("--numel", type=parse_positive, help="storage element count of the tensor")
    v.add_argument("--dtype", default="float32", help="float32, float16 or bfloat16 (%(default)s)")
    _op_option(v)
    add_platform_options(v)
    src = v.add_argument_group("the tiling")
    src.add_argument("--file", metavar="PATH", help="read the tiling struct (72 or 88 bytes) from PATH")
    src.add_argument("--host", action="store_true", help="start from the host tiling of --numel/--dtype")
    for name in LAYOUTS[ARCH_A2].int_fields:
        src.add_argument("--" + name, type=parse_uint, default=None, metavar="N", help="set this A2 field")
    for name in LAYOUTS[ARCH_950].int_fields:
        src.add_argument("--" + name, type=parse_int, default=None, metavar="N", help="set this 950 field")
    add_beta_option(src, "set beta (the struct's sconf / scale)", None)
    src.add_argument("--set", action="append", metavar="NAME=VALUE",
                     help="--op other than swish_grad: set a field of the operator's struct (repeatable), "
                          "starting from its host tiling or --file")
    src.add_argument("--block-dim", type=parse_uint, default=None, help="cores launched")
    src.add_argument("--tiling-key", type=parse_uint, default=None, metavar="K",
                     help="the launch's tiling key (default: the host's with --host; A2 0)")
    v.add_argument("--buffers", type=buffer_plan_option, default=None, metavar="PLAN",
                   help="A2: the kernel's unified-buffer plan, COUNTxBYTES per element for each group of tile "
                        "buffers, e.g. 2x4,2x4,2x4,1x4 (default: SwishGrad's for --dtype); each buffer is "
                        "rounded up to 32 bytes")
    v.add_argument("--checked", action="store_true", help="also run the instrumented walk (numel <= 2**25)")
    v.add_argument("--json", action="store_true", help="print JSON")
    add_rms_norm_options(v)
    sw = v.add_argument_group("sweep")
    sw.add_argument("--sweep", action="store_true",
                    help="check both kernels' host tilings over a grid of sizes, dtypes and core counts on the real "
                         "platforms (exit 0 when no host tiling has an error)")
    sw.add_argument("--hypothetical", action="store_true",
                    help="with --sweep: a grid of hypothetical platforms instead (12 UB sizes, 12 core counts, 9 "
                         "block sizes of 1 to 512 bytes); exits 1 on its UB_OVERFLOW findings on block sizes that "
                         "are not a multiple of 32 bytes (the host tiles in whole blocks, InitBuffer pads each "
                         "buffer to 32 bytes; docs/validation.md)")
    sw.add_argument("--sizes-per-case", type=parse_positive, default=1000,
                    help="sizes per (kernel, platform, dtype) in the sweep (%(default)s)")
    sw.add_argument("--max-numel", type=parse_positive, default=1 << 36, help="largest size in the sweep (%(default)s)")
    sw.add_argument("--seed", type=parse_uint, default=0, help="seed of the sweep's random sizes (%(default)s)")
    sw.add_argument("--no-progress", action="store_true",
                    help="no progress bar (shown on stderr when it is a terminal)")
    v.set_defaults(func=_cmd_validate)

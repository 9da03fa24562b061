"""``swishgrad ops list`` and ``swishgrad ops show NAME``: the registered operators, their descriptions (the
operators in the described form, :mod:`swishgrad_numba.ops.description`) and their programs."""
from __future__ import annotations

import sys

from ._options import OptionError, check_soc

__all__ = ["register"]


def _kernel_dtypes(op) -> tuple:
    """The floating dtypes its kernels take on some SoC: its description's lists where it has one."""
    desc = op.described_by
    if desc is None:
        return ("float32", "float16", "bfloat16")
    listed = {d for dtypes in desc.dtypes.values() for d in dtypes}
    return tuple(d for d in ("float32", "float16", "bfloat16") if d in listed)


_SHORT = {"a2": "a2", "arch35": "950"}


def _list(args) -> int:
    from ..ops import OPERATORS

    header = ("operator", "aclnn", "kernel op", "kernels (programs: *)", "dtypes")
    rows = [(name, op.aclnn[-1], op.kernel_op,
             ", ".join(f"{arch}{'*' if k.programs else ''}" for arch, k in op.kernels.items()),
             ", ".join((*_kernel_dtypes(op), *(f"{d} (AICPU)" for d in op.aicpu_dtypes),
                        *(f"{d} (exact)" for d in getattr(op.described_by, "exact_dtypes", ())))))
            for name, op in OPERATORS.items()]
    from ..ops.registry import ROWS
    from .swiglu import list_rows   # the row operators (issue 41): not the registry's walk

    # the registry's row operators (issue 40: ops.ROWS), SwiGlu's pair with the kernels its CLI probes
    known = {row[0]: row for row in list_rows()}
    rows += [known.get(name) or (name, op.aclnn[-1], op.kernel_op,
                                 ", ".join(f"{_SHORT.get(arch, arch)} (rows)" for arch in op.kernels),
                                 ", ".join(_kernel_dtypes(op))) for name, op in ROWS.items()]
    widths = [max(len(row[i]) for row in (header, *rows)) for i in range(len(header) - 1)]
    for row in (header, *rows):
        print("  ".join(cell.ljust(width) for cell, width in zip(row, widths)) + "  " + row[-1])
    return 0


def _show(args) -> int:
    from ..ops import OPERATORS
    from ..platform import Platform

    from .swiglu import ROW_OPERATORS, show

    from ..ops.registry import ROWS

    if args.name in ROWS:   # a row operator (issue 40: described, the rows kind): its description, its row stream
        from ..ops.description_text import show as describe

        if args.soc is None:
            print("\n".join("// " + line for line in describe(ROWS[args.name].described_by).splitlines()))
        if args.name in ROW_OPERATORS:
            return show(args.name, args.soc, args.dtype)
        print(f"// its row streams by launch: swishgrad tiling / validate / timeline --op {args.name}")
        return 0
    if args.name not in OPERATORS:
        print(f"swishgrad ops show: unknown operator {args.name!r}; registered: {', '.join(OPERATORS)}",
              file=sys.stderr)
        return 2
    try:
        op = OPERATORS[args.name]
        platform = op.default_platform if args.soc is None else Platform(soc_version=check_soc(args.soc))
        program = op.program(args.dtype, platform, beta=args.beta)
    except (OptionError, ValueError, TypeError) as exc:
        print(f"swishgrad ops show: {exc}", file=sys.stderr)
        return 2
    if op.described_by is not None and args.soc is None:   # --soc asks for one SoC's program alone
        from ..ops.description_text import show

        print("\n".join("// " + line for line in show(op.described_by).splitlines()))
    print(f"// {args.name} on {platform.soc_family} ({platform.architecture} kernel), {args.dtype}")
    print(program)
    return 0


def _table(args) -> int:
    from ..ops.table import markdown

    sys.stdout.write(markdown())
    return 0


def register(subparsers) -> None:
    ops = subparsers.add_parser("ops", help="the registered operators and their programs")
    sub = ops.add_subparsers(dest="ops_command", metavar="OPS_COMMAND")
    lister = sub.add_parser("list", help="the operators with their aclnn names, kernels and dtypes")
    lister.set_defaults(func=_list)
    table = sub.add_parser("table", help="the docs table of operators, as Markdown (docs/operators.md)")
    table.set_defaults(func=_table)
    show = sub.add_parser("show", help="an operator's description (where it has one; not with --soc) and its program, one vector "
                          "instruction per line")
    show.add_argument("name", help="the operator's registry name (see `swishgrad ops list`)")
    show.add_argument("--soc", default=None, help="SoC family or chip name (decides the kernel); default "
                      "ascend910b, or ascend950 for an operator with no A2 kernel")
    show.add_argument("--dtype", default="float32", choices=("float32", "float16", "bfloat16"))
    show.add_argument("--beta", type=float, default=1.0, help="beta/scale, where it picks the program (950 Swish)")
    show.set_defaults(func=_show)
    ops.set_defaults(func=lambda args: (ops.print_help(), 2)[1])

"""``swishgrad kernel show|run|diff FOLDER``: a kernel read from its Ascend C source (issue 31).

``show`` prints the program read for a dtype (as ``swishgrad ops show`` prints an operator's); ``run``
runs it on ``.npy`` inputs named by the kernel's ``GM_ADDR`` arguments; ``diff`` says whether the source's
programs compute what the package's operator's do (per dtype, by dataflow: tensor names, buffer reuse and
the order of independent steps aside; inputs matched by role, the order of the source's inputs under which
the most dtypes are equal, said where it is not the source's own; every program variant on both sides, the
package's by beta and by SoC), exit status 0 when they all do, 1 when one differs.
"""
from __future__ import annotations

import math
import re
import sys

import numpy as np

from ._options import OptionError, check_soc

__all__ = ["register"]

DTYPE_NAMES = ("float32", "float16", "bfloat16")
#: betas over which the package's host picks its program variants (the 950 Swish's DAG by beta)
_PROBE_BETAS = (1.0, -1.0, 0.0, 0.5, 2.0, math.inf, -math.inf, math.nan)


def _fail(command: str, message) -> int:
    print(f"swishgrad kernel {command}: error: {message}", file=sys.stderr)
    return 2


def _read(args):
    from ..ops import read_kernel

    soc = getattr(args, "soc", None)        # picks the entry where op_kernel holds an A2 and a 950 one
    platform = None if soc is None else _platform(None, soc)
    return read_kernel(args.folder, platform=platform, entry=args.entry, defines=_defines(args))


def _defines(args) -> dict:
    """``-D NAME[=VALUE]`` (VALUE 1 where not given) and ``-U NAME`` (not defined), as a compiler takes them."""
    defines = {}
    for option, items in (("--define", args.define or ()), ("--undef", args.undef or ())):
        for item in items:
            name, eq, value = item.partition("=")
            if not re.fullmatch(r"[A-Za-z_]\w*", name) or option == "--undef" and eq:
                raise OptionError(f"{option} {item!r}: expected {'NAME[=VALUE]' if option == '--define' else 'NAME'}")
            defines[name] = None if option == "--undef" else (value if eq else 1)
    return defines


def _platform(op, soc):
    from ..platform import Platform

    return op.default_platform if soc is None else Platform(soc_version=check_soc(soc))


def _show(args) -> int:
    try:
        op = _read(args)
        platform = _platform(op, args.soc)
        variants = op.variants(args.dtype) or ("",)
        texts = [(v, op.program(args.dtype, platform, variant=v)) for v in variants]
    except (OptionError, ValueError, TypeError, OSError) as exc:
        return _fail("show", exc)
    print(f"// {op.name} from {args.folder} ({op.style} style, {op.architecture} kernel), {args.dtype}")
    for variant, program in texts:
        if variant:
            print(f"// variant: {variant}")
        print(program)
    return 0


def _pairs(items, option):
    out = {}
    for item in items or ():
        name, sep, value = item.partition("=")
        if not sep or not name or not value:
            raise OptionError(f"{option} must be NAME=VALUE, got {item!r}")
        if name in out:
            raise OptionError(f"{option} {name} is given twice")
        out[name] = value
    return out


def _run(args) -> int:
    from ._paths import PathArgumentError, check_output_file
    from .compare import InputFileError, load_array

    try:
        check_output_file(args.output, "--output")
        inputs, attrs = _pairs(args.input, "--input"), _pairs(args.attr, "--attr")
        op = _read(args)
        platform = _platform(op, args.soc)
        for name in inputs:
            if name not in op.description.gm_params:
                raise OptionError(f"--input {name}: the kernel's inputs are {list(op.description.gm_params)}")
        known = list(op.attributes) + [a[0] for a in (op.definition.attrs if op.definition else ())
                                       if a[0] not in op.attributes]
        for name in attrs:
            if name not in known:
                raise OptionError(f"--attr {name}: the kernel's attributes are {known}")
        dtype = None
        if args.dtype is not None:
            from ..dtypes import dtype_info
            dtype = dtype_info(args.dtype, argname="--dtype").numpy
        arrays = {n: load_array(p, f"--input {n}", dtype) for n, p in inputs.items()}
        values = {}
        for name, text in attrs.items():
            try:
                values[name] = float(text)
            except ValueError:
                raise OptionError(f"--attr {name}: {text!r} is not a number") from None
        out = op.run(**arrays, **values, platform=platform, variant=args.variant)
    except (OptionError, PathArgumentError, InputFileError, ValueError, TypeError, OSError) as exc:
        return _fail("run", exc)
    try:
        np.save(args.output, out)
    except OSError as exc:
        return _fail("run", f"--output: cannot write {args.output!r}: {exc.strerror or exc}")
    print(f"{op.name}: {out.size} {out.dtype} elements -> {args.output}")
    return 0


def _program_expression(program, rename=None, order=None):
    """What ``program`` computes, as one expression (:func:`swishgrad_numba.reader.dataflow.output_expression`),
    each constant its float32 value; ``order[k]`` the position of the input that is the package's k-th."""
    from ..reader.dataflow import output_expression
    from ..reader.to_program import from_program

    inputs = tuple(t.name for t in program.inputs)
    try:
        body = from_program(program, inputs, "out")
    except ValueError:                        # a subroutine call: compared as written
        return ("text", str(program))
    if order is not None:
        inputs = tuple(inputs[i] for i in order)
    try:
        return output_expression(body.steps, inputs, program.output.name, rename)
    except KeyError:                          # an instruction the reader does not read (Compare, Select)
        return ("text", str(program))


def _package_programs(kernel, dtype):
    """The package kernel's programs for ``dtype``, by variant: every one its host picks, by beta
    (:data:`_PROBE_BETAS`) or by SoC (each SoC family of the kernel's architecture)."""
    from ..platform import SOC_VERSIONS, Platform

    variants = {"main"} if kernel.variant is None else {kernel.variant(np.float32(b)) for b in _PROBE_BETAS}
    if kernel.soc_variant is not None:
        platforms = (Platform(soc_version=s) for s in SOC_VERSIONS)
        variants = {kernel.soc_variant(p) for p in platforms if p.architecture == kernel.architecture}
    return {v: kernel.programs(dtype, v) for v in sorted(variants)}


def _compare(op, kernel, order):
    """Per dtype: (ours, theirs, ours' expressions, theirs', the source's error), inputs taken in ``order``."""
    rows = {}
    for dtype in DTYPE_NAMES:
        theirs = _package_programs(kernel, dtype)
        attrs = sorted({a for p in theirs.values() for a in p.attrs})
        error = None
        try:
            ours = {v or "main": op.program(dtype, variant=v) for v in op.variants(dtype)}
        except ValueError as exc:
            ours, error = {}, exc
        rename = ({a: attrs[0] for p in ours.values() for a in p.attrs} if len(attrs) == 1 else {})
        rows[dtype] = (ours, theirs, {v: _program_expression(p, rename, order) for v, p in ours.items()},
                       {v: _program_expression(p) for v, p in theirs.items()}, error)
    return rows


def _equal(row) -> bool:
    ours, _, ours_x, theirs_x, _ = row
    return bool(ours) and set(ours_x.values()) == set(theirs_x.values())


def _diff(args) -> int:
    from itertools import permutations

    from ..ops import get_operator

    try:
        op = _read(args)
        package = get_operator(args.op)
        kernel = package.kernels.get(op.architecture)
        if kernel is None or kernel.programs is None:
            raise OptionError(f"operator {args.op!r} has no program for the {op.architecture} kernel "
                              f"({op.name} is one)")
        theirs_in = tuple(t.name for t in next(iter(_package_programs(kernel, "float32").values())).inputs)
    except (OptionError, ValueError, TypeError, OSError) as exc:
        return _fail("diff", exc)
    ours_in = op.description.inputs_read
    # inputs are matched by role, not position: the order of the source's inputs under which the most dtypes
    # compute what the package's do (the first such, the source's own before any other)
    orders = list(permutations(range(len(ours_in)))) if len(ours_in) == len(theirs_in) <= 4 else [None]
    rows, order, best = None, None, -1
    for candidate in orders:
        found = _compare(op, kernel, candidate)
        score = sum(_equal(r) for r in found.values())
        if score > best:
            rows, order, best = found, candidate, score
        if score == len(found):
            break
    if order is not None and list(order) != sorted(order):
        pairs = ", ".join(f"{ours_in[i]} as {theirs_in[k]}" for k, i in enumerate(order))
        print(f"inputs matched by role: {pairs} (the source's order {list(ours_in)}, {args.op}'s {list(theirs_in)})")
    differ = False
    for dtype, row in rows.items():
        ours, theirs, ours_x, theirs_x, error = row
        if _equal(row):
            print(f"{dtype}: equal ({len(ours)} program{'s' * (len(ours) > 1)}{_pairing(ours_x, theirs_x)})")
            continue
        differ = True
        print(f"{dtype}: differ")
        if not ours:
            print(f"  the source: {error}")
        for v, p in ours.items():
            if ours_x[v] not in theirs_x.values():
                print(f"  only in {args.folder} ({v}):\n" + _indent(p))
        for v, p in theirs.items():
            if theirs_x[v] not in ours_x.values():
                print(f"  only in {args.op} ({v}):\n" + _indent(p))
    return 1 if differ else 0


def _pairing(ours_x, theirs_x) -> str:
    """Which source variant computes which package variant, where either side has several."""
    if len(ours_x) == 1 and len(theirs_x) == 1:
        return ""
    pairs = [f"{v} = {next(w for w, e in theirs_x.items() if e == x)}" for v, x in ours_x.items()]
    return ": " + ", ".join(pairs)


def _indent(program) -> str:
    return "\n".join("    " + line for line in str(program).splitlines())


def register(subparsers) -> None:
    kernel = subparsers.add_parser("kernel", help="a kernel read from its Ascend C source (show, run, diff)")
    sub = kernel.add_subparsers(dest="kernel_command", metavar="KERNEL_COMMAND")

    def common(p):
        p.add_argument("folder", help="the op_kernel folder: the entry .cpp and its headers")
        p.add_argument("--entry", default=None, help="the entry file, where the folder holds several")
        p.add_argument("-D", "--define", action="append", metavar="NAME[=VALUE]",
                       help="a macro of the build for the preprocessor's conditions (VALUE 1 if not given)")
        p.add_argument("-U", "--undef", action="append", metavar="NAME", help="a macro the build does not define")

    show = sub.add_parser("show", help="the program read from the source, one vector instruction per line")
    common(show)
    show.add_argument("--dtype", default="float32", choices=DTYPE_NAMES)
    show.add_argument("--soc", default=None, help="SoC family or chip name (must run the kernel's architecture)")
    show.set_defaults(func=_show)
    run = sub.add_parser("run", help="run the kernel on .npy inputs on the emulated walk")
    common(run)
    run.add_argument("--input", action="append", metavar="NAME=FILE", help="an input by its GM_ADDR name")
    run.add_argument("--attr", action="append", metavar="NAME=VALUE",
                     help="an attribute by its tiling field name (or the op definition's, read from op_host)")
    run.add_argument("--dtype", default=None, help="the dtype the inputs must have")
    run.add_argument("--soc", default=None, help="SoC family or chip name (default: the kernel's reference)")
    run.add_argument("--variant", default=None, help="the tiling-key variant, where the source has several")
    run.add_argument("--output", required=True, help="the .npy file the output is written to")
    run.set_defaults(func=_run)
    diff = sub.add_parser("diff", help="whether the source computes what a package operator's programs do")
    common(diff)
    diff.add_argument("op", help="the package operator (see `swishgrad ops list`)")
    diff.set_defaults(func=_diff)
    kernel.set_defaults(func=lambda args: (kernel.print_help(), 2)[1])

"""``swishgrad tiling --op OP`` and ``swishgrad validate --op OP`` for the registered operators but SwishGrad.

SwishGrad (``--op swish_grad``, the default) keeps its own options
(:mod:`.tiling`); another operator's record is its host tiling
(``compute_tiling(op=...)``), optionally read from ``--file`` (its struct's
bytes) or with struct fields overridden by ``--set NAME=VALUE``, and is
checked by :func:`~swishgrad_numba.validate_tiling` against that operator's
kernel (docs/validation.md).
"""
from __future__ import annotations

import dataclasses
import json
import sys

import numpy as np

from ..dtypes import dtype_info
from ._paths import PathArgumentError, check_input_file, check_output_file
from .tiling_args import print_struct_and_balance

EXIT_OK, EXIT_INVALID, EXIT_USAGE = 0, 1, 2


class OpUsageError(Exception):
    """A bad argument of an operator's command: message to stderr, exit 2."""


def operator_of(args):
    """The registered operator ``--op`` names, or an OpUsageError listing them."""
    from ..ops import get_operator

    try:
        return get_operator(args.op)
    except ValueError as exc:
        raise OpUsageError(str(exc).replace("op must", "--op must")) from None


def default_architecture(args) -> str:
    """The kernel ``--op`` runs where ``--soc`` is not given: the A2's, or the Ascend 950's for an operator
    with no A2 kernel (FastGelu); the A2's for an unknown name (refused later, listing the operators)."""
    from ..ops import OPERATORS
    from ..platform import ARCH_A2

    op = OPERATORS.get(args.op)
    return ARCH_A2 if op is None else op.default_platform.architecture


def _bool(text: str) -> bool:
    if text.lower() not in ("true", "false", "1", "0"):
        raise ValueError(f"expected true or false, got {text!r}")
    return text.lower() in ("true", "1")


#: The attributes ``--attr NAME=VALUE`` sets, by operator: (name, default, parse) in the order of its public
#: function's keywords (``sg.softplus(x, beta=...)``, ...). SwishGrad and Swish take ``--beta``. A described
#: operator's are its description's kernel attributes (:func:`attributes_of`).
ATTRIBUTES: dict = {}   # every operator with attributes is described now (issue 40)


def attributes_of(name: str) -> tuple:
    """Operator ``name``'s ``--attr`` attributes: a described operator's kernel attributes (those its host
    tiling takes: the floats, then the bools the kernel reads), else :data:`ATTRIBUTES`'s row."""
    from ..ops import OPERATORS

    desc = OPERATORS[name].described_by if name in OPERATORS else None
    if desc is not None:   # an operator with a beta (Swish, SwishGrad: has_beta) takes its first one as --beta
        taken = desc.kernel_attributes[1:] if desc.has_beta else desc.kernel_attributes
        parse = {"float": float, "bool": _bool, "choice": str}   # a choice's value is checked by the face
        return tuple((a.name, a.default, parse[a.kind]) for a in taken)
    return ATTRIBUTES.get(name, ())


def add_attr_option(p) -> None:
    """``--attr NAME=VALUE`` (repeatable) on ``tiling`` and ``validate``."""
    from ..ops.description import described

    names = [*described(), *ATTRIBUTES]
    listed = "; ".join(f"{op}: {', '.join(a[0] for a in attributes_of(op))}" for op in names if attributes_of(op))
    p.add_argument("--attr", action="append", metavar="NAME=VALUE",
                   help=f"--op other than swish_grad: an attribute of the operator, as its function's keyword, "
                        f"for its host tiling (repeatable; the others keep their defaults): {listed}")


def add_op_options(p) -> None:
    """``--op`` and ``--attr`` of ``tiling`` and ``validate``."""
    from ..ops import OPERATORS   # the registry as it is when the parser is built

    others = ", ".join(sorted(set(OPERATORS) - {"swish_grad"}))
    p.add_argument("--op", default="swish_grad", metavar="OP",
                   help=f"the operator: swish_grad (%(default)s) or another registered one ({others}); every "
                        f"operator but swish_grad is its host tiling (its attributes: --attr; validate: optionally "
                        f"--file, --set), checked against its own kernel")
    add_attr_option(p)


def _attributes(args, op, dt, platform):
    """The registry's attribute argument of ``--attr``s (None where none is given), checked by the operator's
    public function on empty arrays, as the library checks them."""
    import swishgrad_numba as sg
    from ..ops.gelu_v2 import approximate_code

    texts = getattr(args, "attr", None) or ()
    if not texts:
        return None
    if getattr(args, "file", None):
        raise OpUsageError("--attr sets the host tiling's attributes; a --file struct holds its own (--set)")
    known = attributes_of(op.name)
    if not known:
        raise OpUsageError(f"--attr: --op {op.name} has no attributes"
                           + (" but beta, set by --beta" if op.has_beta else ""))
    values = {name: default for name, default, _parse in known}
    for text in texts:
        name, sep, value = text.partition("=")
        spec = next((a for a in known if a[0] == name), None)
        if not sep or spec is None:
            raise OpUsageError(f"--attr {text!r}: expected NAME=VALUE with NAME one of "
                               f"{[a[0] for a in known]} (--op {op.name}'s attributes)")
        try:
            values[name] = spec[2](value)
        except ValueError as exc:
            raise OpUsageError(f"--attr {text!r}: {exc}") from None
    fn = getattr(sg, op.functional)
    empty = (np.empty(0, dt),) * op.inputs
    try:
        fn(*empty, **values, platform=platform)
    except (TypeError, ValueError) as exc:
        raise OpUsageError(f"--attr {' '.join(texts)}: {exc}") from None
    ordered = [values[name] for name, _default, _parse in known]
    if op.name.startswith("gelu"):
        return approximate_code(ordered[0])
    packed = tuple(np.float32(v) for v in ordered)
    return packed[0] if len(packed) == 1 else packed


def _host(args, op, dt, platform):
    """The operator's host tiling of --numel/--dtype/--beta/--attr on the platform."""
    from ..tiling import compute_tiling

    if args.beta is not None and not op.has_beta:
        raise OpUsageError(f"--beta does not apply to --op {op.name}: the operator takes no beta")
    try:
        tiling = compute_tiling(args.numel, dt, args.beta, platform, op=op.name)
    except ValueError as exc:
        raise OpUsageError(f"the host tiling refuses this input: {exc}") from None
    attrs = _attributes(args, op, dt, platform)
    if attrs is None:
        return tiling
    try:
        return op.host_tiling(args.numel, dtype_info(dt), attrs, platform)
    except ValueError as exc:
        raise OpUsageError(f"the host tiling refuses this input: {exc}") from None


def _override(tiling, sets, record=None):
    """The tiling with its struct fields set from ``NAME=VALUE`` texts (and ``record`` as its struct)."""
    data = np.zeros((), dtype=tiling.data.dtype)
    data[()] = tiling.data if record is None else record
    for text in sets or ():
        name, sep, value = text.partition("=")
        if not sep or name not in data.dtype.names:
            raise OpUsageError(f"--set {text!r}: expected NAME=VALUE with NAME one of {list(data.dtype.names)}")
        ftype = data.dtype.fields[name][0]
        try:
            number = float(value) if ftype.kind == "f" else int(value, 0)
        except ValueError:
            raise OpUsageError(f"--set {text!r}: not a number") from None
        if ftype.subdtype is not None:
            raise OpUsageError(f"--set {name}: an array field is not set from the command line")
        if ftype.kind in "iu":
            info = np.iinfo(ftype)
            if not info.min <= number <= info.max:
                raise OpUsageError(f"--set {name} must be in [{info.min}, {info.max}] (a {ftype.name} field), "
                                   f"got {number}")
        data[name] = number
    return dataclasses.replace(tiling, data=data[()])


def cmd_op_tiling(args, dt, platform) -> int:
    """``swishgrad tiling --op OP`` (not swish_grad): the record, its struct and its balance."""
    from ..tiling import validate_tiling
    from ..tiling.launch import KERNEL_NAMES

    try:
        op = operator_of(args)
        if args.write is not None:
            check_output_file(args.write, "--write")
        tiling = _host(args, op, dt, platform)
    except (OpUsageError, PathArgumentError) as exc:
        print(f"swishgrad tiling: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    try:
        report, skipped = validate_tiling(tiling, args.numel, dt, platform), None
        balance = report.balance
        if balance is None:
            skipped = f"the {op.name} {KERNEL_NAMES[tiling.architecture]}'s walk is not analysed per core"
    except ValueError as exc:
        balance, skipped = None, str(exc)
    fields = tiling.as_dict()
    fields["workspaceSize"] = tiling.workspace_size
    if args.write is not None:
        try:
            with open(args.write, "wb") as f:
                f.write(tiling.tobytes())
        except OSError as exc:
            print(f"swishgrad tiling: error: --write: cannot write {args.write!r}: {exc.strerror or exc}",
                  file=sys.stderr)
            return EXIT_USAGE
    struct = op.kernels[tiling.architecture].struct
    if args.json:
        print(json.dumps({"op": op.name, "numel": args.numel, "dtype": dt.name, "platform": vars(platform),
                          "kernel": tiling.architecture, "struct": struct, "tiling": fields,
                          "struct_hex": tiling.tobytes().hex(),
                          "balance": balance.as_dict() if balance is not None else None,
                          "balance_skipped": skipped}, indent=2))
        return EXIT_OK
    print(f"{op.name} host tiling for numel={args.numel} {dt.name} on {platform} "
          f"({KERNEL_NAMES[tiling.architecture]}, {struct}):")
    width = max(len(k) for k in fields)
    for name, value in fields.items():
        print(f"  {name:<{width}} = {value}")
    print_struct_and_balance(tiling, args.write, balance, skipped)
    return EXIT_OK


def op_tiling_from_args(args, dt, platform):
    """The OpTiling ``validate --op`` checks: the host's, or --file's struct, then --set, --block-dim, --tiling-key."""
    op = operator_of(args)
    if args.numel is None:
        raise OpUsageError("--numel is required")
    host = _host(args, op, dt, platform)
    record = None
    if args.file:
        check_input_file(args.file, "--file")
        if args.block_dim is None:
            raise OpUsageError("--block-dim is required with --file (the struct does not carry it)")
        try:
            with open(args.file, "rb") as f:
                blob = f.read()
        except OSError as exc:
            raise OpUsageError(f"cannot read --file: {exc}") from None
        want = host.data.dtype.itemsize
        if len(blob) != want:
            raise OpUsageError(f"--file holds {len(blob)} bytes, but the {op.name} struct of the "
                               f"{platform.architecture} kernel ({op.kernels[platform.architecture].struct}) is "
                               f"{want} bytes")
        record = np.frombuffer(blob, dtype=host.data.dtype)[0]
    tiling = _override(host, args.set, record)
    if args.block_dim is not None:
        tiling = dataclasses.replace(tiling, block_dim=args.block_dim)
    if args.tiling_key is not None:
        tiling = dataclasses.replace(tiling, tiling_key=args.tiling_key)
    return tiling

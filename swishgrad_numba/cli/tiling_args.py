"""The argument helpers of ``swishgrad tiling``, ``validate`` and ``timeline``: number parsers for
argparse, the platform options (``--soc`` and the sizes), beta, the dtype, the host tiling's input
checks and the record printer. Split from :mod:`.tiling`."""
from __future__ import annotations

import argparse

from ..platform import ARCH_950, ASCEND950_PLATFORM, REFERENCE_PLATFORM
from ._options import OptionError, check_soc

__all__ = [
    "UsageError", "parse_int", "parse_uint", "parse_positive", "buffer_plan_option", "add_platform_options",
    "add_beta_option", "architecture_of_soc", "check_soc_option", "platform_of", "dtype_of", "HOST_OPTIONS",
    "check_host_arguments", "print_record", "rows_platform", "refuse_options", "print_struct_and_balance"]


class UsageError(Exception):
    """A bad argument found after parsing: message to stderr, exit 2."""


def parse_int(text: str) -> int:
    try:
        return int(text, 0)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None


def parse_uint(text: str) -> int:
    value = parse_int(text)
    if not 0 <= value < 1 << 64:
        raise argparse.ArgumentTypeError(f"must be in [0, 2**64), got {value}")
    return value


def parse_positive(text: str) -> int:
    value = parse_uint(text)
    if value == 0:
        raise argparse.ArgumentTypeError("must be > 0")
    return value


def buffer_plan_option(text: str) -> tuple:
    from ..tiling.buffers import parse_buffer_plan

    try:
        return parse_buffer_plan(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def add_platform_options(p) -> None:
    a2, x35 = REFERENCE_PLATFORM, ASCEND950_PLATFORM
    g = p.add_argument_group("platform (defaults: the reference platform of the kernel --soc picks)")
    g.add_argument("--ub-size", type=parse_positive, default=None,
                   help=f"unified buffer bytes (A2 {a2.ub_size}, 950 {x35.ub_size})")
    g.add_argument("--core-num", type=parse_positive, default=None,
                   help=f"cores (A2 {a2.core_num}, 950 {x35.core_num})")
    g.add_argument("--block-size", type=parse_positive, default=None, help=f"DataCopy block bytes ({a2.block_size})")
    g.add_argument("--soc", "--soc-version", dest="soc_version", default=None, metavar="SOC",
                   help=f"SoC family or chip name; it picks the kernel: {x35.soc_version} runs the Ascend 950's, any "
                        f"other the Atlas A2's (default {a2.soc_version}; validate follows the kernel of its "
                        f"--file or field options)")


def add_beta_option(p, help_text: str, default) -> None:
    p.add_argument("--beta", "--scale", "--sconf", dest="beta", type=float, default=default,
                   help=help_text + "; --scale and --sconf are other names of it")


def architecture_of_soc(args):
    """The kernel ``--soc`` picks, or None when it is not given."""
    from ..platform import Platform

    check_soc_option(args)
    if args.soc_version is None:
        return None
    return Platform(soc_version=args.soc_version).architecture


def check_soc_option(args) -> None:
    if args.soc_version is not None:
        try:
            check_soc(args.soc_version)
        except OptionError as exc:
            raise UsageError(str(exc)) from None


def platform_of(args, architecture: str):
    """The platform of the options (each already checked: sizes by argparse, --soc here)."""
    from ..platform import Platform

    check_soc_option(args)
    default = ASCEND950_PLATFORM if architecture == ARCH_950 else REFERENCE_PLATFORM
    return Platform(ub_size=args.ub_size, core_num=args.core_num, block_size=args.block_size,
                    soc_version=args.soc_version or default.soc_version)


def dtype_of(args):
    from ..dtypes import canonical_dtype

    try:
        return canonical_dtype(args.dtype, argname="--dtype")
    except (TypeError, ValueError) as exc:
        raise UsageError(str(exc)) from None


# The options that set the host tiling's arguments, for check_host_input's messages.
HOST_OPTIONS = {"numel": "--numel", "ub_size": "--ub-size", "block_size": "--block-size"}


def check_host_arguments(args, dt, platform) -> None:
    """The host tiling's refusals of --numel, --ub-size and --block-size, before it runs."""
    from ..tiling.host import check_host_input

    try:
        check_host_input(args.numel, dt, platform, HOST_OPTIONS)
    except ValueError as exc:
        raise UsageError(f"the host tiling refuses this input: {exc}") from None


def print_record(fields: dict, out) -> None:
    width = max(len(k) for k in fields)
    for name, value in fields.items():
        print(f"  {name:<{width}} = {value}", file=out)


def _model_platform(args):
    """The platform of ``--soc``: a chip of the model's SoC table brings its own vector cores and UB."""
    from ..devicetime.params import SOC_FIGURES
    from ..platform import Platform

    soc = args.soc_version
    if soc is None:   # the operator's default platform: ascend910b, or ascend950 where it has no A2 kernel
        from ..ops import OPERATORS

        op = OPERATORS.get(getattr(args, "op", "swish_grad"))
        soc = "ascend910b" if op is None else op.default_platform.soc_version
    chip = next((name for name in SOC_FIGURES if name.lower() == soc.lower()), None)
    if chip is None:
        return Platform(soc_version=soc)
    _clock, cores, ub, *_ = SOC_FIGURES[chip]
    return Platform(soc_version=chip, core_num=cores, ub_size=ub)


def platform_and_params(args):
    """(platform, model parameters) of ``--soc`` and ``--params`` (a ValueError names ``--params``):
    ``timeline``'s, for every operator (here so that the operators' own timeline commands need not import
    :mod:`.timeline`, which imports them)."""
    from .. import devicetime as dt

    platform = _model_platform(args)
    params = dt.default_params(platform)
    if args.params is not None:
        try:
            params = dt.load_params(args.params, base=params)
        except ValueError as exc:
            raise ValueError(f"--params: {exc}") from None
    return platform, params


def rows_platform(args):
    """The platform of a row operator's command (``--op rms_norm``, ``swiglu``, ...): ``--soc``'s, else the A2's."""
    from ..platform import ARCH_A2

    return platform_of(args, architecture_of_soc(args) or ARCH_A2)


def refuse_options(args, names, op: str) -> None:
    """UsageError for the first of the option ``names`` given that ``--op op`` does not take."""
    for name in names:
        if getattr(args, name.lstrip("-").replace("-", "_"), None) not in (None, False, []):
            raise UsageError(f"{name} does not apply to --op {op}")


def print_struct_and_balance(tiling, written_to, balance, skipped) -> None:
    """The end of ``tiling``'s text report: the struct's bytes, where --write put them, the load balance."""
    print(f"  struct ({len(tiling.tobytes())} bytes) = {tiling.tobytes().hex()}")
    if written_to is not None:
        print(f"  written to {written_to}")
    if balance is None:
        print(f"load balance: skipped: {skipped}")
        return
    print("load balance:")
    for line in balance.format().splitlines():
        print("  " + line)

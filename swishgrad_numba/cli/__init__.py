"""``swishgrad`` command line: one module per subcommand group.

Each module in :data:`SUBCOMMAND_MODULES` exposes ``register(subparsers)``,
which adds its subcommands and sets ``func`` (taking the parsed arguments,
returning an exit code) on each.
"""
from __future__ import annotations

import argparse
import importlib
import sys

SUBCOMMAND_MODULES = (
    "swishgrad_numba.cli.demo",
    "swishgrad_numba.cli.tiling",
    "swishgrad_numba.cli.bench",
    "swishgrad_numba.cli.compare",
    "swishgrad_numba.cli.timeline",
    "swishgrad_numba.cli.ops",
    "swishgrad_numba.cli.kernel",
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="swishgrad",
        description="Bit-exact CPU emulation of the Ascend SwishGrad kernel.",
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in SUBCOMMAND_MODULES:
        importlib.import_module(name).register(subparsers)
    return parser


def main(argv=None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except BrokenPipeError:  # output piped into e.g. `head`: stop quietly
        sys.stderr.close()
        return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

"""Placeholder: the 'tiling' subcommands are being written (see the open issues)."""


def register(subparsers):
    pass

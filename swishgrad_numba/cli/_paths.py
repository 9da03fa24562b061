"""Checks of the command line's file arguments, made before any work is done.

A command that would only find out at the end of a long run that it cannot
write its output, or that would block on a FIFO, checks its paths first and
exits 2 with a message naming the option.
"""
from __future__ import annotations

import errno
import os
import stat


class PathArgumentError(ValueError):
    """A file argument that cannot be used; the message names the option and the reason."""


def check_output_file(path: str, argname: str) -> None:
    """Refuse an output path that cannot be written, before the work that produces the output.

    Refused: an empty path, a path naming a folder (an existing directory, or
    ending in a separator), a path whose folder does not exist or is not a
    folder, and, as far as :func:`os.access` can tell, an existing file or a
    folder without write permission. An existing file that is not a directory
    (a regular file, ``/dev/null``, a pipe from process substitution) is
    accepted: it is written over as before.

    Raises
    ------
    PathArgumentError
        With a message naming ``argname``, the path and the reason.
    """
    def refuse(reason: str):
        return PathArgumentError(f"{argname}: cannot write {path!r}: {reason}")

    if not path:
        raise PathArgumentError(f"{argname}: the path is empty")
    if path.endswith(os.sep) or (os.altsep and path.endswith(os.altsep)):
        raise refuse("the path names a folder, not a file")
    try:
        st = os.stat(path)
    except OSError as exc:
        if exc.errno not in (errno.ENOENT, errno.ENOTDIR):
            raise refuse(exc.strerror or str(exc)) from None
        st = None
    if st is not None:
        if stat.S_ISDIR(st.st_mode):
            raise refuse("it is a directory")
        if not os.access(path, os.W_OK):
            raise refuse("permission denied")
        return
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.exists(folder):
        raise refuse(f"the folder {folder!r} does not exist")
    if not os.path.isdir(folder):
        raise refuse(f"{folder!r} is not a folder")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise refuse(f"permission denied in the folder {folder!r}")


def check_input_file(path: str, argname: str) -> None:
    """Refuse an input path that is missing or not a regular file (a directory, a FIFO, a device).

    Reading a FIFO with no writer blocks forever, and a device can be
    endless, so only regular files are read.

    Raises
    ------
    PathArgumentError
        With a message naming ``argname``, the path and the reason.
    """
    try:
        st = os.stat(path)
    except OSError as exc:
        if exc.errno in (errno.ENOENT, errno.ENOTDIR):
            raise PathArgumentError(f"{argname}: file {path!r} does not exist") from None
        raise PathArgumentError(f"{argname}: cannot read {path!r}: {exc.strerror or exc}") from None
    if not stat.S_ISREG(st.st_mode):
        raise PathArgumentError(f"{argname}: {path!r} is not a regular file")

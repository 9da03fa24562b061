"""An op_kernel folder's files: the entry ``.cpp``, the local headers it includes, parsed.

Headers that are not in the folder (``kernel_operator.h``, ``atvoss/...``) are
the library's; the reader knows what it needs of them by name. Only regular
files inside the folder are read (:func:`read_regular`: never a FIFO, a device
or a symlink, at most :data:`.limits.MAX_FILE_BYTES`); an ``#include`` of an
absolute path or of one that leaves the folder is refused, naming the path only.
"""
from __future__ import annotations

import os
import re
import stat
from pathlib import Path

from .declarations import parse_file
from .errors import KernelSourceError
from .limits import MAX_FILE_BYTES, MAX_INCLUDE_DEPTH, MAX_TOKENS
from .preprocess import Preprocessor
from .symbols import Symbols

__all__ = ["Sources", "load", "read_regular", "is_entry_text"]


class Sources:
    """The parsed files (``files``: path -> declarations) and their :class:`.symbols.Symbols`;
    ``consulted``: the macros whose value a preprocessor condition read."""

    def __init__(self, entry: Path, files: dict, symbols: Symbols, consulted=frozenset()):
        self.entry, self.files, self.symbols, self.consulted = entry, files, symbols, consulted


def read_regular(path, at=None) -> str:
    """The text of ``path`` if it is a regular file (not a link, FIFO or device) of at most
    :data:`.limits.MAX_FILE_BYTES`; else a KernelSourceError at ``at`` (file, line), or at the path."""
    file, line = at if at is not None else (str(path), 0)
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        why = "a symbolic link" if os.path.islink(path) else exc.strerror or "cannot be opened"
        raise KernelSourceError(file, line, f"file {Path(path).name}", f"not read: {why}") from None
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise KernelSourceError(file, line, f"file {Path(path).name}", "not a regular file")
        chunks, size = [], 0
        while size <= MAX_FILE_BYTES:
            chunk = os.read(fd, MAX_FILE_BYTES + 1 - size)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > MAX_FILE_BYTES:
            raise KernelSourceError(file, line, f"file {Path(path).name}", f"larger than {MAX_FILE_BYTES} bytes")
    finally:
        os.close(fd)
    return b"".join(chunks).decode("utf-8", errors="replace")


def is_entry_text(text: str) -> bool:
    """Whether a ``.cpp`` file's text declares a kernel: ``__global__``, or ops-nn's ``KERNEL_API`` (its
    ``inc/platform.h`` defines it as ``extern "C" __global__ __aicore__``)."""
    return "__global__" in text or re.search(r"\bKERNEL_API\b", text) is not None


def load(folder, entry: str | None = None, defines: dict | None = None, consulted: set | None = None,
         root=None) -> Sources:
    """Read ``folder``'s entry file (``entry``, or the one ``.cpp`` holding ``__global__``) and its headers,
    preprocessed for a device build with ``defines`` (:mod:`.preprocess`); ``consulted``, if given, is
    filled with the macros the conditions read (even where the read is refused). ``root`` (default
    ``folder``; the operator folder where that was given) bounds the ``#include``s: a relative one
    (``../inc/platform.h``) is looked up beside its file, then in ``folder``, and read only where it lies
    inside ``root``; one inside that is not there is a library header, one that leaves it is refused."""
    folder = Path(folder)
    if not folder.is_dir():
        raise KernelSourceError(str(folder), 0, "the folder", "not a directory")
    if entry is not None:
        if Path(entry).is_absolute() or not _inside(folder, folder / entry):
            raise KernelSourceError(str(folder), 0, f"the entry file {entry!r}", "not a file of the folder")
        path = folder / entry
        if not path.is_file():
            raise KernelSourceError(str(path), 0, "the entry file", "not found")
    else:
        entries = sorted(p for p in folder.glob("*.cpp") if is_entry_text(read_regular(p)))
        if len(entries) != 1:
            raise KernelSourceError(str(folder), 0, f"{len(entries)} entry files",
                                    f"name one with entry= ({', '.join(p.name for p in entries) or 'none'})")
        path = entries[0]
    reader = _Reader(folder, defines, Path(root) if root is not None else folder)
    if consulted is not None:
        reader.pp.consulted = consulted
    reader.read(path, 0, None)
    return Sources(path, reader.files, reader.symbols, frozenset(reader.pp.consulted))


def _inside(folder: Path, path: Path) -> bool:
    try:
        path.resolve().relative_to(folder.resolve())
        return True
    except (ValueError, OSError, RuntimeError):
        return False


class _Reader:
    """Reads a file and, at each live ``#include``, the header (depth first): files are parsed
    headers first, as the compiler sees their declarations."""

    def __init__(self, folder: Path, defines, root: Path):
        self.folder, self.files, self.symbols, self.seen = folder, {}, Symbols(), set()
        self.root = root if _inside(root, folder) else folder
        self.pp, self.tokens = Preprocessor(defines), 0

    def read(self, path: Path, depth: int, at):
        key = path.resolve()
        if key in self.seen:
            return
        self.seen.add(key)
        text = read_regular(path, at)

        def include(name, tok):
            where = (tok.file, tok.line)
            if Path(name).is_absolute() or name.startswith(("/", "\\")):
                raise KernelSourceError(*where, f'#include "{name}"', "an absolute path: only the kernel "
                                        "folder's own headers are read")
            for base in (path.parent, self.folder):
                candidate = base / name
                if not _inside(self.root, candidate):
                    raise KernelSourceError(*where, f'#include "{name}"', "a path outside the kernel folder")
                try:
                    present = candidate.exists() or candidate.is_symlink()
                except OSError as exc:
                    raise KernelSourceError(*where, f'#include "{name[:60]}"', exc.strerror or "cannot be looked up") \
                        from None
                if present:
                    if depth + 1 > MAX_INCLUDE_DEPTH:
                        raise KernelSourceError(*where, f'#include "{name}"',
                                                f"includes nested more than {MAX_INCLUDE_DEPTH} deep")
                    self.read(candidate, depth + 1, where)
                    return
            # not in the folder: a library header (kernel_operator.h), known by name

        saved, self.pp.include = self.pp.include, include
        try:
            tokens = self.pp.run(text, str(path)).tokens
        finally:
            self.pp.include = saved
        self.tokens += len(tokens)
        if self.tokens > 4 * MAX_TOKENS:
            raise KernelSourceError(str(path), 0, "the kernel's sources", f"more than {4 * MAX_TOKENS} tokens")
        items = parse_file(tokens)
        self.files[path] = items
        self.symbols.add(items)

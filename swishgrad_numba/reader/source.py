"""An op_kernel folder's files: the entry ``.cpp``, the local headers it includes, parsed.

Headers that are not in the folder (``kernel_operator.h``, ``atvoss/...``) are
the library's; the reader knows what it needs of them by name.
"""
from __future__ import annotations

from pathlib import Path

from .declarations import parse_file
from .errors import KernelSourceError
from .preprocess import preprocess
from .symbols import Symbols

__all__ = ["Sources", "load"]


class Sources:
    """The parsed files (``files``: path -> declarations) and their :class:`.symbols.Symbols`."""

    def __init__(self, entry: Path, files: dict, symbols: Symbols):
        self.entry, self.files, self.symbols = entry, files, symbols


def load(folder, entry: str | None = None) -> Sources:
    """Read ``folder``'s entry file (``entry``, or the one ``.cpp`` holding ``__global__``) and its headers."""
    folder = Path(folder)
    if not folder.is_dir():
        raise KernelSourceError(str(folder), 0, "the folder", "not a directory")
    if entry is not None:
        path = folder / entry
        if not path.is_file():
            raise KernelSourceError(str(path), 0, "the entry file", "not found")
    else:
        entries = sorted(p for p in folder.glob("*.cpp") if "__global__" in p.read_text(errors="replace"))
        if len(entries) != 1:
            raise KernelSourceError(str(folder), 0, f"{len(entries)} entry files",
                                    f"name one with entry= ({', '.join(p.name for p in entries) or 'none'})")
        path = entries[0]
    files, macros, symbols = {}, {}, Symbols()
    _read(path, folder, files, macros, symbols, set())
    return Sources(path, files, symbols)


def _read(path: Path, folder: Path, files, macros, symbols, seen):
    if path in seen:
        return
    seen.add(path)
    text = path.read_text(errors="replace")
    for name, _ in preprocess(text, str(path), dict(macros)).includes:
        for base in (path.parent, folder):
            if (base / name).is_file():
                _read(base / name, folder, files, macros, symbols, seen)
                break
    items = parse_file(preprocess(text, str(path), macros).tokens)
    files[path] = items
    symbols.add(items)

"""The one error the reader raises: a construct it will not read, with where it is."""
from __future__ import annotations

__all__ = ["KernelSourceError", "TooDeep"]


class KernelSourceError(ValueError):
    """A kernel source the reader refuses rather than read into a wrong program.

    ``file`` and ``line`` say where (``line`` 0: the whole file or folder),
    ``construct`` names what (``"ReinterpretCast"``, ``"#ifdef"``, ``"loop
    in Compute"``, ``"unknown call Foo"``), ``detail`` says why.
    """

    def __init__(self, file: str, line: int, construct: str, detail: str = ""):
        self.file, self.line, self.construct, self.detail = str(file), int(line), construct, detail
        where = f"{self.file}:{self.line}" if self.line else self.file
        super().__init__(f"{where}: cannot read {construct}" + (f": {detail}" if detail else ""))


class TooDeep(KernelSourceError):
    """Nesting past a limit (:mod:`.limits`): never taken back by the parser's look-ahead."""

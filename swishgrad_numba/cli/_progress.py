"""The command line's progress bars: ``tqdm`` on stderr, shown only on a terminal.

A long command (``bench``, ``validate --sweep``) asks :func:`progress_bar`
for a callback and hands it to the library, which calls it as
``progress(done, total[, label])``. Off (None) with ``--no-progress`` or
when stderr is not a terminal, so piped and captured output stays clean.
"""
from __future__ import annotations

import sys

__all__ = ["Progress", "progress_bar"]


class Progress:
    """A ``progress(done, total, label=None)`` callback driving ``tqdm`` bars on
    ``stream``: a new bar whenever the total changes (a new phase)."""

    def __init__(self, unit: str, stream=None):
        self.unit = unit
        self.stream = sys.stderr if stream is None else stream
        self._bar = None

    def __call__(self, done: int, total: int, label: str | None = None) -> None:
        from tqdm import tqdm

        if self._bar is None or self._bar.total != total:
            self.close()
            self._bar = tqdm(total=total, unit=self.unit, file=self.stream, dynamic_ncols=True)
        if label is not None:
            self._bar.set_description_str(label, refresh=False)
        self._bar.update(done - self._bar.n)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None


def progress_bar(no_progress: bool, unit: str) -> Progress | None:
    """The callback for a long command, or None with ``--no-progress`` or when stderr is no terminal."""
    stream = sys.stderr
    if no_progress or not getattr(stream, "isatty", lambda: False)():
        return None
    return Progress(unit, stream)

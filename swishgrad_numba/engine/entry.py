"""A jitted function's compiled entry point, kept per the forms of the arrays that vary between calls (issue 39).

Numba's dispatcher types every argument at every call. For a planned hot launch (fifteen arguments, one a
NamedTuple whose type Numba works out in Python) that costs 2-3 us warm and about 20 us cold, when a launch
that streamed megabytes has just evicted the caches; the entry point saves about 10 us of a cold call
(bench/RESULTS.md, entry). Most of a planned launch's
arguments are the same objects at every call; only its arrays' memory changes. :class:`Entries` keeps, per
the forms of those arrays (:func:`array_form`: everything Numba's type of an array reads), the compiled
overload the dispatcher chose for them, and calls it straight. The first call of a form goes through the
dispatcher (compiling or reading back from the cache as usual), and so does every call of a form whose
overload is not found: the entry point is a shortcut, never a second way to type.
"""
from __future__ import annotations

from numba.core.typing.typeof import Purpose, typeof

__all__ = ["Entries", "array_form"]


def array_form(a) -> tuple:
    """What Numba's type of array ``a`` is made of: its class, dtype, rank, layout (C, F or any), writeability
    and alignment."""
    flags = a.flags
    return type(a), a.dtype, a.ndim, flags.c_contiguous, flags.f_contiguous, flags.writeable, flags.aligned


class Entries:
    """``dispatcher``'s entry points by the forms of the arrays that vary between calls.

    ``call(args, varying)`` runs ``dispatcher(*args)``. The caller promises that ``args`` differ between
    calls only in the arrays ``varying`` (each an argument or an element of a tuple argument; any other
    argument the same object, or one of the same Numba type, at every call), so that the forms of ``varying``
    decide the overload.
    """

    def __init__(self, dispatcher):
        self._dispatcher = dispatcher
        self._kept: dict = {}

    def call(self, args: tuple, varying: tuple):
        key = tuple(array_form(a) for a in varying)
        entry = self._kept.get(key)
        if entry is not None:
            return entry(*args)
        got = self._dispatcher(*args)
        self._kept[key] = self._entry(args)
        return got

    def _entry(self, args: tuple):
        """The entry point of the overload the dispatcher has for ``args``' types, or the dispatcher itself."""
        try:
            sig = tuple(typeof(a, Purpose.argument) for a in args)
        except ValueError:   # a value Numba cannot type: the dispatcher says what it says
            return self._dispatcher
        cres = getattr(self._dispatcher, "overloads", {}).get(sig)
        return self._dispatcher if cres is None else cres.entry_point

    def __len__(self) -> int:
        return len(self._kept)


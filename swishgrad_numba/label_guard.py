"""Keep Numba's block-label counter bounded across the compilations of one process.

Numba numbers the basic blocks of every function it compiles from one
process-wide counter (``numba.core.ir_utils._the_max_label``). Inlining a
function at IR level (``inline="always"``) offsets the callee's labels by
the counter; when the callee has itself inlined a function with branches,
its labels are already near the counter, so the counter doubles. The
program semantics, the walk and the exact Exp are all built that way, so
every compilation doubles it a few to a few dozen times. With an empty
cache, a process that compiles a few hundred kernels (the test suite, or a
long session trying many operators) reaches labels of a thousand digits,
and LLVM refuses the module: ``LLVM IR parsing error ... name is too long``.

The counter only has to stay above the labels of the function being
compiled. Between two top-level compilations nothing is being compiled, so
this module sets it back to 0 then, the state of a fresh process. It
listens to Numba's public ``"numba:compile"`` event, which starts and ends
inside Numba's compiler lock: no other thread compiles while the counter is
reset, and a nested compilation (a callee typed during its caller's
compile) does not count as the end.
"""
from __future__ import annotations

from numba.core import event, ir_utils

__all__ = ["RESET_ABOVE", "install"]

#: The counter is reset once it passes this (a compile adds at most a few
#: dozen doublings to it, far below LLVM's 1024-character names).
RESET_ABOVE = 1 << 32


class _ResetAfterTopLevelCompile(event.Listener):
    def __init__(self) -> None:
        self.depth = 0   # touched only under Numba's compiler lock

    def on_start(self, ev) -> None:
        self.depth += 1

    def on_end(self, ev) -> None:
        self.depth -= 1
        if self.depth == 0:
            counter = ir_utils._the_max_label
            if counter._value > RESET_ABOVE:
                counter._value = 0


_LISTENER = _ResetAfterTopLevelCompile()
_installed = False


def install() -> bool:
    """Install the listener once per process (the package's import does it). A Numba without the counter
    (a later release may rename or fix it) gets no listener: returns False."""
    global _installed
    counter = getattr(ir_utils, "_the_max_label", None)
    if counter is None or not isinstance(getattr(counter, "_value", None), int):
        return False
    if not _installed:
        event.register("numba:compile", _LISTENER)
        _installed = True
    return True

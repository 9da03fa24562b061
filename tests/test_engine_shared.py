"""engine.shared: the machine and the launches called from Python, read back from the disk cache without Numba's
registry refresh (a kernel's first call in a fresh process), and the refresh kept where an entry needs it."""
import os
import subprocess
import sys
import types

import numpy as np

from swishgrad_numba.engine import opcodes as O
from swishgrad_numba.engine import shared
from swishgrad_numba.engine.runner import run_stream

_CHILD = r"""
import numpy as np
from numba.core.imputils import builtin_registry
from numba.core.registry import cpu_target
from swishgrad_numba.engine import opcodes as O
from swishgrad_numba.engine.runner import run_stream

code = np.zeros((2, 8), np.int64)
code[0, :3] = (O.OPCODES["MULS"], 8, 0)
code[1, :4] = (O.OPCODES["ADD"], 16, 8, 0)
x = np.linspace(-3, 3, 24, dtype=np.float32)
out = np.empty_like(x)
run_stream(code, np.array([1.7], np.float32), None, (x,), out, 8, 24, 16)
# the machine and the launch were read back (not compiled) and nothing installed Numba's registries
assert builtin_registry not in cpu_target.target_context._registries
import numba
# a compilation after them refreshes for itself
twice = numba.njit(cache=False)(lambda a: [v * 2 for v in a])
assert twice(np.arange(3.0)) == [0.0, 2.0, 4.0]
assert builtin_registry in cpu_target.target_context._registries
print(out.view(np.uint32).tolist())
"""


def test_a_fresh_process_reads_the_machine_back_without_numba_refresh_and_compiles_after():
    code = np.zeros((2, 8), np.int64)
    code[0, :3] = (O.OPCODES["MULS"], 8, 0)
    code[1, :4] = (O.OPCODES["ADD"], 16, 8, 0)
    x = np.linspace(-3, 3, 24, dtype=np.float32)
    run_stream(code, np.array([1.7], np.float32), None, (x,), np.empty_like(x), 8, 24, 16)   # in the cache
    done = subprocess.run([sys.executable, "-c", _CHILD], capture_output=True, text=True, timeout=600,
                          env=dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path)))
    assert done.returncode == 0, done.stderr[-2000:]
    want = x * np.float32(1.7) + x       # MULS then ADD, each rounded to float32
    assert done.stdout.split("\n")[-2] == str(want.view(np.uint32).tolist())


class _Context:
    def __init__(self):
        self.refreshed = 0

    def refresh(self):
        self.refreshed += 1


def test_an_entry_naming_a_symbol_only_the_refresh_registers_is_read_back_after_it():
    rebuilt = []
    impl = types.SimpleNamespace(reduce=lambda cres: cres, rebuild=lambda ctx, payload: rebuilt.append(payload)
                                 or types.SimpleNamespace(library=types.SimpleNamespace()))
    dispatcher = types.SimpleNamespace(_cache=types.SimpleNamespace(_impl=impl), py_func=len)
    shared.cached_unlinked(dispatcher, "test")
    for object_code, refreshed in ((b"\x7fELF call f", 0), (b"\x7fELF _numba_hashsecret_siphash_k0", 1)):
        ctx = _Context()
        payload = (("lib", "object", (object_code, b"")), "fndesc")
        impl.rebuild(ctx, payload)
        assert ctx.refreshed == refreshed and rebuilt[-1] is payload
    ctx = _Context()
    impl.rebuild(ctx, (("lib", "bitcode", b""), "fndesc"))   # not object code: as Numba does
    assert ctx.refreshed == 1

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


_SETUP = r"""
import numpy as np
from swishgrad_numba.engine import launch, opcodes as O
from swishgrad_numba.engine.launch import frozen
from swishgrad_numba.engine.runner import _NO_TABLES
from swishgrad_numba.kernel.walk import PIECE_DTYPE
code = np.zeros((1, 8), np.int64)
code[0, :3] = (O.OPCODES["MULS"], 8, 0)
x = np.arange(8, dtype=np.float32)
out = np.empty_like(x)
raw, inputs, wide, raw_out, numel = launch.raw_args((x,), out)
args = (frozen(code), frozen(np.array([2.0], np.float32)), _NO_TABLES, raw, inputs, raw_out, numel,
        frozen(np.array([(0, 1, 0, 1, 8, 8)], dtype=PIECE_DTYPE)), 0, 1, 8, 16, 8, False)
"""
_PASS_ALONE = _SETUP + r"""
import numba
# compiles launch._run_pieces (its dispatcher caches it), not the bin
first = numba.njit(cache=False)(lambda c, s, t, i, k, o, n, p, a, b, g, r, w, m: launch._pieces_wide(
    c, s, t, i, k, o, n, p, a, b, g, r, w, m))
first(*args)
assert out.tolist() == (2 * x).tolist() and not launch._run_bin_wide.signatures
"""
_BIN_OVER_THE_PASS_READ_BACK = _SETUP + r"""
launch.ready()
launch.run_bin(*args[:5], True, *args[5:])
assert out.tolist() == (2 * x).tolist()
assert launch._run_pieces.stats.cache_hits.total() == 1 and launch._run_bin_wide.stats.cache_misses.total() == 1
"""
_BIN_READ_BACK_BEFORE_THE_MACHINE = _SETUP + r"""
from swishgrad_numba.engine import machine
assert machine.MACHINE._address is None
launch.run_bin(*args[:5], True, *args[5:])     # no launch.ready(): the bin's reload hook registers the machine
lib = machine.execute.overloads[machine.MACHINE.signature.args].library
# the machine read back with no code to link: its entry names the symbols the object code defines, no function
assert machine.execute.stats.cache_hits.total() == 1 and lib._shared_module is not None
assert not list(lib._shared_module.functions), [f.name for f in lib._shared_module.functions]
assert lib._codegen._engine.is_symbol_defined(machine.execute.overloads[
    machine.MACHINE.signature.args].fndesc.llvm_cfunc_wrapper_name)
import numba
try:   # a jitted function calling the machine's dispatcher itself is refused, naming it (no code to link)
    numba.njit(cache=False)(lambda c, s, t, a, n, sat: machine.execute(c, s, t, a, n, sat))(
        frozen(code), frozen(np.array([2.0], np.float32)), _NO_TABLES, np.zeros(8, np.float32), 8, False)
    raise AssertionError("linked")
except RuntimeError as exc:
    assert "swishgrad_engine_machine_v1" in str(exc) and "cannot be linked" in str(exc), exc
print(out.tolist(), launch._run_bin_wide.stats.cache_hits.total())
"""


def test_a_launch_read_back_registers_the_machine_itself_also_when_compiled_over_a_pass_read_back(tmp_path):
    """A launch read from the disk cache by a process that never called launch.ready() still finds the machine:
    its reload hook registers it (a missing symbol is a call of address 0). The launch here is a bin compiled fresh
    in a process that read its pass (which calls the machine) back from the cache: it inherits the pass's hook
    (HooksKeptImpl). The machine itself is read back with no code to link, and refuses to be linked."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path), NUMBA_CACHE_DIR=str(tmp_path))
    for script in (_PASS_ALONE, _BIN_OVER_THE_PASS_READ_BACK, _BIN_READ_BACK_BEFORE_THE_MACHINE):
        done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=600, env=env)
        assert done.returncode == 0, (done.returncode, done.stderr[-2000:])
    assert done.stdout.split() == ["[0.0,", "2.0,", "4.0,", "6.0,", "8.0,", "10.0,", "12.0,", "14.0]", "1"]

"""Which compilations a cold run spends its time on: each jitted function's compile time, its own part.

    python bench/cold_units.py [--top 25] [--machine]

Runs :mod:`engine_compare`'s ``cold`` calls (every operator, kernel and dtype once at 4,096 elements, then
the row machine's operators) in a fresh process with an empty ``NUMBA_CACHE_DIR``, or with ``--machine``
only the compile of the engine's machine, and listens to Numba's ``numba:compile`` events: a function's
*own* time is its compile less the compiles of the functions it called that compiled meanwhile (a callee
inlined at Numba IR level is typed, and timed, as a compile of its own too). Also the time under Numba's
LLVM lock (``numba:llvm_lock``: LLVM's optimisation and code generation). A report, not a test.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

_LISTEN = r"""
import json, sys, time
from numba.core import event
stack, rows, llvm = [], [], [0.0, None]

class Compiles(event.Listener):
    def on_start(self, ev):
        stack.append([time.perf_counter(), 0.0, ev.data])

    def on_end(self, ev):
        t0, inner, data = stack.pop()
        took = time.perf_counter() - t0
        if stack:
            stack[-1][1] += took
        fn = getattr(data["dispatcher"], "py_func", None)
        rows.append((f"{fn.__module__}.{fn.__qualname__}" if fn else str(data["dispatcher"]), took, took - inner))

class Llvm(event.Listener):
    def on_start(self, ev):
        llvm[1] = time.perf_counter()

    def on_end(self, ev):
        llvm[0] += time.perf_counter() - llvm[1]

event.register("numba:compile", Compiles())
event.register("numba:llvm_lock", Llvm())
t = time.perf_counter()
exec(compile(sys.argv[1], "cold", "exec"), {"__name__": "cold"})
sys.stdout.flush()
print("\nUNITS " + json.dumps({"wall": time.perf_counter() - t, "llvm": llvm[0], "rows": rows}))
"""

_MACHINE = "from swishgrad_numba.engine import machine\nmachine.MACHINE.ensure()\n"


def units(body: str) -> dict:
    """``body`` run in a fresh process with an empty cache, under the listeners."""
    with tempfile.TemporaryDirectory(prefix="cold-units-") as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache,
                   PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
        done = subprocess.run([sys.executable, "-c", _LISTEN, body], env=env, capture_output=True, text=True,
                              check=True)
    return json.loads(done.stdout.split("\nUNITS ", 1)[1])


def main(argv=None):
    from engine_compare import _COLD

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--top", type=int, default=25)
    ap.add_argument("--machine", action="store_true", help="only the engine's machine")
    args = ap.parse_args(argv)
    r = units(_MACHINE if args.machine else _COLD)
    by_fn = {}
    for name, took, own in r["rows"]:
        n, total_own, most = by_fn.get(name, (0, 0.0, 0.0))
        by_fn[name] = (n + 1, total_own + own, max(most, took))
    print(f"{sum(v[1] for v in by_fn.values()):.1f} s of compiles ({r['llvm']:.1f} s under the LLVM lock), "
          f"{r['wall']:.1f} s wall; load average {os.getloadavg()[0]:.1f} at the end")
    print(f"{'own s':>8}{'longest s':>11}{'compiles':>10}  function")
    for name, (n, own, most) in sorted(by_fn.items(), key=lambda kv: -kv[1][1])[:args.top]:
        print(f"{own:8.2f}{most:11.2f}{n:10d}  {name}")


if __name__ == "__main__":
    main()

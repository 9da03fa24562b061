"""Measurements that need a fresh interpreter: the cold start, and the memory one call takes.

Each runs a short script in a new Python process (this interpreter, the
package this module belongs to first on ``PYTHONPATH``) and reads the JSON
line it prints. The platform travels as its fields.
"""
from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
import time
from pathlib import Path

from ..dtypes import dtype_info
from ..platform import REFERENCE_PLATFORM, Platform

__all__ = ["COLD_START_SIZE", "MEMORY_SIZE", "cold_start", "memory_growth"]

#: Size of the first call of the cold start (issue 14: 2^20).
COLD_START_SIZE = 1 << 20
#: Size of the call whose memory is measured (issue 14: 2^24).
MEMORY_SIZE = 1 << 24

_ROOT = Path(__file__).resolve().parents[2]  # the folder holding the package

# Shared head of the scripts: the platform from argv[3] (its fields as JSON).
_HEAD = r"""
import json, sys, time
t0 = time.perf_counter()
import numpy as np
import swishgrad_numba
from swishgrad_numba import Platform
t_import = time.perf_counter()
name, n, platform = sys.argv[1], int(sys.argv[2]), Platform(**json.loads(sys.argv[3]))
"""

_COLD_SCRIPT = _HEAD + r"""
from swishgrad_numba.dtypes import canonical_dtype
dt = canonical_dtype(name)
g = np.linspace(-5, 5, n, dtype=np.float32).astype(dt)
x = g[::-1].copy()
t_inputs = time.perf_counter()
out = swishgrad_numba.swish_backward(g, x, 1.1, platform=platform)
t_call = time.perf_counter()
assert out.dtype == dt and out.shape == (n,)
print(json.dumps({"import_s": t_import - t0, "first_call_s": t_call - t_inputs,
                  "total_s": (t_import - t0) + (t_call - t_inputs)}))
"""

# The inputs are made in chunks (make_inputs), so the high-water mark before
# the call is about the resident size; a warm-up call of the same launch into
# ``out`` loads or compiles its machine code (the hot tier's block of a large
# launch, which an empty cache compiles: tens of MB of LLVM's), builds the
# 16-bit table, starts the thread pool and makes ``out``'s pages resident: the
# growth is what the call itself holds at its peak (its local buffers, any
# temporary).
# On Linux the high-water mark is reset right before the call (clear_refs, 5)
# and read from /proc/self/status (VmHWM); elsewhere getrusage's ru_maxrss is
# read before and after.
_MEMORY_SCRIPT = _HEAD + r"""
import numba
from swishgrad_numba.benchmark.inputs import make_inputs

def status_kib(key):
    for line in open("/proc/self/status"):
        if line.startswith(key + ":"):
            return int(line.split()[1])

def peak_bytes():
    import resource
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak if sys.platform == "darwin" else peak * 1024

g, x = make_inputs(n, name)
out = np.empty_like(x)
swishgrad_numba.swish_backward(g, x, 1.1, out=out, platform=platform)
try:
    with open("/proc/self/clear_refs", "w") as fh:
        fh.write("5")
    method = "VmHWM after clear_refs"
    before = status_kib("VmRSS") * 1024
except OSError:
    method = "ru_maxrss"
    before = peak_bytes()
swishgrad_numba.swish_backward(g, x, 1.1, out=out, platform=platform)
after = status_kib("VmHWM") * 1024 if method != "ru_maxrss" else peak_bytes()
print(json.dumps({"method": method, "before_bytes": before, "peak_bytes": after,
                  "threads": numba.get_num_threads(), "output_bytes": out.nbytes}))
"""


def _platform_fields(platform) -> str:
    if platform is not None and not isinstance(platform, Platform):
        raise TypeError(f"platform must be a Platform, got {type(platform).__name__}")
    return json.dumps(dataclasses.asdict(platform or REFERENCE_PLATFORM))


def _check_count(value, argname: str) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{argname} must be an int >= 1, got {value!r}")


def _run_fresh(script: str, args, timeout: float) -> dict:
    """Run ``script`` in a fresh interpreter and return the JSON of its last line, plus ``process_s``."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(_ROOT) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", script, *args], env=env, capture_output=True, text=True,
                          timeout=timeout)
    elapsed = time.perf_counter() - t0
    if proc.returncode != 0:
        raise RuntimeError(f"fresh-process measurement failed ({proc.returncode}):\n{proc.stderr[-2000:]}")
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    result["process_s"] = elapsed
    return result


def cold_start(dtype="float32", size: int = COLD_START_SIZE, runs: int = 2, timeout: float = 300.0,
               platform: Platform | None = None) -> dict:
    """Import plus first ``size``-element call in fresh interpreters.

    Runs ``runs`` fresh processes one after the other (the first warms the
    on-disk cache if it is cold) and reports the last: ``total_s`` is the
    import of numpy and the package plus the first call (input creation
    excluded); ``process_s`` is the whole process as the parent saw it,
    interpreter start-up included.
    """
    info = dtype_info(dtype)
    _check_count(runs, "runs")
    _check_count(size, "size")
    fields = _platform_fields(platform)
    results = [_run_fresh(_COLD_SCRIPT, [info.name, str(size), fields], timeout) for _ in range(runs)]
    return {"dtype": info.name, "size": size, "runs": results, **results[-1]}


def memory_growth(dtype="float32", size: int = MEMORY_SIZE, timeout: float = 300.0,
                  platform: Platform | None = None) -> dict:
    """Peak memory one ``swish_backward(g, x, out=out)`` call adds, measured in a fresh interpreter.

    Before the call the inputs exist and the same call has run once into ``out``
    (its code loaded or compiled, ``out``'s pages resident); ``growth_bytes`` is the process's peak resident size
    during the call less its resident size just before: what the call holds
    beyond its arguments (its per-thread local buffers, and any temporary it
    made). Compare it with ``output_bytes``: a call that copied its output or
    an input would grow by about that much.

    Returns
    -------
    dict
        ``dtype``, ``size``, ``threads`` (Numba's in the child), ``method``
        (``"VmHWM after clear_refs"`` on Linux, else ``"ru_maxrss"``),
        ``before_bytes``, ``peak_bytes``, ``growth_bytes``, ``output_bytes``,
        ``kernel``, ``soc``, ``process_s``.
    """
    info = dtype_info(dtype)
    _check_count(size, "size")
    fields = _platform_fields(platform)
    res = _run_fresh(_MEMORY_SCRIPT, [info.name, str(size), fields], timeout)
    launched = platform or REFERENCE_PLATFORM
    return {"dtype": info.name, "size": size, **res, "growth_bytes": res["peak_bytes"] - res["before_bytes"],
            "kernel": launched.architecture, "soc": launched.soc_family}

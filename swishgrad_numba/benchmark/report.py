"""What a run prints: the machine, the comparison table, the thread scaling and the fresh-process figures."""
from __future__ import annotations

import math
import os
import platform as _platform
import subprocess
from pathlib import Path

import numba
import numpy as np

from .. import runtime
from . import peers
from .inputs import BETA_NUMPY, BETA_TORCH
from .runner import find_row
from .verdicts import memory_allowance

__all__ = ["format_cold_start", "format_memory", "format_scaling", "format_table", "machine_info"]

_ROOT = Path(__file__).resolve().parents[2]  # the folder holding the package
_MIB = 1 << 20


def machine_info() -> dict:
    """CPU model, core count, library versions and the git commit measured."""
    model = _platform.processor() or _platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    info = {"cpu": model, "cpu_count": os.cpu_count(), "numba_threads": numba.config.NUMBA_NUM_THREADS,
            "python": _platform.python_version(), "numpy": np.__version__, "numba": numba.__version__,
            "torch": None, "platform": _platform.platform(), "commit": None,
            "threading_layer": runtime.threading_layer()}
    if peers.torch_available():
        import torch

        info["torch"] = torch.__version__
    try:
        proc = subprocess.run(["git", "-C", str(_ROOT), "rev-parse", "HEAD"], capture_output=True, text=True,
                              timeout=10)
        if proc.returncode == 0:
            info["commit"] = proc.stdout.strip()
            dirty = subprocess.run(["git", "-C", str(_ROOT), "status", "--porcelain", "--untracked-files=no",
                                    "--", "swishgrad_numba"],
                                   capture_output=True, text=True, timeout=10)
            info["package_dirty"] = bool(dirty.stdout.strip())
    except (OSError, subprocess.SubprocessError):
        pass
    return info


def _fmt(v, spec, none="-"):
    return none if v is None else format(v, spec)


def _kernels(rows) -> str:
    named = dict.fromkeys(f"{r['kernel']} ({r['soc']})" for r in rows if r.get("kernel"))
    return ", ".join(named) or "?"


def format_table(rows) -> str:
    """One line per (dtype, size, threads): the emulator and its ratios to each peer."""
    header = (f"{'dtype':<9}{'size':>6}{'thr':>4} |{'emu Me/s':>10}{'GB/s':>7}{'%roof':>6} |"
              f"{'alloc Me/s':>11}{'xnumpy':>8}{'xtorch':>8}{'xtorch out':>11} |"
              f"{'flat Me/s':>10}{'tile cost':>10} |{'numpy Me/s':>11}{'torch Me/s':>11}{'triad GB/s':>11}")
    lines = [f"emulator and flat loop: the {_kernels(rows)} kernel", header, "-" * len(header)]
    cells = list(dict.fromkeys((r["dtype"], r["size"], r["threads"]) for r in rows if r["impl"] == "emulator"))
    for name, n, k in cells:
        key = dict(dtype=name, size=n, threads=k)
        e_o = find_row(rows, impl="emulator", variant="out", beta=BETA_NUMPY, **key)
        e_a = find_row(rows, impl="emulator", variant="alloc", beta=BETA_NUMPY, **key)
        e_t = find_row(rows, impl="emulator", variant="alloc", beta=BETA_TORCH, **key)
        e_to = find_row(rows, impl="emulator", variant="out", beta=BETA_TORCH, **key)
        flat = find_row(rows, impl="flat", **key)
        npr = find_row(rows, impl="numpy", **key)
        tr = find_row(rows, impl="torch", variant="alloc", **key)
        triad_row = find_row(rows, impl="triad", **key)
        cost = e_o["seconds"] / flat["seconds"] - 1.0
        flag = "" if flat.get("matches_emulator", True) else "!"
        torch_txt = "skipped" if tr["skipped"] else _fmt(tr["elements_per_s"] / 1e6, ".1f")
        lines.append(
            f"{name:<9}{'2^' + str(int(math.log2(n))):>6}{k:>4} |{e_o['elements_per_s'] / 1e6:>10.1f}"
            f"{e_o['gb_per_s']:>7.2f}{e_o['roofline_pct']:>6.0f} |{e_a['elements_per_s'] / 1e6:>11.1f}"
            f"{e_a['ratio_numpy']:>8.2f}{_fmt(e_t['ratio_torch'], '.2f', 'skip'):>8}"
            f"{_fmt(e_to['ratio_torch'], '.2f', 'skip'):>11} |{flat['elements_per_s'] / 1e6:>10.1f}"
            f"{100 * cost:>+9.1f}%{flag} |{npr['elements_per_s'] / 1e6:>11.1f}{torch_txt:>11}"
            f"{triad_row['gb_per_s']:>11.2f}")
    lines.append("")
    lines.append("emu = swish_backward(out=...), beta 1.1; alloc = without out; xnumpy = NumPy golden time / "
                 "emulator time (both allocating, beta 1.1);")
    lines.append("xtorch = torch silu_backward time / emulator time at beta 1.0 (allocating; 'out' pairs the "
                 "out= forms); tile cost = emu / flat loop - 1;")
    lines.append("%roof = emu GB/s (3 * n * itemsize bytes) / float32 triad GB/s over the same bytes and threads; "
                 "NumPy is single-threaded.")
    return "\n".join(lines)


def format_scaling(scaling) -> str:
    """One line per (dtype, emulated cores, threads) of :func:`~.runner.thread_scaling`."""
    if not scaling:
        return "thread scaling: not measured"
    lines = [f"thread scaling: the {_kernels(scaling)} kernel, swish_backward(out=) with Platform(core_num=k)",
             f"{'dtype':<9}{'size':>6}{'cores':>6}{'thr':>4} |{'ms/call':>9}{'Me/s':>9}{'speed-up':>9}"]
    for r in scaling:
        lines.append(f"{r['dtype']:<9}{'2^' + str(r['log2_size']):>6}{r['cores']:>6}{r['threads']:>4} |"
                     f"{1e3 * r['seconds']:>9.3f}{r['elements_per_s'] / 1e6:>9.1f}{r['speedup']:>8.2f}x")
    lines.append("speed-up = the same launch's time on 1 thread / on this many, timed round-robin in this run.")
    return "\n".join(lines)


def format_cold_start(cold) -> str:
    """One line per :func:`~.fresh.cold_start` result."""
    return "\n".join(
        f"cold start {c['dtype']}: import {c['import_s']:.2f} s + first 2^{int(math.log2(c['size']))} call "
        f"{c['first_call_s']:.2f} s = {c['total_s']:.2f} s (whole process {c['process_s']:.2f} s; "
        f"last of {len(c['runs'])} fresh processes)" for c in cold)


def format_memory(memory) -> str:
    """One line per :func:`~.fresh.memory_growth` result."""
    return "\n".join(
        f"memory {m['dtype']}: one 2^{int(math.log2(m['size']))} call with out= (already written) raised the "
        f"peak resident size by {m['growth_bytes'] / _MIB:.2f} MiB = "
        f"{100 * m['growth_bytes'] / m['output_bytes']:.1f}% of the {m['output_bytes'] / _MIB:.1f} MiB output (allowed {memory_allowance(m['threads']) / _MIB:.0f} MiB "
        f"at {m['threads']} threads; {m['method']}, fresh process)" for m in memory)

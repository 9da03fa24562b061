"""``swishgrad bench``: the emulator against NumPy, PyTorch, a flat loop and the triad roofline;
the thread scaling of small launches; the cold start and one call's memory. ``--op swish|silu|silu_grad``:
that operator of the family against its PyTorch peer."""
from __future__ import annotations

import json
import os
import sys

from ..platform import REFERENCE_PLATFORM
from ._options import check_soc
from ._paths import check_output_file
from ._progress import progress_bar

DEFAULT_SIZES = "10:26"
QUICK_SIZES = "10,12"
DEFAULT_REPEAT = 5
QUICK_REPEAT = 2
DEFAULT_MIN_TIME = 0.02
QUICK_MIN_TIME = 0.001
DEFAULT_SOC = REFERENCE_PLATFORM.soc_version


def write_plot(rows, path) -> None:
    """PNG of throughput (elements/s) against size: one panel per dtype, one line per implementation and
    thread count (the emulator's labelled with its kernel), the triad roofline in grey."""
    try:
        from matplotlib.figure import Figure
    except ImportError:
        raise RuntimeError("--plot needs matplotlib: pip install 'swishgrad_numba[bench]'") from None
    from ..benchmark import BETA_NUMPY, BETA_TORCH

    dtypes = list(dict.fromkeys(r["dtype"] for r in rows if r["impl"] == "emulator"))
    threads = sorted({r["threads"] for r in rows})
    kernel = next((r["kernel"] for r in rows if r["impl"] == "emulator" and r.get("kernel")), None)
    emu = f"emulator {kernel}" if kernel else "emulator"
    series = (("emulator", "out", BETA_NUMPY, f"{emu} (out=)"), ("emulator", "alloc", BETA_NUMPY, emu),
              ("flat", "out", BETA_NUMPY, "flat loop"), ("numpy", "alloc", BETA_NUMPY, "NumPy golden"),
              ("torch", "alloc", BETA_TORCH, "torch silu_backward"),
              ("torch", "out", BETA_TORCH, "torch silu_backward (out=)"))
    styles = ["-", "--", ":", "-."]
    fig = Figure(figsize=(5 * len(dtypes), 4.2), layout="constrained")
    axes = fig.subplots(1, len(dtypes), squeeze=False)[0]
    for ax, name in zip(axes, dtypes):
        for ti, k in enumerate(threads):
            for si, (impl, variant, beta, label) in enumerate(series):
                pts = sorted((r["size"], r["elements_per_s"]) for r in rows
                             if r["impl"] == impl and r["variant"] == variant and r["dtype"] == name
                             and r["threads"] == k and r["beta"] == beta and r["elements_per_s"])
                if pts:
                    ax.plot([p[0] for p in pts], [p[1] for p in pts], styles[ti % len(styles)], marker=".",
                            color=f"C{si}", label=f"{label}, {k} thr")
            # The roofline in this dtype's elements/s (triad over the same bytes).
            pts = sorted((r["size"], r["elements_per_s"]) for r in rows
                         if r["impl"] == "triad" and r["dtype"] == name and r["threads"] == k)
            if pts:
                ax.plot([p[0] for p in pts], [p[1] for p in pts], styles[ti % len(styles)], color="grey",
                        label=f"triad roofline, {k} thr")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("elements")
        ax.set_ylabel("elements / s")
        ax.set_title(name)
        ax.grid(True, which="both", alpha=0.3)
    axes[-1].legend(fontsize="x-small", loc="best")
    fig.savefig(path, dpi=110)


def _check_plot_format(path) -> None:
    """Refuse a --plot file name whose extension matplotlib cannot write (no extension means PNG)."""
    ext = os.path.splitext(path)[1][1:].lower()
    if not ext:
        return
    from matplotlib.backend_bases import FigureCanvasBase

    formats = FigureCanvasBase.get_supported_filetypes()
    if ext not in formats:
        raise ValueError(f"--plot: cannot write {path!r}: matplotlib writes no .{ext} files "
                         f"(it writes {', '.join('.' + f for f in sorted(formats))})")


def _parse_args(args):
    """The run's settings from the command line; TypeError/ValueError/RuntimeError naming the option."""
    import numba

    from .. import benchmark as bm
    from ..dtypes import canonical_dtype
    from ..platform import Platform

    sizes = bm.parse_sizes(args.sizes or (QUICK_SIZES if args.quick else DEFAULT_SIZES))
    names = args.dtypes or ",".join(bm.DEFAULT_DTYPES)
    dtypes = [canonical_dtype(d.strip(), argname="--dtypes").name for d in names.split(",")]
    default_threads = "1,2" if numba.config.NUMBA_NUM_THREADS >= 2 else "1"
    threads = bm.parse_threads(args.threads or (str(numba.config.NUMBA_NUM_THREADS) if args.quick
                                                else default_threads))
    repeat = args.repeat if args.repeat is not None else (QUICK_REPEAT if args.quick else DEFAULT_REPEAT)
    if repeat < 1:
        raise ValueError(f"--repeat must be >= 1, got {repeat}")
    soc = args.soc
    if soc is None:   # the reference SoC, or the 950 for an operator with no A2 kernel (FastGelu)
        from ..ops import OPERATORS

        op = OPERATORS.get(args.op)
        soc = DEFAULT_SOC if op is None else op.default_platform.soc_version
    platform = Platform(soc_version=check_soc(soc))
    if args.plot is not None:
        import importlib.util

        if importlib.util.find_spec("matplotlib") is None:
            raise RuntimeError("--plot needs matplotlib: pip install 'swishgrad_numba[bench]'")
        check_output_file(args.plot, "--plot")
        _check_plot_format(args.plot)
    if args.json is not None:
        check_output_file(args.json, "--json")
    return sizes, dtypes, threads, repeat, platform


def _measure(args, sizes, dtypes, threads, repeat, platform):
    """Every measurement of the run: (rows, thread scaling, cold starts, memory)."""
    from .. import benchmark as bm

    min_time = QUICK_MIN_TIME if args.quick else DEFAULT_MIN_TIME
    progress = progress_bar(args.no_progress, "step")
    try:
        rows = bm.run_comparison(sizes, dtypes, threads, repeat=repeat, min_time=min_time,
                                 use_torch=not args.no_torch, progress=progress, platform=platform)
        scaling = [] if args.no_scaling else bm.thread_scaling(dtypes_=dtypes, repeat=repeat, min_time=min_time,
                                                               platform=platform, progress=progress)
        cold, memory = [], []
        fresh = [(name, kind) for name in dtypes for kind, skip in (("cold", args.no_cold_start),
                                                                     ("memory", args.no_memory))
                 if not (args.quick or skip)]
        for done, (name, kind) in enumerate(fresh):
            if progress is not None:
                progress(done, len(fresh), f"cold start {name} (2 fresh processes)" if kind == "cold" else
                         f"memory {name} (a fresh process)")
            if kind == "cold":
                cold.append(bm.cold_start(name, platform=platform))
            else:
                memory.append(bm.memory_growth(name, platform=platform))
        if progress is not None and fresh:
            progress(len(fresh), len(fresh), "fresh processes")
    finally:
        if progress is not None:
            progress.close()
    return rows, scaling, cold, memory


def _report(bm, info, repeat, rows, scaling, cold, memory, lines) -> None:
    print(f"machine: {info['cpu']}, {info['cpu_count']} CPUs; numpy {info['numpy']}, numba {info['numba']}, "
          f"torch {info['torch'] or 'not installed'}; commit {info['commit'] or '?'}"
          + (" (package modified)" if info.get("package_dirty") else "")
          + f"; threading layer {info['threading_layer']}")
    print(f"median of {repeat} repeats after a warm-up; inputs uniform in [-5, 5), seeded\n")
    print(bm.format_table(rows))
    print()
    print(bm.format_scaling(scaling))
    for block in (bm.format_cold_start(cold), bm.format_memory(memory)):
        if block:
            print()
            print(block)
    print("\ntargets (a report, not a test):")
    print(bm.format_targets(lines))


def _cmd_bench_op(args, bm, sizes, dtypes, threads, repeat, platform) -> int:
    """``--op swish|silu|silu_grad``: the operator against its PyTorch peer, both writing into an output."""
    if not args.no_torch and not bm.torch_available():
        print("swishgrad bench: torch is not installed; the torch column is skipped "
              "(pip install 'swishgrad_numba[bench]')", file=sys.stderr)
    info = bm.machine_info()
    min_time = QUICK_MIN_TIME if args.quick else DEFAULT_MIN_TIME
    progress = progress_bar(args.no_progress, "step")
    try:
        rows = bm.run_op_comparison(args.op, sizes, dtypes, threads, repeat=repeat, min_time=min_time,
                                    use_torch=not args.no_torch, progress=progress, platform=platform)
    finally:
        if progress is not None:
            progress.close()
    print(f"machine: {info['cpu']}, {info['cpu_count']} CPUs; numpy {info['numpy']}, numba {info['numba']}, "
          f"torch {info['torch'] or 'not installed'}; commit {info['commit'] or '?'}"
          + (" (package modified)" if info.get("package_dirty") else ""))
    print(f"op {args.op}: median of {repeat} repeats after a warm-up; inputs uniform in [-5, 5), seeded; "
          f"both sides write into a preallocated output\n")
    print(bm.format_op_table(rows))
    if args.json:
        payload = {"machine": info,
                   "config": {"op": args.op, "sizes": sizes, "dtypes": dtypes, "threads": threads, "repeat": repeat,
                              "min_time": min_time, "beta": bm.OP_BENCHES[args.op].beta,
                              "inputs": "uniform [-5, 5), seeded", "soc": platform.soc_family,
                              "kernel": platform.architecture},
                   "results": rows}
        try:
            with open(args.json, "w") as fh:
                json.dump(payload, fh, indent=1)
        except OSError as exc:
            print(f"swishgrad bench: error: --json: cannot write {args.json!r}: {exc.strerror or exc}",
                  file=sys.stderr)
            return 2
        print(f"\nJSON written to {args.json}")
    return 0


def _cmd_bench(args) -> int:
    from .. import benchmark as bm

    try:
        op = bm.check_op(args.op, argname="--op")
        sizes, dtypes, threads, repeat, platform = _parse_args(args)
        if op != bm.DEFAULT_OP and args.plot is not None:
            raise ValueError(f"--plot draws the {bm.DEFAULT_OP} comparison only; drop it for --op {op}")
    except (TypeError, ValueError, RuntimeError) as exc:
        print(f"swishgrad bench: error: {exc}", file=sys.stderr)
        return 2
    if op != bm.DEFAULT_OP:
        return _cmd_bench_op(args, bm, sizes, dtypes, threads, repeat, platform)

    if not args.no_torch and not bm.torch_available():
        print("swishgrad bench: torch is not installed; the torch column is skipped "
              "(pip install 'swishgrad_numba[bench]')", file=sys.stderr)
    info = bm.machine_info()  # before the run: the commit and kernel source the run imports
    rows, scaling, cold, memory = _measure(args, sizes, dtypes, threads, repeat, platform)
    lines = bm.targets(rows, cold, scaling, memory)
    _report(bm, info, repeat, rows, scaling, cold, memory, lines)

    if args.json:
        payload = {"machine": info,
                   "config": {"sizes": sizes, "dtypes": dtypes, "threads": threads, "repeat": repeat,
                              "min_time": QUICK_MIN_TIME if args.quick else DEFAULT_MIN_TIME,
                              "beta_numpy": bm.BETA_NUMPY, "beta_torch": bm.BETA_TORCH,
                              "flat_chunk": bm.FLAT_CHUNK, "inputs": "uniform [-5, 5), seeded",
                              "soc": platform.soc_family, "kernel": platform.architecture},
                   "results": rows, "thread_scaling": scaling, "cold_start": cold, "memory": memory,
                   "targets": lines}
        try:
            with open(args.json, "w") as fh:
                json.dump(payload, fh, indent=1)
        except OSError as exc:  # checked before the run, but the disk may fill or the folder go
            print(f"swishgrad bench: error: --json: cannot write {args.json!r}: {exc.strerror or exc}",
                  file=sys.stderr)
            return 2
        print(f"\nJSON written to {args.json}")
    if args.plot:
        try:
            write_plot(rows, args.plot)
        except OSError as exc:
            print(f"swishgrad bench: error: --plot: cannot write {args.plot!r}: {exc.strerror or exc}",
                  file=sys.stderr)
            return 2
        print(f"plot written to {args.plot}")
    return 0


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "bench", help="time the emulator against NumPy, PyTorch, a flat loop and the memory roofline",
        description="Time swish_backward against the NumPy golden, torch silu_backward, the same arithmetic "
                    "in a flat loop and a STREAM triad, per dtype, size and thread count; time small launches "
                    "(1 and 3 emulated cores) on 1 and 2 threads; measure the cold start and one call's memory "
                    "in fresh processes; print tables and the targets (PASS/MISS, a report).")
    p.add_argument("--op", default="swish_grad", metavar="OP",
                   help="the operator: swish_grad (default: the full comparison below), or swish, silu, "
                        "silu_grad, fast_gelu, fast_gelu_grad, gelu, gelu_grad, gelu_v2, gelu_grad_v2: that operator against its PyTorch "
                        "peer, both writing into an output (no thread scaling, cold start or memory figures)")
    p.add_argument("--sizes", default=None,
                   help=f"log2 element counts: 'a:b' (inclusive), 'a:b:step' or 'a,b,c' (default {DEFAULT_SIZES}; "
                        f"e.g. 10:27 for the whole growth curve)")
    p.add_argument("--dtypes", default=None, help="comma-separated dtypes (default float32,float16,bfloat16)")
    p.add_argument("--threads", default=None, help="comma-separated thread counts (default 1,2)")
    p.add_argument("--repeat", type=int, default=None, help=f"repeats per figure, median reported "
                                                             f"(default {DEFAULT_REPEAT})")
    p.add_argument("--soc", "--soc-version", dest="soc", default=None, metavar="FAMILY",
                   help="SoC family or chip name of the emulated platform, as in Platform(soc_version=...): "
                        f"ascend950 runs the Ascend 950 kernel, every other family the A2 one (default {DEFAULT_SOC}; "
                        "ascend950 for fast_gelu, fast_gelu_grad and gelu_v2, which have no A2 kernel)")
    p.add_argument("--json", metavar="FILE", default=None, help="write all results as JSON")
    p.add_argument("--plot", metavar="FILE.png", default=None, help="write a PNG of throughput against size "
                                                                   "(needs matplotlib)")
    p.add_argument("--quick", action="store_true",
                   help=f"smoke run: sizes {QUICK_SIZES}, {QUICK_REPEAT} repeats, all threads only, no cold start, "
                        f"no memory measurement")
    p.add_argument("--no-torch", action="store_true", help="do not time PyTorch even if installed")
    p.add_argument("--no-scaling", action="store_true", help="skip the thread scaling of small launches")
    p.add_argument("--no-cold-start", action="store_true", help="skip the fresh-process cold-start timing")
    p.add_argument("--no-memory", action="store_true", help="skip the fresh-process memory measurement")
    p.add_argument("--no-progress", action="store_true",
                   help="no progress bar (shown on stderr when it is a terminal)")
    p.set_defaults(func=_cmd_bench)

"""``swishgrad timeline``: what one launch would cost on the device, under the device-time model.

Prints the launch time, the bottleneck and a per-core table with msprof's PipeUtilization.csv column names;
writes the timeline as a Chrome trace (``--trace``), the figures as JSON (``--json``) and a Gantt chart
(``--plot``). ``--compare FIELD=VALUE`` sets the host tiling beside variants; ``--best`` searches the
template's tilings. An estimate rests on public figures and a calibration (docs/devicetime.md); it is not a
measurement.
"""
from __future__ import annotations

import errno
import json
import os
import sys

from ._paths import PathArgumentError, check_input_file, check_output_file
from .tiling_args import parse_positive, platform_and_params

EXIT_OK, EXIT_USAGE = 0, 2

_COLUMNS = ("aiv_time(us)", "aiv_vec_time(us)", "aiv_vec_ratio", "aiv_mte2_time(us)", "aiv_mte2_ratio",
            "aiv_mte3_time(us)", "aiv_mte3_ratio", "aiv_scalar_time(us)", "aiv_scalar_ratio")


def dt_ops():
    """The operators the device-time model knows (the registry's)."""
    from ..ops import OPERATORS

    return OPERATORS


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "timeline", help="model one launch's device time (a timeline, per-core pipe use, --best tiling)",
        description=__doc__.split("\n\n")[0] + " It is an estimate from public figures, not a measurement.")
    p.add_argument("--numel", type=parse_positive, required=True, help="elements of the tensor")
    p.add_argument("--dtype", default="float32", help="float32, float16 or bfloat16 (default float32)")
    p.add_argument("--op", default="swish_grad", choices=sorted([*dt_ops(), "rms_norm", "swiglu", "swiglu_grad"]),
                   help="operator (default swish_grad); the 950 kernels on the broadcast walk (SiluGrad, GeluGrad, "
                        "LeakyReluGrad, GeluGradV2) are charged per UB loop; rms_norm's, swiglu's and swiglu_grad's "
                        "row streams by the row model (--cols)")
    p.add_argument("--soc", "--soc-version", dest="soc_version", default=None, metavar="SOC",
                   help="SoC family or chip name (default ascend910b; ascend950 or a 950 chip runs the 950 kernel); "
                        "a chip name picks its own figures (e.g. Ascend910B4)")
    p.add_argument("--file", default=None, help="tiling binary (72 bytes: A2, 88 bytes: 950) instead of the host's")
    p.add_argument("--block-dim", type=parse_positive, default=None, help="cores launched (required with --file)")
    p.add_argument("--params", default=None, metavar="P.TOML", help="model parameters (e.g. from fit) as TOML")
    p.add_argument("--allow-invalid", action="store_true", help="estimate a tiling the validator rejects")
    p.add_argument("--trace", default=None, metavar="T.JSON", help="write a Chrome trace (Perfetto, chrome://tracing)")
    p.add_argument("--json", dest="json_path", default=None, metavar="EST.JSON", help="write the figures as JSON")
    p.add_argument("--plot", default=None, metavar="P.PNG", help="write a Gantt chart of the launch")
    p.add_argument("--compare", nargs="+", default=None, metavar="FIELD=VALUE",
                   help="variants beside the host tiling: buffer_num=K, cores=K, tileDataNum=T (A2), ubFormer=U "
                        "(950), or any struct field")
    p.add_argument("--best", action="store_true", help="search the template's valid tilings for the fastest")
    from .rms_norm import add_rms_norm_options

    add_rms_norm_options(p)
    p.set_defaults(func=run)


def _table(est) -> str:
    head = ["cores"] + list(_COLUMNS)
    rows = [head]
    last, first = None, 0
    for row in est.pipe_utilization() + [None]:     # runs of cores with the same figures share a line
        cells = None if row is None else [f"{row[c]:.3f}" if c.endswith("(us)") else f"{row[c]:.2f}" for c in _COLUMNS]
        if cells != last or row is None:
            if last is not None:
                core = row["block_id"] - 1 if row is not None else est.n_cores - 1
                rows.append([str(first) if core == first else f"{first}-{core}"] + last)
            last, first = cells, (row["block_id"] if row is not None else 0)
    widths = [max(len(r[i]) for r in rows) for i in range(len(head))]
    return "\n".join("  ".join(cell.rjust(w) for cell, w in zip(r, widths)) for r in rows)


def _describe(est) -> str:
    lines = [f"{est.label}",
             f"  launch time  {est.duration_us:.3f} us (head overhead {est.head_us:.3f} us)",
             f"  bottleneck   {est.bottleneck}"]
    if est.gm_saturated > 0:
        lines.append(f"  GM bandwidth ({est.params.aggregate_gbps:g} GB/s, reads and writes shared) limits the "
                     f"transfers for {100 * est.gm_saturated:.1f} % of the cores' span")
    if not est.valid:
        lines.append("  INVALID tiling (estimated anyway): " + "; ".join(est.findings))
    return "\n".join(lines)


def _png(est) -> bytes:
    """The Gantt chart as PNG bytes (drawn in memory, so that writing it can be checked)."""
    import io

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    ax = est.plot()
    buf = io.BytesIO()
    ax.figure.savefig(buf, format="png", dpi=100, bbox_inches="tight")
    plt.close(ax.figure)
    return buf.getvalue()


def _write_text(path, data: bytes) -> None:
    """Write ``data`` and make sure it reached the file (a full disk may fail only at flush or sync)."""
    with open(path, "wb") as fh:
        fh.write(data)
        fh.flush()
        if os.path.isfile(path):
            os.fsync(fh.fileno())
    if os.path.isfile(path) and os.path.getsize(path) != len(data):
        raise OSError(errno.ENOSPC, f"only {os.path.getsize(path)} of {len(data)} bytes were written")


def _write(argname: str, path: str, write) -> None:
    """Run ``write``; an OSError or a refused trace becomes a usage error naming ``argname`` and the path."""
    try:
        write()
    except OSError as exc:
        raise ValueError(f"{argname}: cannot write {path!r}: {exc.strerror or exc}") from None
    except ValueError as exc:
        raise ValueError(f"{argname}: {path!r}: {exc}") from None


def run(args) -> int:
    from .. import devicetime as dt
    from ..tiling.io import read_tiling_bin

    if args.op in ("rms_norm", "swiglu", "swiglu_grad"):   # row-wise (issues 42, 41): the row model
        return _run_rows(args)
    from .rms_norm import misplaced

    if misplaced(args, "timeline"):
        print(misplaced(args, "timeline"), file=sys.stderr)
        return EXIT_USAGE

    try:
        for path, name in ((args.file, "--file"), (args.params, "--params")):
            if path is not None:
                check_input_file(path, name)
        for path, name in ((args.trace, "--trace"), (args.json_path, "--json"), (args.plot, "--plot")):
            if path is not None:
                check_output_file(path, name)
        if args.best and args.compare:
            raise ValueError("--best and --compare: give one of them")
        if args.op != "swish_grad":
            for given, name in ((args.file, "--file"), (args.compare, "--compare"), (args.best, "--best")):
                if given:
                    raise ValueError(f"{name} works on SwishGrad's tilings (--op swish_grad); the other operators' "
                                     f"host tilings are estimated as they are")
        platform, params = platform_and_params(args)
        tiling = None
        if args.file is not None:
            if args.block_dim is None:
                raise ValueError("--file needs --block-dim (a struct binary does not carry it)")
            record = read_tiling_bin(args.file)
            tiling = {name: record[name].item() for name in record.dtype.names}
            tiling["blockDim"] = args.block_dim
            from ..platform import ARCH_950, ASCEND950_PLATFORM
            from ..tiling.records import layout_of
            if layout_of(record).architecture == ARCH_950 and platform.architecture != ARCH_950:
                platform = ASCEND950_PLATFORM if args.soc_version is None else platform
        elif args.block_dim is not None:
            raise ValueError("--block-dim applies to --file")
        variants = []
        if args.compare:   # every variant checked before any output, as the estimate checks its own arguments
            from ..devicetime.search import variant
            from ..tiling.host import compute_tiling

            if tiling is not None:
                raise ValueError("--compare works on the host tiling (leave out --file)")
            base = compute_tiling(args.numel, args.dtype, platform=platform)
            variants = [variant(text, args.numel, args.dtype, platform, base, op=args.op) for text in args.compare]
        est = dt.estimate(tiling, args.numel, args.dtype, op=args.op, platform=platform, params=params,
                          allow_invalid=args.allow_invalid)
        out = {"estimate": est.summary()}
        print(_describe(est))
        print(_table(est))
        if args.compare:
            out["compare"] = []
            print(f"\n{'variant':<28} {'time (us)':>12} {'vs host':>9}  bottleneck")
            print(f"{'host tiling':<28} {est.duration_us:12.3f} {'':>9}  {est.bottleneck}")
            for label, var_tiling, buffer_num in variants:
                v = dt.estimate(var_tiling, args.numel, args.dtype, op=args.op, platform=platform, params=params,
                                allow_invalid=True, buffer_num=buffer_num, label=label)
                flag = "" if v.valid else "  (INVALID tiling: " + "; ".join(v.findings)[:120] + ")"
                print(f"{label:<28} {v.duration_us:12.3f} {v.duration_us / est.duration_us:8.3f}x  {v.bottleneck}{flag}")
                out["compare"].append(v.summary())
        if args.best:
            from ..devicetime.search import MAX_SEARCH_TILES, best_tiling

            report = {}
            best, host, tried = best_tiling(args.numel, args.dtype, platform, params, progress=True,
                                            progress_stream=sys.stderr, baseline=est if tiling is not None else None,
                                            report=report)
            if report["skipped"]:
                print(f"\n{report['skipped']} of {report['candidates']} candidate tilings skipped: their walks are "
                      f"longer than the search models ({MAX_SEARCH_TILES} tiles)")
            # the gain is against the launch estimated above: the file's tiling with --file, else the host's
            against = "the file's tiling" if tiling is not None else "host tiling"
            gain = 1 - best.duration_us / est.duration_us
            print(f"\nbest of {tried} valid tilings: {best.label}: {best.duration_us:.3f} us, bound by "
                  f"{best.bottleneck} ({against} {est.duration_us:.3f} us; predicted gain {100 * gain:.1f} %)")
            out["best"] = best.summary()
            est = best if args.trace or args.plot else est
        _write_files(args, est, out)
    except (PathArgumentError, TypeError, ValueError) as exc:
        print(f"swishgrad timeline: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    print("\n(an estimate from a model calibrated on a few public launches, not a measurement: docs/devicetime.md)")
    return EXIT_OK


def _write_files(args, est, out: dict) -> None:
    """What ``--trace``, ``--json`` and ``--plot`` ask for: ``est``'s trace and chart, ``out`` as JSON."""
    if args.trace:
        _write("--trace", args.trace, lambda: est.write_trace(args.trace))
    if args.json_path:
        text = json.dumps(out, indent=1, allow_nan=False)
        _write("--json", args.json_path, lambda: _write_text(args.json_path, text.encode("utf-8")))
    if args.plot:
        _write("--plot", args.plot, lambda: _write_text(args.plot, _png(est)))


def _run_rows(args) -> int:
    """``timeline --op rms_norm / swiglu / swiglu_grad``: the row model's estimate (:mod:`.rms_norm`,
    :mod:`.swiglu`), printed and written as the element-wise operators' are."""
    from .rms_norm import estimate as rms_norm_estimate
    from .swiglu import estimate as swiglu_estimate
    from .tiling_args import UsageError

    estimate = rms_norm_estimate if args.op == "rms_norm" else swiglu_estimate
    try:
        if args.params is not None:
            check_input_file(args.params, "--params")
        for path, name in ((args.trace, "--trace"), (args.json_path, "--json"), (args.plot, "--plot")):
            if path is not None:
                check_output_file(path, name)
        platform, params = platform_and_params(args)
        est = estimate(args, platform, params)
        print(_describe(est))
        print(_table(est))
        _write_files(args, est, {"estimate": est.summary()})
    except (PathArgumentError, UsageError, ValueError) as exc:
        print(f"swishgrad timeline: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    print("\n(an estimate from a model calibrated on a few public launches, not a measurement; the row model's "
          "assumptions: docs/devicetime.md)")
    return EXIT_OK

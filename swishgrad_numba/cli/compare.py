"""``swishgrad compare``: check a device dump against the emulator (model section 7).

Reads ``grad``, ``x`` and the device's output from raw binary dumps (any
file not ending in ``.npy``: little-endian, C order, no header; needs
``--dtype`` and ``--shape``) or ``.npy`` files, runs the emulator on the
inputs, and prints the precision report of the device output against the
emulator's (the emulator is the golden here, not the operator's NumPy
golden). ``--soc`` names the device's SoC, which picks the kernel emulated
(an Ascend 950 runs the arch35 kernel; the Atlas A2 by default). Exit status: 0 pass, 1 fail, 2 bad input (wrong size,
unreadable file, mismatched shapes or dtypes, bad ``--dtype``/``--shape``,
a ``--json`` path that cannot be written). Each file's size is checked
(a ``.npy``'s against its header) before its data is read, and the
``--json`` path before any file is.

With ``--envelope exp=E,div=D[,ln=L][,ftz]`` (or a preset such as ``950-doc``) it
also says which elements the documented hardware error of Exp and Div
explains (model section 10): how many mismatches the envelope explains, the
worst unexplained elements, and a verdict; the exit status is then 0 when
every element is in the envelope and 1 otherwise. ``--overflow-mode
saturation`` compares against the emulator in the device's saturation mode.
"""
from __future__ import annotations

import json
import math
import os
import re
import sys

import numpy as np

from ..dtypes import SUPPORTED_DTYPES, bfloat16, canonical_dtype
from ..platform import REFERENCE_PLATFORM, SOC_VERSIONS, Platform, soc_family_of
from ._paths import PathArgumentError, check_output_file

__all__ = ["InputFileError", "parse_shape", "parse_envelope", "load_array", "run_compare", "register"]


class InputFileError(ValueError):
    """A dump that cannot be used: unreadable, wrong size, wrong dtype or shape."""


#: The most elements, and bytes, an array may have: NumPy indexes with intp.
MAX_ARRAY_SIZE = int(np.iinfo(np.intp).max)


def parse_shape(text: str) -> tuple[int, ...]:
    """Parse ``"2,3,4"``, ``"2x3x4"``, ``"(2, 3, 4)"`` or ``"6"``; ``"()"`` is 0-d."""
    s = text.strip()
    if s.startswith("(") and s.endswith(")") or s.startswith("[") and s.endswith("]"):
        s = s[1:-1].strip()
    if s == "":
        return ()
    parts = [p.strip() for p in re.split(r"[,xX*]", s)]
    if parts and parts[-1] == "" and "," in s:  # "(6,)"
        parts = parts[:-1]
    if not parts or not all(re.fullmatch(r"\d+", p) for p in parts):
        raise InputFileError(f"--shape must be non-negative integers separated by ',' or 'x' "
                             f"(e.g. 2,3,4), got {text!r}")
    shape = tuple(int(p) for p in parts)
    # Python ints: no wrap-around. A dimension past intp cannot even be an empty array's.
    if max(shape, default=0) > MAX_ARRAY_SIZE:
        raise InputFileError(f"--shape {text!r} has a dimension of {max(shape)}; at most {MAX_ARRAY_SIZE}")
    if math.prod(shape) > MAX_ARRAY_SIZE:
        raise InputFileError(f"--shape {text!r} has {math.prod(shape)} elements; an array holds at most "
                             f"{MAX_ARRAY_SIZE}")
    return shape


def _check_shape_bytes(shape, dtype) -> None:
    """Refuse a ``--shape`` whose bytes in ``dtype`` exceed what an array can address."""
    nbytes = math.prod(shape) * dtype.itemsize
    if nbytes > MAX_ARRAY_SIZE:
        raise InputFileError(f"--shape {tuple(shape)} of {dtype.name} needs {nbytes} bytes; an array holds "
                             f"at most {MAX_ARRAY_SIZE}")


def _dtype_arg(text: str | None):
    if text is None:
        return None
    try:
        return canonical_dtype(text, argname="--dtype")
    except (TypeError, ValueError) as exc:
        raise InputFileError(str(exc)) from None


def _soc_arg(text: str | None) -> Platform:
    """The platform of ``--soc`` (the A2 reference platform when it is not given)."""
    if text is None:
        return REFERENCE_PLATFORM
    if soc_family_of(text) is None:
        raise InputFileError(f"--soc {text!r} is not a known SoC family or chip name; families: "
                             f"{', '.join(SOC_VERSIONS)} (or a chip name such as Ascend910B3, Ascend950PR_9599)")
    return Platform(soc_version=text)


def load_array(path: str, argname: str, dtype=None, shape=None) -> np.ndarray:
    """Read one tensor dump.

    ``.npy`` files carry their dtype and shape; ``dtype``/``shape``, when
    given, must agree with them. A ``.npy`` of 2-byte void items (what
    ``numpy.save`` writes for ``ml_dtypes.bfloat16``) is read as bfloat16.
    Any other file is raw little-endian data of ``dtype`` and ``shape``, and
    its size must be exactly ``prod(shape) * itemsize`` bytes.

    Raises
    ------
    InputFileError
        With a message naming ``argname`` and the rule broken.
    """
    if not os.path.exists(path):
        raise InputFileError(f"{argname}: file {path!r} does not exist")
    if not os.path.isfile(path):
        raise InputFileError(f"{argname}: {path!r} is not a regular file")
    if path.lower().endswith(".npy"):
        return _load_npy(path, argname, dtype, shape)
    if dtype is None or shape is None:
        raise InputFileError(f"{argname}: raw dump {path!r} needs --dtype and --shape "
                             f"(or save it as .npy)")
    expected = math.prod(shape) * dtype.itemsize  # Python ints: no wrap-around
    try:
        size = os.path.getsize(path)
        if size != expected:
            raise InputFileError(f"{argname}: {path!r} has {size} bytes, but shape {tuple(shape)} of "
                                 f"{dtype.name} needs {expected} bytes")
        with open(path, "rb") as f:
            data = f.read()
    except OSError as exc:
        raise InputFileError(f"{argname}: cannot read {path!r}: {exc.strerror or exc}") from None
    if len(data) != expected:  # the file changed under us
        raise InputFileError(f"{argname}: {path!r} has {len(data)} bytes, expected {expected}")
    # Dumps are little-endian, like the device and every host we run on.
    if sys.byteorder != "little":  # pragma: no cover
        raise InputFileError("raw dumps can only be read on a little-endian host")
    return np.frombuffer(data, dtype=dtype).copy().reshape(shape)


def _npy_header(path: str, argname: str):
    """(shape, fortran_order, dtype, data offset) of a .npy file, read from its header only."""
    from numpy.lib import format as npy_format

    try:
        with open(path, "rb") as f:
            version = npy_format.read_magic(f)
            if version == (1, 0):
                shape, fortran_order, file_dtype = npy_format.read_array_header_1_0(f)
            elif version in ((2, 0), (3, 0)):
                # 3.0 differs from 2.0 only in the header's encoding (UTF-8 for field
                # names); read as 2.0, a structured dtype is refused below anyway.
                shape, fortran_order, file_dtype = npy_format.read_array_header_2_0(f)
            else:
                raise ValueError(f"unknown .npy format version {version[0]}.{version[1]}")
            offset = f.tell()
    except (OSError, ValueError, EOFError, SyntaxError) as exc:
        raise InputFileError(f"{argname}: cannot read {path!r} as .npy: {exc}") from None
    if not all(isinstance(d, int) and d >= 0 for d in shape):
        raise InputFileError(f"{argname}: cannot read {path!r} as .npy: bad shape {shape} in the header")
    return shape, fortran_order, file_dtype, offset


def _load_npy(path: str, argname: str, dtype, shape) -> np.ndarray:
    """The ``.npy`` branch of :func:`load_array`: every check on the header before the data is read."""
    file_shape, _, file_dtype, offset = _npy_header(path, argname)
    bf16_as_void = (file_dtype.kind == "V" and file_dtype.itemsize == 2 and file_dtype.fields is None
                    and dtype in (None, bfloat16))
    native = file_dtype.newbyteorder("=") if file_dtype.kind == "f" and not file_dtype.isnative else file_dtype
    try:
        found = bfloat16 if bf16_as_void else canonical_dtype(native, argname=f"{argname} dtype")
    except (TypeError, ValueError):
        raise InputFileError(f"{argname}: {path!r} holds {file_dtype}; supported dtypes are "
                             f"{', '.join(SUPPORTED_DTYPES)}") from None
    if dtype is not None and found != dtype:
        raise InputFileError(f"{argname}: {path!r} holds {found.name} but --dtype is {dtype.name}")
    if shape is not None and file_shape != tuple(shape):
        raise InputFileError(f"{argname}: {path!r} has shape {file_shape} but --shape is {tuple(shape)}")
    nbytes = math.prod(file_shape) * found.itemsize  # Python ints: a lying header cannot wrap
    if nbytes > MAX_ARRAY_SIZE:
        raise InputFileError(f"{argname}: {path!r} claims shape {file_shape} of {found.name}, {nbytes} bytes; "
                             f"an array holds at most {MAX_ARRAY_SIZE}")
    try:
        size = os.path.getsize(path)
    except OSError as exc:
        raise InputFileError(f"{argname}: cannot read {path!r}: {exc.strerror or exc}") from None
    if size < offset + nbytes:
        raise InputFileError(f"{argname}: {path!r} has {size} bytes, but its header claims shape {file_shape} "
                             f"of {found.name}: {offset} header + {nbytes} data bytes")
    try:
        arr = np.load(path, allow_pickle=False)
    except (OSError, ValueError, EOFError) as exc:  # e.g. the file changed since the header was read
        raise InputFileError(f"{argname}: cannot read {path!r} as .npy: {exc}") from None
    if not isinstance(arr, np.ndarray) or arr.shape != file_shape or arr.dtype != file_dtype:
        raise InputFileError(f"{argname}: {path!r} changed while it was read")
    if bf16_as_void:
        arr = arr.view(bfloat16)
    elif arr.dtype != native:
        arr = arr.astype(native)
    return np.ascontiguousarray(arr)


def run_compare(grad_path, x_path, output_path, *, dtype=None, shape=None, beta=1.0,
                json_path=None, worst=10, out=None, err=None, envelope=None, overflow_mode="infnan",
                soc=None) -> int:
    """Body of ``swishgrad compare``; returns the exit code."""
    out = sys.stdout if out is None else out
    err = sys.stderr if err is None else err
    from .. import swish_backward
    from ..precision import compare

    try:
        dt = _dtype_arg(dtype)
        shp = parse_shape(shape) if shape is not None else None
        if shp is not None and dt is not None:
            _check_shape_bytes(shp, dt)
        if worst < 0:
            raise InputFileError(f"--worst must be >= 0, got {worst}")
        envelope_spec = parse_envelope(envelope) if envelope is not None else None
        platform = _compare_platform(envelope_spec, overflow_mode, soc)
        if json_path is not None:
            try:
                check_output_file(json_path, "--json")
            except PathArgumentError as exc:
                raise InputFileError(str(exc)) from None
        arrays = {name: load_array(path, name, dt, shp)
                  for name, path in (("--grad", grad_path), ("--x", x_path), ("--output", output_path))}
        g, x, o = arrays["--grad"], arrays["--x"], arrays["--output"]
        if not (g.dtype == x.dtype == o.dtype):
            raise InputFileError(f"dtypes differ: --grad {g.dtype.name}, --x {x.dtype.name}, "
                                 f"--output {o.dtype.name}")
        if not (g.shape == x.shape == o.shape):
            raise InputFileError(f"shapes differ: --grad {g.shape}, --x {x.shape}, --output {o.shape}")
    except InputFileError as exc:
        print(f"swishgrad compare: error: {exc}", file=err)
        return 2

    golden = swish_backward(g, x, beta, platform=platform)
    report = compare(o, golden, inputs={"grad": g, "x": x}, worst=worst)
    print(f"device output {output_path!r} vs emulator (beta = {float(np.float32(beta))!r} as float32; "
          f"soc {platform.soc_version}: the {platform.architecture} kernel)", file=out)
    if platform.saturation:
        print("  (emulator in the device's saturation overflow mode)", file=out)
    print(report.format(), file=out)
    envelope_doc = None
    if envelope_spec is not None:
        envelope_doc = _envelope_section(g, x, o, golden, beta, envelope_spec, platform, worst, out)
    if json_path is not None:
        doc = {
            "grad": grad_path, "x": x_path, "output": output_path,
            "beta": float(np.float32(beta)), "golden": "swishgrad_numba emulator",
            "soc_version": platform.soc_version, "kernel": platform.architecture,
            "report": report.to_dict(),
        }
        if platform.saturation:
            doc["overflow_mode"] = platform.overflow_mode
        if envelope_doc is not None:
            doc["envelope"] = envelope_doc
        try:
            with open(json_path, "w") as f:
                json.dump(doc, f, indent=2)
        except OSError as exc:
            print(f"swishgrad compare: error: --json: cannot write {json_path!r}: {exc.strerror or exc}",
                  file=err)
            return 2
    if envelope_doc is not None:
        return 0 if envelope_doc["consistent"] else 1
    return 0 if report.passed else 1


# ---------------------------------------------------------------- --envelope and --overflow-mode (model section 10)

_ENVELOPE_TERM = re.compile(r"(exp|div|ln)=(\d+)")


def parse_envelope(text: str) -> dict:
    """``"exp=1,div=1"``, ``"exp=2,div=0,ftz"``, ``"exp=1,div=1,ln=2"`` or a preset name ->
    :func:`~swishgrad_numba.precision.envelope` keyword arguments (a preset adds its ``soc_version``;
    ``ln=L``, the Ln budget, is optional: 1 where not given)."""
    from ..precision import ENVELOPE_PRESETS, MAX_ENVELOPE_ULP

    spec = text.strip().lower()
    if spec in ENVELOPE_PRESETS:
        return dict(ENVELOPE_PRESETS[spec])
    rule = (f"--envelope must be exp=E,div=D with optional ,ln=L and ,ftz (E, D and L integers in "
            f"[0, {MAX_ENVELOPE_ULP}]) or a preset ({', '.join(ENVELOPE_PRESETS)}), got {text!r}")
    found = {}
    for term in (t.strip() for t in spec.split(",")):
        m = _ENVELOPE_TERM.fullmatch(term)
        key = m.group(1) if m else term
        if key in found or not (m or term == "ftz"):
            raise InputFileError(rule)
        found[key] = int(m.group(2)) if m else True
    if "exp" not in found or "div" not in found or max(found["exp"], found["div"], found.get("ln", 0)) \
            > MAX_ENVELOPE_ULP:
        raise InputFileError(rule)
    return {"exp_ulp": found["exp"], "div_ulp": found["div"], "ln_ulp": found.get("ln", 1),
            "flush_subnormals": found.get("ftz", False)}


def _compare_platform(envelope_spec, overflow_mode: str, soc=None):
    """The emulated device: ``--soc``, else a preset's SoC, else the A2 reference
    platform, in ``overflow_mode``."""
    from ..platform import OVERFLOW_MODES, Platform

    if overflow_mode not in OVERFLOW_MODES:
        raise InputFileError(f"--overflow-mode must be one of {', '.join(OVERFLOW_MODES)}, got {overflow_mode!r}")
    if envelope_spec is not None and overflow_mode == "saturation":
        raise InputFileError("--envelope models the Inf/NaN overflow mode only; it cannot be combined with "
                             "--overflow-mode saturation")
    preset = (envelope_spec or {}).get("soc_version")
    if soc is not None:
        chosen = _soc_arg(soc)
        if preset is not None and Platform(soc_version=preset).architecture != chosen.architecture:
            raise InputFileError(f"--soc {soc!r} runs the {chosen.architecture} kernel, but the --envelope preset "
                                 f"documents the {Platform(soc_version=preset).architecture} one")
        preset = soc
    soc = preset or "ascend910b"
    try:
        return Platform(soc_version=soc, overflow_mode=overflow_mode)
    except ValueError as exc:
        raise InputFileError(f"--overflow-mode: {exc}") from None


def _envelope_section(g, x, o, golden, beta, spec, platform, worst, out) -> dict:
    """Print what the envelope explains; return it as a JSON-ready dict."""
    from ..precision import envelope, ordered_int

    kwargs = {k: v for k, v in spec.items() if k != "soc_version"}
    env = envelope(g, x, beta, platform=platform, **kwargs)
    inside = env.contains(o).reshape(-1)
    flat = {name: np.ascontiguousarray(a).reshape(-1) for name, a in
            (("output", o), ("golden", golden), ("lo", env.lo), ("hi", env.hi), ("grad", g), ("x", x))}
    with np.errstate(invalid="ignore"):
        nan_o = np.isnan(flat["output"].astype(np.float32))
        nan_g = np.isnan(flat["golden"].astype(np.float32))
        nan_lo = np.isnan(flat["lo"].astype(np.float32))
    uint = {2: np.uint16, 4: np.uint32}[o.dtype.itemsize]
    mismatch = (flat["output"].view(uint) != flat["golden"].view(uint)) & ~(nan_o & nan_g)
    outside = ~inside
    # How far outside [lo, hi] an unexplained element lies, in output ulps (0: a gap inside the
    # interval; -1: NaN where no NaN is reachable, or a number where only NaN is).
    zero = np.zeros_like(flat["output"])
    o_i = ordered_int(np.where(nan_o, zero, flat["output"]))
    lo_i, hi_i = (ordered_int(np.where(nan_lo, zero, flat[n])) for n in ("lo", "hi"))
    dist = np.maximum(np.maximum(lo_i - o_i, o_i - hi_i), 0)
    dist = np.where(nan_o | nan_lo, -1, dist)
    idx = np.flatnonzero(outside)
    order = idx[np.lexsort((idx, -np.where(dist[idx] < 0, np.iinfo(np.int64).max, dist[idx])))][:worst]
    shape = o.shape
    rows = [{"index": [int(v) for v in np.unravel_index(int(i), shape)] if shape else [],
             "output": float(flat["output"][i]), "lo": float(flat["lo"][i]), "hi": float(flat["hi"][i]),
             "ulps_outside": int(dist[i]), "grad": float(flat["grad"][i]), "x": float(flat["x"][i])}
            for i in order]
    terms = [f"Exp within {env.exp_ulp} ulp", f"Div within {env.div_ulp} ulp", f"Ln within {env.ln_ulp} ulp"]
    if env.flush_subnormals:
        terms.append("subnormal Exp/Div results flushed")
    consistent = not idx.size
    print(f"envelope ({', '.join(terms)}; {platform.architecture} kernel, model section 10):", file=out)
    print(f"  mismatches    : {int(mismatch.sum())}; explained by the envelope {int((mismatch & inside).sum())}, "
          f"not explained {int((mismatch & outside).sum())}", file=out)
    print(f"  outside       : {idx.size} of {inside.size} elements "
          f"({int((outside & ~mismatch).sum())} of them equal to the emulator's output)", file=out)
    print("  verdict       : " + ("CONSISTENT (every element is in the envelope)" if consistent else
                                  f"INCONSISTENT ({idx.size} elements outside the envelope)"), file=out)
    if rows:
        print("  worst unexplained elements:", file=out)
        table = [["index", "output", "lo", "hi", "ulps outside", "grad", "x"]]
        table += [[str(tuple(r["index"])), f"{r['output']:.9g}", f"{r['lo']:.9g}", f"{r['hi']:.9g}",
                   "nan" if r["ulps_outside"] < 0 else str(r["ulps_outside"]), f"{r['grad']:.9g}",
                   f"{r['x']:.9g}"] for r in rows]
        widths = [max(len(row[k]) for row in table) for k in range(len(table[0]))]
        for row in table:
            print("    " + "  ".join(c.rjust(w) for c, w in zip(row, widths)), file=out)

    def clean(v):
        return v if not isinstance(v, float) or math.isfinite(v) else str(v)

    return {"exp_ulp": env.exp_ulp, "div_ulp": env.div_ulp, "ln_ulp": env.ln_ulp,
            "flush_subnormals": env.flush_subnormals,
            "architecture": env.architecture, "mismatches": int(mismatch.sum()),
            "explained": int((mismatch & inside).sum()), "unexplained": int((mismatch & outside).sum()),
            "outside": int(idx.size), "consistent": consistent,
            "worst": [{k: clean(v) for k, v in r.items()} for r in rows]}


def _cmd_compare(args) -> int:
    return run_compare(args.grad, args.x, args.output, dtype=args.dtype, shape=args.shape,
                       beta=args.beta, json_path=args.json, worst=args.worst, envelope=args.envelope,
                       overflow_mode=args.overflow_mode, soc=args.soc)


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "compare",
        help="compare a device output dump against the emulator (model section 7 verdict)",
        description=__doc__.split("\n\n", 1)[1],
    )
    p.add_argument("--grad", required=True, help="gradOutput dump (.bin raw or .npy)")
    p.add_argument("--x", required=True, help="self (x) dump (.bin raw or .npy)")
    p.add_argument("--output", required=True, help="device gradInput dump (.bin raw or .npy)")
    p.add_argument("--dtype", help="float32, float16 or bfloat16 (required for raw dumps)")
    p.add_argument("--shape", help="e.g. 2,3,4 or 2x3x4 (required for raw dumps; () for 0-d)")
    p.add_argument("--beta", type=float, default=1.0, help="Swish beta (default 1.0), rounded to float32")
    p.add_argument("--soc", metavar="NAME", help="the device's SoC family or chip name (e.g. ascend950, "
                   "Ascend910B3); picks the kernel emulated (default: the Atlas A2 reference platform)")
    p.add_argument("--json", metavar="FILE", help="also write the report as JSON to FILE")
    p.add_argument("--worst", type=int, default=10, metavar="K", help="list the K worst elements (default 10)")
    p.add_argument("--envelope", metavar="SPEC",
                   help="also check every element against the outputs a device with Exp and Div errors can "
                        "reach: exp=E,div=D[,ln=L][,ftz] (ulps; ftz flushes subnormal results) or a preset: 950-doc; "
                        "exit 0 when all are inside, 1 otherwise")
    p.add_argument("--overflow-mode", default="infnan", choices=("infnan", "saturation"),
                   help="the device's float overflow mode (default infnan); saturation: A2/A3 only")
    p.set_defaults(func=_cmd_compare)

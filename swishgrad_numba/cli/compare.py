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

__all__ = ["InputFileError", "parse_shape", "load_array", "run_compare", "register"]


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
                json_path=None, worst=10, out=None, err=None, soc=None) -> int:
    """Body of ``swishgrad compare``; returns the exit code."""
    out = sys.stdout if out is None else out
    err = sys.stderr if err is None else err
    from .. import swish_backward
    from ..precision import compare

    try:
        dt = _dtype_arg(dtype)
        platform = _soc_arg(soc)
        shp = parse_shape(shape) if shape is not None else None
        if shp is not None and dt is not None:
            _check_shape_bytes(shp, dt)
        if worst < 0:
            raise InputFileError(f"--worst must be >= 0, got {worst}")
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
    print(report.format(), file=out)
    if json_path is not None:
        doc = {
            "grad": grad_path, "x": x_path, "output": output_path,
            "beta": float(np.float32(beta)), "golden": "swishgrad_numba emulator",
            "soc_version": platform.soc_version, "kernel": platform.architecture,
            "report": report.to_dict(),
        }
        try:
            with open(json_path, "w") as f:
                json.dump(doc, f, indent=2)
        except OSError as exc:
            print(f"swishgrad compare: error: --json: cannot write {json_path!r}: {exc.strerror or exc}",
                  file=err)
            return 2
    return 0 if report.passed else 1


def _cmd_compare(args) -> int:
    return run_compare(args.grad, args.x, args.output, dtype=args.dtype, shape=args.shape,
                       beta=args.beta, json_path=args.json, worst=args.worst, soc=args.soc)


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
    p.set_defaults(func=_cmd_compare)

"""Reader census over an ops-nn checkout (issue 43): how many of its element-wise kernel folders read.

    PYTHONPATH=/path/to/swishgrad_numba python bench/census_ops_nn.py /path/to/ops-nn [--workers 2] [--json out.json]

Run from outside the package: it only calls the public API (``swishgrad_numba.ops.read_kernel``,
``swishgrad_numba.ops``) on the ops-nn files where they lie; nothing of ops-nn is copied.

**Selection rule.** Every folder named ``op_kernel`` under ``activation/`` or ``experimental/activation/``
of the checkout, none below a ``tests`` folder (ops-nn's UT trees hold ``tests/ut/op_kernel``); the unit is
its parent, the operator folder (``op_kernel/`` and, where present, ``op_host/``). At ops-nn e5c3fa93 that is
146 folders (84 under ``activation/``, 62 under ``experimental/activation/``), the count of the last census.

**Per folder** one subprocess (``--timeout`` seconds; a hang or a crash is recorded, never stops the census)
calls ``read_kernel(folder)``; where op_kernel holds an A2 entry and a 950 entry (a ``*_apt.cpp`` or an entry
in ``arch35/``) also ``read_kernel(folder, platform=ASCEND950)``. Each attempt is ``read``, ``refused`` (a
``KernelSourceError``: file, line, construct) or ``crashed`` (any other exception, a timeout, a dead process).

**Bit-equality.** A read kernel whose op type (op_host's definition, else the ``__global__`` name) is the
``kernel_op`` of a package operator with a kernel on the read kernel's architecture is run against that
operator (``ops.call``) on the architecture's reference platform (ascend910b, ascend950): per dtype both read
and modelled, 2,048 seeded random values (normal, scaled) plus specials (±0, ±inf, NaN, ±1e-3, ±1, ±10, the
largest finite, the smallest normal and subnormal), compared bit for bit (an input the package's operator does not take, MishGrad's ``tanhx``, goes to the read
kernel only; the variants that do not read it are the ones compared). Inputs are matched by role: of the
orders of the source's inputs, the one under which the most dtypes are equal (reported where not the
source's own). Attributes: a beta operator's 1.5 on both sides (the read kernel's one float attribute); a
described operator's defaults, passed to the read kernel by name where it has that attribute; else the read
kernel's own defaults, 1.0 for a float attribute with none (Silu: Swish's scale 1); a described operator's one
float attribute goes to a read kernel's one float attribute where no name matches (a 950 DAG's
``Placeholder::Var``, which the host sets by ``SetScalar<float>``: LeakyRelu's slope); a string attribute
(``approximate``) only picks the package's kernel, the read kernel's variants are each run; a read kernel's
float attribute left with no value is 1.0 there too (the 950 EluGradV2's ``negcoef``, its host's
``alpha * scale``, 1.0 at the package's defaults). Where the source's
Compute has several variants for a dtype (a tiling key or an attribute switch, which ``run`` does not yet pick
by itself), each is run, and the cell names the ones equal to the package's operator (the census's pick, not
the host's). One subprocess per compared folder x operator (``--compare-timeout``).

Deterministic: folders in sorted order, seeds from the folder's path, results printed in folder order.
"""
from __future__ import annotations

import argparse
import collections
import itertools
import json
import os
import subprocess
import sys
import zlib
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

CATEGORIES = ("activation", "experimental/activation")
DTYPES = ("float32", "float16", "bfloat16")
N_RANDOM = 2048


# --- selection (pure: no package import) ---------------------------------------------------------------

def select_folders(root) -> list:
    """The operator folders (parents of ``op_kernel``) under :data:`CATEGORIES` of ``root``, none below
    a ``tests`` folder, sorted by their path relative to ``root``."""
    root = Path(root)
    found = set()
    for cat in CATEGORIES:
        base = root / cat
        if not base.is_dir():
            continue
        for dirpath, dirnames, _files in os.walk(base):
            dirnames[:] = sorted(d for d in dirnames if d != "tests" and not Path(dirpath, d).is_symlink())
            if "op_kernel" in dirnames:
                found.add(Path(dirpath).relative_to(root).as_posix())
    return sorted(found)


def _entries(kernel_dir: Path) -> list:
    top = sorted(kernel_dir.glob("*.cpp"))
    deep = sorted((kernel_dir / "arch35").glob("*.cpp"))
    out = []
    for p in top + deep:
        try:
            if p.is_file() and not p.is_symlink() and "__global__" in p.read_text(errors="replace"):
                out.append(p)
        except OSError:
            continue
    return out


def platforms_to_try(folder) -> list:
    """``[None]``, plus ``"ascend950"`` where op_kernel holds an A2 entry and a 950 entry."""
    kernel_dir = Path(folder) / "op_kernel"
    entries = _entries(kernel_dir)
    is_950 = [p.parent.name == "arch35" or p.stem.endswith("_apt") for p in entries]
    return [None, "ascend950"] if any(is_950) and not all(is_950) else [None]


# --- children (import the package) -----------------------------------------------------------------------

def _platform(soc):
    from swishgrad_numba.platform import Platform
    return None if soc is None else Platform(soc_version=soc)


def _package_matches(op):
    """Package operators whose ``kernel_op`` is ``op``'s op type, with a kernel on its architecture."""
    from swishgrad_numba import ops
    op_type = op.definition.name if op.definition is not None else op.kernel_op
    camel = "".join(w[:1].upper() + w[1:] for w in str(op_type).split("_"))
    return op_type, sorted(n for n, p in ops.OPERATORS.items()
                           if p.kernel_op in (op_type, camel) and op.architecture in p.kernels)


def child_read(folder: str) -> list:
    from swishgrad_numba.ops import read_kernel
    from swishgrad_numba.reader import KernelSourceError
    rows = []
    for soc in platforms_to_try(folder):
        row = {"platform": soc or "default"}
        try:
            op = read_kernel(folder, platform=_platform(soc))
        except KernelSourceError as exc:
            row.update(status="refused", file=exc.file, line=exc.line, construct=exc.construct,
                       message=str(exc).splitlines()[0])
        except Exception as exc:  # noqa: BLE001 - the census records every other failure as a crash
            row.update(status="crashed", error=f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}")
        else:
            op_type, matches = _package_matches(op)
            row.update(status="read", arch=op.architecture, name=op.name, op_type=op_type,
                       dtypes=[d for d in op.description.dtypes if d in DTYPES],
                       inputs=list(op.description.inputs_read), matches=matches)
        rows.append(row)
    return rows


def _inputs(dtype: str, seed: int):
    import ml_dtypes  # noqa: F401 - registers bfloat16 with NumPy
    import numpy as np
    np_dtype = np.dtype(ml_dtypes.bfloat16) if dtype == "bfloat16" else np.dtype(dtype)
    rng = np.random.default_rng(seed)
    rand = (rng.standard_normal(N_RANDOM) * rng.choice([0.01, 1.0, 4.0, 30.0], N_RANDOM)).astype(np.float32)
    info = ml_dtypes.finfo(np_dtype)
    specials = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-3, -1e-3, 1, -1, 10, -10, float(info.max),
                         -float(info.max), float(info.tiny), -float(info.tiny), float(info.smallest_subnormal)],
                        dtype=np.float32)
    return np.concatenate([rand, specials]).astype(np_dtype)


def _bits(a):
    import numpy as np
    return np.ascontiguousarray(a).view(np.uint8)


def _attributes(op, package):
    """(the read kernel's keyword attributes, the package's attr32)."""
    import numpy as np
    desc = getattr(package, "described_by", None)
    if package.has_beta and len(op.attributes) == 1:
        return {op.attributes[0]: 1.5}, np.float32(1.5)
    if desc is not None and desc.kernel_attributes:
        from swishgrad_numba.faces.functional import attr32_of
        values = {a.name: a.default for a in desc.kernel_attributes}
        host = [a[0] for a in (op.definition.attrs if op.definition else ())] if op.style == "a2" \
            else list(op.attribute_names)           # a 950 DAG's host is not evaluated: its fields only
        known = {n.replace("_", "").lower(): n for n in list(op.attributes) + host}
        mine = {known[k.replace("_", "").lower()]: float(v) for k, v in values.items()
                if k.replace("_", "").lower() in known and not isinstance(v, str)}
        floats = [k for k, v in values.items() if isinstance(v, float)]
        if not mine and len(floats) == 1 and len(op.attributes) == 1 and op.attributes[0] not in op.attribute_defaults:
            mine = {op.attributes[0]: float(values[floats[0]])}     # a DAG's one Var, set by the host's SetScalar
        mine.update({a: 1.0 for a in op.attributes if a not in mine and a not in op.attribute_defaults
                     and op.attribute_names.get(a, a) not in mine})
        return mine, attr32_of(desc, values)
    return {a: 1.0 for a in op.attributes if a not in op.attribute_defaults}, None


def _verdict(found: dict, size: int) -> str:
    """"equal" or "differ (n of size)"; where the source has several variants (the host picks one, by
    attribute or tiling key), which of them are equal, or each one's count."""
    if len(found) == 1:
        n = next(iter(found.values()))
        return "equal" if n == 0 else f"differ ({n} of {size})"
    equal = [v for v, n in found.items() if n == 0]
    if equal:
        return f"equal (variant {' / '.join(f'`{v}`' for v in equal)}, of {len(found)})"
    return "differ (" + ", ".join(f"`{v}` {n}" for v, n in found.items()) + f" of {size})"


def child_compare(folder: str, soc, package_name: str) -> dict:
    from swishgrad_numba import ops
    from swishgrad_numba.ops import read_kernel
    from swishgrad_numba.ops.call import call
    from swishgrad_numba.platform import ARCH_950, ASCEND950_PLATFORM, REFERENCE_PLATFORM
    op = read_kernel(folder, platform=_platform(soc))
    package = ops.get_operator(package_name)
    platform = ASCEND950_PLATFORM if op.architecture == ARCH_950 else REFERENCE_PLATFORM
    names = list(op.description.inputs_read)
    mine_attrs, attr32 = _attributes(op, package)
    seed = zlib.crc32(f"{folder}|{soc}|{package_name}".encode())
    dtypes = [d for d in op.description.dtypes if d in DTYPES]
    orders = list(itertools.permutations(range(len(names)))) if len(names) <= 3 else [tuple(range(len(names)))]
    best = None
    for order in orders:
        result = {}
        for dtype in dtypes:
            arrays = [_inputs(dtype, seed + 7919 * i) for i in range(len(names))]
            try:
                k = min(len(order), int(getattr(package, "inputs", 0) or len(order)))   # MishGrad's tanhx: the read
                theirs = call(package_name, tuple((names[i], arrays[i]) for i in order[:k]), attr32, None, platform)
                variants = op.variants(dtype)
                found = {}
                for v in variants:
                    ours = op.run(**dict(zip(names, arrays)), **mine_attrs, platform=platform, variant=v or None)
                    found[v] = int((_bits(ours).reshape(ours.size, -1)
                                    != _bits(theirs).reshape(theirs.size, -1)).any(1).sum())
                result[dtype] = _verdict(found, theirs.size)
            except Exception as exc:  # noqa: BLE001 - recorded, not raised
                result[dtype] = f"error: {type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"[:160]
        score = sum(v.startswith("equal") for v in result.values())
        if best is None or score > best[0]:
            best = (score, order, result)
        if score == len(dtypes):
            break
    _, order, result = best
    pairing = "" if list(order) == sorted(order) else ", ".join(f"{names[i]} as input {k}" for k, i in enumerate(order))
    return {"package": package_name, "platform": platform.soc_version, "dtypes": result, "pairing": pairing,
            "attrs": {k: float(v) for k, v in mine_attrs.items()}}


# --- the census ------------------------------------------------------------------------------------------

def _run_child(args: list, timeout: float):
    cmd = [sys.executable, os.path.abspath(__file__), *args]
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, f"timeout after {timeout:g} s"
    lines = [ln for ln in done.stdout.splitlines() if ln.startswith("CENSUS ")]
    if done.returncode != 0 or not lines:
        tail = (done.stderr.strip().splitlines() or ["(no output)"])[-1]
        return None, f"exit {done.returncode}: {tail[:200]}"
    return json.loads(lines[-1][len("CENSUS "):]), None


def census(root, workers: int = 2, timeout: float = 120, compare_timeout: float = 1200, compare: bool = True) -> dict:
    root = Path(root).resolve()
    folders = select_folders(root)

    def read_one(rel):
        rows, err = _run_child(["--child-read", str(root / rel)], timeout)
        rows = rows if rows is not None else [{"platform": "default", "status": "crashed", "error": err}]
        print(f"read {rel}: " + json.dumps(rows), file=sys.stderr, flush=True)
        return rel, rows

    with ThreadPoolExecutor(max_workers=workers) as pool:
        reads = dict(pool.map(read_one, folders))
    jobs = [(rel, row["platform"], m) for rel in folders for row in reads[rel]
            if compare and row["status"] == "read" for m in row["matches"]]

    def compare_one(job):
        rel, plat, name = job
        soc = None if plat == "default" else plat
        res, err = _run_child(["--child-compare", str(root / rel), str(soc), name], compare_timeout)
        res = res if res is not None else {"package": name, "error": err}
        print(f"compare {rel} {plat} {name}: " + json.dumps(res), file=sys.stderr, flush=True)
        return job, res

    with ThreadPoolExecutor(max_workers=workers) as pool:
        compares = list(pool.map(compare_one, jobs))
    return {"root": str(root), "folders": folders, "reads": reads, "compares": compares}


_KINDS = (
    (r"^unknown call .*Compare", "a Compare-family call"),
    (r"^unknown call |^AscendC::", "another call it does not know"),
    (r"^#include", "an #include it does not follow"),
    (r"^#if", "a preprocessor conditional around code"),
    (r"^'.*'$", "a token outside the C++ subset"),
    (r"^(using|std::|ReinterpretCast|assignment to \*reinterpret)", "a C++ construct outside the subset"),
    (r"^BroadcastSch", "the BroadcastSch scheduler"),
    (r"^DAG ", "a DAG node or op it does not read"),
    (r"^name ", "a name it does not know"),
    (r"^member ", "a tiling member it does not read"),
    (r"^a local tensor", "a local tensor at an offset or of a queue"),
    (r"^a loop|^continue", "a loop"),
)


def kind(construct: str) -> str:
    """The coarse kind of a refusal's construct (:data:`_KINDS`; the construct itself where none fits)."""
    import re
    return next((k for pattern, k in _KINDS if re.search(pattern, construct)), construct)


def summary(result: dict) -> str:
    reads, folders = result["reads"], result["folders"]
    attempts = [(rel, row) for rel in folders for row in reads[rel]]
    out = [f"ops-nn at {result['root']}: {len(folders)} operator folders with op_kernel/ "
           f"(rule: {' and '.join(c + '/' for c in CATEGORIES)}, not under tests/)"]
    default = collections.Counter(reads[rel][0]["status"] for rel in folders)
    any_read = sum(any(r["status"] == "read" for r in reads[rel]) for rel in folders)
    out.append("")
    out.append("| | read | refused | crashed | total |")
    out.append("|---|---|---|---|---|")
    out.append(f"| folders, default platform | {default['read']} | {default['refused']} | {default['crashed']} "
               f"| {len(folders)} |")
    extra = [row for rel in folders for row in reads[rel][1:]]
    e = collections.Counter(r["status"] for r in extra)
    out.append(f"| folders' 950 entries (platform=ascend950) | {e['read']} | {e['refused']} | {e['crashed']} "
               f"| {len(extra)} |")
    out.append(f"| folders read on some platform | {any_read} | | | {len(folders)} |")
    first = collections.Counter(r["construct"] for _, r in attempts if r["status"] == "refused")
    kinds = collections.Counter(kind(c) for c in first.elements())
    out += ["", "First refusal by kind, ranked (every attempt):", "", "| attempts | kind |", "|---|---|"]
    out += [f"| {n} | {k} |" for k, n in sorted(kinds.items(), key=lambda kv: (-kv[1], kv[0]))]
    out += ["", "First refusal, ranked (every attempt):", "", "| attempts | construct |", "|---|---|"]
    out += [f"| {n} | `{c}` |" for c, n in sorted(first.items(), key=lambda kv: (-kv[1], kv[0]))]
    crashed = [(rel, r) for rel, r in attempts if r["status"] == "crashed"]
    if crashed:
        out += ["", "Crashed:"] + [f"- {rel} ({r['platform']}): {r['error']}" for rel, r in crashed]
    out += ["", "Read:", ""] + [f"- {rel} ({r['platform']}): {r['arch']} {r['op_type']} {'/'.join(r['dtypes'])}"
                                + (f" -> package {', '.join(r['matches'])}" if r["matches"] else "")
                                for rel, r in attempts if r["status"] == "read"]
    out += ["", "Bit-equality, read kernel vs package operator:", "", "| folder | platform | package | "
            + " | ".join(DTYPES) + " | note |", "|---|---|---|" + "---|" * (len(DTYPES) + 1)]
    n_equal = n_runs = 0
    for (rel, _plat, name), res in result["compares"]:
        if "error" in res:
            out.append(f"| {rel} | | {name} |" + " |" * len(DTYPES) + f" {res['error']} |")
            continue
        cells = [res["dtypes"].get(d, "") for d in DTYPES]
        n_runs += sum(bool(c) for c in cells)
        n_equal += sum(c.startswith("equal") for c in cells)
        note = "; ".join(x for x in (res["pairing"], ", ".join(f"{k}={v:g}" for k, v in res["attrs"].items())) if x)
        out.append(f"| {rel} | {res['platform']} | {name} | " + " | ".join(cells) + f" | {note} |")
    out.append(f"\n{len(result['compares'])} folder x operator pairs, {n_equal} of {n_runs} dtype runs bit-equal.")
    return "\n".join(out)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("root", nargs="?", help="an ops-nn checkout")
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--timeout", type=float, default=120, help="seconds per folder's read")
    p.add_argument("--compare-timeout", type=float, default=1200, help="seconds per folder x operator comparison")
    p.add_argument("--json", help="also write the full results here")
    p.add_argument("--no-compare", action="store_true", help="read only: no bit-equality runs")
    p.add_argument("--summary-of", help="print the summary of a --json file written before (no run)")
    p.add_argument("--child-read", help=argparse.SUPPRESS)
    p.add_argument("--child-compare", nargs=3, help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.child_read:
        print("CENSUS " + json.dumps(child_read(args.child_read)))
        return 0
    if args.child_compare:
        folder, soc, name = args.child_compare
        print("CENSUS " + json.dumps(child_compare(folder, None if soc == "None" else soc, name)))
        return 0
    if args.summary_of:
        print(summary(json.loads(Path(args.summary_of).read_text())))
        return 0
    if not args.root or not Path(args.root).is_dir():
        p.error(f"root must be an ops-nn checkout folder, got {args.root!r}")
    if not 1 <= args.workers <= 2:
        p.error(f"--workers must be 1 or 2 (the machine has 2 cores), got {args.workers}")
    result = census(args.root, args.workers, args.timeout, args.compare_timeout, not args.no_compare)
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=1, sort_keys=True))
    print(summary(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())

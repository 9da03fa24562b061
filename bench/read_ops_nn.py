"""The reader over ops-nn's element-wise kernel folders, from outside the package (issue 43).

``PATH`` is an ops-nn checkout. Every operator folder with an ``op_kernel/`` under ``--categories`` (default
``activation`` and ``experimental/activation``) is read with ``read_kernel`` for the Atlas A2 and for the
Ascend 950; the script counts the folders read (on at least one platform, and on each), tallies the
refusals by construct and lists anything that is not a ``KernelSourceError``. Where the package models the
same kernel (a registered operator whose kernel source is that folder and platform), the read kernel and
the package's are run on the same inputs (float32, float16, bfloat16; each with its own host tiling) and
compared bit for bit.

    PYTHONPATH=. python bench/read_ops_nn.py /path/to/ops-nn
"""
from __future__ import annotations

import argparse
import collections
import sys
import time
from pathlib import Path

import numpy as np


def folders(root: Path, categories) -> list:
    found = set()
    for cat in categories:
        base = root / cat
        if base.is_dir():
            found |= {p.parent for p in base.glob("*/op_kernel") if p.is_dir()}
    return sorted(found)


def compare(package_op, read_op, arch, platform, rng) -> list:
    """The dtypes whose outputs differ (empty: bit-equal) between the package's kernel and the read one; a
    two-input kernel is also tried with its inputs the other way round (the package's run takes (dy, y),
    a kernel's GM order may be (y, dy)): a dtype equal only so is listed as "<dtype> (inputs swapped)"."""
    from swishgrad_numba.dtypes import dtype_info

    def launch(op, info, numel, beta, grad, x):
        tiling = op.host_tiling(numel, info, beta, platform)
        out = np.zeros(numel, info.numpy)
        kw = {"saturation": True} if platform.saturation else {}
        if getattr(op, "axpy", False):
            kw["axpy_rounding"] = platform.axpy_rounding
        op.kernels[arch].run(grad, x, out, tiling, **kw)
        return out.view(np.uint8).tobytes()

    bad = []
    for name in ("float32", "float16", "bfloat16"):
        info = dtype_info(name)
        numel = 4096 * 3 + 37
        xs = [(rng.standard_normal(numel) * 4).astype(np.float32).astype(info.numpy) for _ in range(2)]
        beta = np.float32(0.75) if package_op.has_beta else None
        grad, x = (xs[0], xs[1]) if package_op.inputs == 2 else (None, xs[1])
        want = launch(package_op, info, numel, beta, grad, x)
        if launch(read_op, info, numel, beta, grad, x) == want:
            continue
        swapped = grad is not None and launch(read_op, info, numel, beta, x, grad) == want
        bad.append(f"{name} (inputs swapped)" if swapped else name)
    return bad


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path", type=Path, help="an ops-nn checkout")
    parser.add_argument("--categories", nargs="+", default=["activation", "experimental/activation"])
    args = parser.parse_args(argv)
    from swishgrad_numba.ops import OPERATORS, read_kernel
    from swishgrad_numba.platform import ARCH_950, ARCH_A2, ASCEND950_PLATFORM, REFERENCE_PLATFORM
    from swishgrad_numba.reader import KernelSourceError

    platforms = {ARCH_A2: REFERENCE_PLATFORM, ARCH_950: ASCEND950_PLATFORM}
    todo = folders(args.path, args.categories)
    start = time.perf_counter()
    read, crashes, reasons, ops = collections.Counter(), [], collections.Counter(), {}
    for folder in todo:
        rel = str(folder.relative_to(args.path))
        any_read = False
        for arch, platform in platforms.items():
            try:
                ops[rel, arch] = read_kernel(folder, platform=platform)
                read[arch] += 1
                any_read = True
            except KernelSourceError as exc:
                reasons[f"{exc.construct[:60]}: {exc.detail[:60]}"] += 1
            except (ValueError, TypeError) as exc:          # a folder without this platform's entry
                reasons[f"{type(exc).__name__}: {str(exc)[:90]}"] += 1
            except Exception as exc:                          # noqa: BLE001 (what the survey looks for)
                crashes.append(f"{rel} ({arch}): {type(exc).__name__}: {exc}"[:300])
        read["any"] += any_read
    print(f"{len(todo)} folders under {', '.join(args.categories)} in {time.perf_counter() - start:.0f} s: "
          f"{read['any']} read on at least one platform ({read[ARCH_A2]} on the A2, {read[ARCH_950]} on the 950); "
          f"{len(crashes)} crashes")
    for c in crashes:
        print("  crash:", c)
    print("most common refusals:")
    for why, n in reasons.most_common(15):
        print(f"  {n:4d}  {why}")
    rng = np.random.default_rng(43)
    equal, differ, unread = [], [], []
    for name, op in OPERATORS.items():
        for arch, kernel in op.kernels.items():
            rel = kernel.source.split(" (")[0]
            if (rel, arch) not in ops:
                unread.append(f"{name} ({arch}: {rel})")
                continue
            try:
                bad = compare(op, ops[rel, arch], arch, platforms[arch], rng)
            except Exception as exc:                          # noqa: BLE001
                differ.append(f"{name} ({arch}): not compared: {type(exc).__name__}: {str(exc)[:120]}")
                continue
            if bad and all(b.endswith("(inputs swapped)") for b in bad):
                equal.append(f"{name} ({arch}), the kernel's inputs in the other order")
                continue
            (differ if bad else equal).append(f"{name} ({arch})" + (f": {bad} differ" if bad else ""))
    print(f"modelled by the package and read: {len(equal)} bit-equal, {len(differ)} not")
    for line in equal:
        print("  equal:", line)
    for line in differ:
        print("  not:", line)
    print(f"modelled by the package, not read: {len(unread)}: {', '.join(unread)}")
    return 1 if crashes else 0


if __name__ == "__main__":
    sys.exit(main())

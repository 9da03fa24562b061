"""Where a large hot call's time goes, layer by layer (issue 39, layers).

    python bench/call_layers.py [OP:KERNEL:DTYPE ...] [--turns T]

For each row (default ``leaky_relu_grad:arch35:float16`` and ``sigmoid_grad:a2:bfloat16``), at the bench's 2^22
inputs on 2 threads, each a median of 20 back-to-back calls, the median over ``--turns`` turns whose order rotates
(the first variant of a turn ran slower in a fixed order), ms:

- ``torch``: the PyTorch peer, as the table times it;
- ``face``: the operator's public function with ``out=`` (the bench's emulator call);
- ``_launch``: :func:`swishgrad_numba.engine.hot._launch` with the call's arguments and the launch's kept entry
  points, as a call plan has them (no face, no call plan);
- ``_hot_bins``: the launch's compiled function with its arguments made once, through Numba's dispatcher;
- ``entry``: the same through its compiled entry point (:mod:`swishgrad_numba.engine.entry`);
- ``blocks``: the generated block in a bare ``prange`` over the two halves (no bins, no passes);
- ``checks``: what a repeated call must still check (each array's type, dtype, shape, strides, contiguity and
  ``out``'s overlap with the inputs; the thread count) and the launch, the rest of the face's path left out: the
  floor of a replay path that checks only what can change between calls (the launch through its entry point). Not
  a face: this row's arrays only.

A report, not a test: read a row against its neighbours from the same run.
"""
from __future__ import annotations

import argparse
import time

import numpy as np
from hot_prefetch import captured   # (bench/ is the script's folder)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("rows", nargs="*", default=["leaky_relu_grad:arch35:float16", "sigmoid_grad:a2:bfloat16"])
    ap.add_argument("--turns", type=int, default=9)
    a = ap.parse_args(argv)
    import numba
    import torch
    from numba import njit, prange

    from swishgrad_numba.benchmark.family import op_calls
    from swishgrad_numba.engine import hot
    from swishgrad_numba.engine.entry import Entries
    from swishgrad_numba.engine.launch import frozen
    from swishgrad_numba.platform import Platform

    torch.set_num_threads(2)
    numba.set_num_threads(2)
    for row in a.rows:
        op, kernel, dtype = row.split(":")
        fixed, ins, flat_out, (g, x), source = captured(op, kernel, dtype)
        params, rest = fixed
        out = np.empty_like(x)
        face, peer = op_calls(op, g, x, out, Platform() if kernel == "a2" else Platform(soc_version="ascend950"))
        padded = tuple(frozen(v) for v in ins)
        padded += (padded[0],) * (hot.MAX_INPUTS - len(padded))
        bins_args = (params, padded, len(ins), flat_out, flat_out.shape[0], *rest)
        entries = Entries(hot._hot_bins)
        namespace = hot._globals()
        exec(source, namespace)   # noqa: S102 (the generated source)
        block = njit(namespace["hot_block"], error_model="numpy")

        @njit(parallel=True, error_model="numpy")
        def blocks(params, x0, x1, x2, out, scalars, tables, blk):
            half = out.shape[0] // 2
            for t in prange(2):
                scratch = np.empty((max(params.scratch_rows, 1), blk), dtype=np.float32)
                for b0 in range(t * half, (t + 1) * half, blk):
                    block(params, x0, x1, x2, out, b0, min(blk, (t + 1) * half - b0), scalars, tables, scratch)

        bits = ins[0].dtype
        arrays = tuple(next(v for v in (g, x) if np.may_share_memory(v, i)) for i in ins)   # in the kernel's order

        def checks():
            for v in arrays + (out,):
                if type(v) is not np.ndarray or v.dtype != x.dtype or v.shape != x.shape or v.strides != x.strides \
                        or not v.flags.c_contiguous:
                    raise ValueError("not this row's arrays")
            if not out.flags.writeable or any(np.may_share_memory(out, v) for v in arrays):
                raise ValueError("out is read-only or overlaps an input")
            numba.get_num_threads()
            flat = tuple(frozen(v.reshape(-1).view(bits)) for v in arrays)
            o = out.reshape(-1).view(bits)
            entries.call((params, flat + (flat[0],) * (hot.MAX_INPUTS - len(flat)), len(flat), o, o.shape[0], *rest),
                         flat + (o,))

        variants = {
            "torch": peer,
            "face": face,
            "_launch": lambda: hot._launch(fixed, ins, flat_out, entries),
            "_hot_bins": lambda: hot._hot_bins(*bins_args),
            "entry": lambda: entries.call(bins_args, padded[:len(ins)] + (flat_out,)),
            "blocks": lambda: blocks(params, *padded, flat_out, rest[3], rest[4], rest[-1]),
            "checks": checks,
        }
        for f in variants.values():
            f()
            f()
        got = {k: [] for k in variants}
        order = list(variants.items())
        for turn in range(a.turns):
            for k, f in order[turn % len(order):] + order[:turn % len(order)]:
                time.sleep(0.01)
                ts = []
                for _ in range(20):
                    t0 = time.perf_counter()
                    f()
                    ts.append(time.perf_counter() - t0)
                got[k].append(float(np.median(ts)) * 1e3)
        print(f"{row}, 2^22 elements, 2 threads; ms, median of {a.turns} turns (least)")
        for k, v in got.items():
            print(f"  {k:10s} {np.median(v):.3f} ({min(v):.3f})")


if __name__ == "__main__":
    main()

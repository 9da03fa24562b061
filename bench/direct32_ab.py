#!/usr/bin/env python
"""python bench/direct32_ab.py OP ... (engine-f32, issue 39).
In one process: the old block path (launch.run_blocks_of: CopyIn, machine, CopyOut) against the flat launch
(run_bin, with direct32 where it plans), over the same stream, one thread, thread time, alternating."""
import sys, time, numpy as np
from swishgrad_numba.benchmark.family import OP_BENCHES, make_inputs
from swishgrad_numba.dtypes import dtype_info
from swishgrad_numba.ops import get_operator
from swishgrad_numba.platform import Platform
from swishgrad_numba.engine import runner, launch
from swishgrad_numba.kernel.walk import PIECE_DTYPE
plats = {"a2": Platform(), "arch35": Platform(soc_version="ascend950")}
seen = {}
orig = runner.Prepared.run
def spy(self, ins, out, plan, attrs):
    seen["p"] = (self, attrs); return orig(self, ins, out, plan, attrs)
runner.Prepared.run = spy
n = 1 << 20
info = dtype_info("float32")
for op in sys.argv[1:]:
    for kernel in get_operator(op).kernels:
        seen.clear(); b = OP_BENCHES[op]
        g, x = make_inputs(1 << 14, info); b.emulator(g, x, np.empty_like(x), b.beta, plats[kernel])
        if "p" not in seen: continue
        p, attrs = seen["p"]; m = p.main
        G, X = make_inputs(n, info)
        ins = (G, X) if p.inputs == 2 else (X,)
        o1 = np.empty(n, np.float32); o2 = np.empty(n, np.float32)
        sc, tb = p.launch_args(attrs)
        raw, inputs, wide, raw_out, numel = launch.raw_args(ins, o2)
        P = 8192
        pieces = runner.frozen(np.array([(0, 1, 0, n // P, P, P)], dtype=PIECE_DTYPE))
        arena = np.empty(m.arena_len, np.float32)
        def old():
            for s in range(0, n, P):
                launch.run_blocks_of(m.code, sc, tb, ins, s, o1, s, P, arena, m.grain, m.out, p.sat)
        def new():
            launch.run_bin(m.code, sc, tb, raw, inputs, wide, raw_out, numel, pieces, 0, 1, m.grain, m.arena_len, m.out, p.sat)
        old(); new()
        assert (o1.view(np.uint32) == o2.view(np.uint32)).all(), op
        res = {"old": [], "new": []}
        for r in range(9):
            for k, f in (("old", old), ("new", new)) if r % 2 == 0 else (("new", new), ("old", old)):
                t = time.thread_time(); f(); res[k].append(time.thread_time() - t)
        o, nn = min(res["old"]) / n * 1e9, min(res["new"]) / n * 1e9
        print(f"{op:15s} {kernel:6s} old {o:.3f} new {nn:.3f} ns/elt  ({nn / o:.2f})", flush=True)

"""A fresh process's first float32 calls (run with an empty NUMBA_CACHE_DIR): process CPU and wall seconds (engine-f32)."""
import time, resource, numpy as np
t0 = time.process_time(); w0 = time.time()
from swishgrad_numba.benchmark.family import OP_BENCHES, make_inputs
from swishgrad_numba.dtypes import dtype_info
from swishgrad_numba.platform import Platform
info = dtype_info("float32")
for op, plat in (("leaky_relu_grad", Platform(soc_version="ascend950")), ("silu_grad", Platform())):
    b = OP_BENCHES[op]; g, x = make_inputs(4096, info); b.emulator(g, x, np.empty_like(x), b.beta, plat)
r = resource.getrusage(resource.RUSAGE_SELF)
print(f"cold first calls: process CPU {time.process_time() - t0:.1f} s, wall {time.time() - w0:.1f} s")

"""Throughput of the emulator against its peers: the package behind ``swishgrad bench``.

- :mod:`.inputs`: seeded inputs, the size and thread-count arguments, the two betas;
- :mod:`.timing`: medians of calls timed round-robin (:func:`time_interleaved`);
- :mod:`.peers`: what the emulator is timed against: the NumPy golden,
  PyTorch's ``silu_backward``, the same arithmetic over flat chunks (SwishGrad's
  program on the engine, without the tiling), and a STREAM triad (the memory roofline);
- :mod:`.runner`: :func:`run_comparison` (every implementation per dtype, size
  and thread count, one row each) and :func:`thread_scaling` (small launches
  at 1 and more host threads);
- :mod:`.fresh`: measurements in fresh interpreters: :func:`cold_start` and
  :func:`memory_growth`;
- :mod:`.verdicts`: issue 14's targets as PASS/MISS lines (:func:`targets`);
- :mod:`.report`: :func:`machine_info` and the printed tables;
- :mod:`.family`: each operator of the family against its PyTorch peer
  (:func:`run_op_comparison`, ``swishgrad bench --op``).

This is a report, not a test: nothing here asserts on time.
"""
from .family import DEFAULT_OP, OP_BENCHES, check_op, format_op_table, op_calls, run_op_comparison
from .fresh import COLD_START_SIZE, MEMORY_SIZE, cold_start, memory_growth
from .inputs import BETA_NUMPY, BETA_TORCH, MAX_LOG2_SIZE, SEED, make_inputs, parse_sizes, parse_threads
from .peers import FLAT_CHUNK, flat_loop, numpy_golden, torch_available, torch_ops, torch_tensor, triad
from .report import format_cold_start, format_memory, format_scaling, format_table, machine_info
from .runner import DEFAULT_DTYPES, SCALING_CORES, SCALING_SIZE, find_row, run_comparison, thread_scaling
from .verdicts import format_targets, targets
from .timing import time_call, time_interleaved

__all__ = [
    "BETA_NUMPY",
    "BETA_TORCH",
    "COLD_START_SIZE",
    "DEFAULT_DTYPES",
    "DEFAULT_OP",
    "FLAT_CHUNK",
    "MAX_LOG2_SIZE",
    "MEMORY_SIZE",
    "OP_BENCHES",
    "SCALING_CORES",
    "SCALING_SIZE",
    "SEED",
    "check_op",
    "cold_start",
    "find_row",
    "flat_loop",
    "format_cold_start",
    "format_memory",
    "format_op_table",
    "format_scaling",
    "format_table",
    "format_targets",
    "machine_info",
    "make_inputs",
    "memory_growth",
    "numpy_golden",
    "op_calls",
    "parse_sizes",
    "parse_threads",
    "run_comparison",
    "run_op_comparison",
    "targets",
    "thread_scaling",
    "time_call",
    "time_interleaved",
    "torch_available",
    "torch_ops",
    "torch_tensor",
    "triad",
]

"""What a benchmark run is given: seeded inputs, its size and thread-count arguments, the two betas."""
from __future__ import annotations

import numba
import numpy as np

from ..dtypes import canonical_dtype

__all__ = ["BETA_NUMPY", "BETA_TORCH", "MAX_LOG2_SIZE", "SEED", "make_inputs", "parse_sizes", "parse_threads"]

#: beta of the emulator-vs-NumPy comparison (the seed example (model section 1)).
BETA_NUMPY = 1.1
#: beta of the PyTorch comparison: ``silu_backward`` is Swish with beta 1.
BETA_TORCH = 1.0
#: Inputs are uniform in [INPUT_LOW, INPUT_HIGH).
INPUT_LOW, INPUT_HIGH = -5.0, 5.0
SEED = 20240605
#: Largest size a run accepts, as a power of two (2^27 elements is the
#: issue's top size; a float32 cell at 2^27 holds about 6 GiB at its peak).
MAX_LOG2_SIZE = 30
# Inputs are drawn this many elements at a time, so that making them needs
# no temporary of the whole size (the memory measurement relies on that).
_CHUNK = 1 << 20


def make_inputs(n: int, dtype, seed: int = SEED):
    """Seeded ``(grad_output, x)``, each uniform in [-5, 5) and of ``dtype``.

    Drawn in chunks of about a million elements: besides the two results,
    making them takes only a chunk's worth of memory.
    """
    dt = canonical_dtype(dtype)
    rng = np.random.default_rng(seed)
    scale = np.float32(INPUT_HIGH - INPUT_LOW)
    low = np.float32(INPUT_LOW)
    arrays = []
    for _ in range(2):  # all of g, then all of x: one stream, as one draw of each would give
        arr = np.empty(n, dtype=dt)
        for start in range(0, n, _CHUNK):
            stop = min(start + _CHUNK, n)
            arr[start:stop] = rng.random(stop - start, dtype=np.float32) * scale + low
        arrays.append(arr)
    return arrays[0], arrays[1]


def parse_sizes(spec: str) -> list[int]:
    """Element counts from ``"10:26"`` (log2 range, inclusive), ``"10:26:2"`` or ``"10,16,20"``."""
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError("sizes must be log2 exponents like '10:26', '10:26:2' or '10,16,20'")
    try:
        if ":" in spec:
            parts = [int(p) for p in spec.split(":")]
            if len(parts) not in (2, 3):
                raise ValueError
            step = parts[2] if len(parts) == 3 else 1
            if step < 1 or parts[1] < parts[0]:
                raise ValueError
            exps = list(range(parts[0], parts[1] + 1, step))
        else:
            exps = [int(p) for p in spec.split(",")]
    except ValueError:
        raise ValueError(
            f"sizes must be log2 exponents like '10:26', '10:26:2' or '10,16,20' "
            f"(start <= stop, step >= 1); got {spec!r}") from None
    for e in exps:
        if not 0 <= e <= MAX_LOG2_SIZE:
            raise ValueError(f"sizes: every exponent must be in 0..{MAX_LOG2_SIZE}, got {e}")
    return sorted({1 << e for e in exps})


def parse_threads(spec) -> list[int]:
    """Thread counts from ``"1,2"`` or a sequence; each in 1..NUMBA_NUM_THREADS."""
    try:
        counts = [int(t) for t in (spec.split(",") if isinstance(spec, str) else spec)]
    except (TypeError, ValueError):
        raise ValueError(f"threads must be positive integers like '1,2'; got {spec!r}") from None
    limit = numba.config.NUMBA_NUM_THREADS
    if not counts:
        raise ValueError("threads must name at least one thread count")
    for t in counts:
        if not 1 <= t <= limit:
            raise ValueError(
                f"threads: each count must be in 1..{limit} (NUMBA_NUM_THREADS on this machine), got {t}")
    return sorted(set(counts))

"""The SPEC arithmetic (swishgrad_numba.spec) gives the same numbers on Python ints, int64 arrays and in jitted code."""
import numpy as np
from numba import njit

from swishgrad_numba.spec import a2, ceil_div, maximum, minimum, pad_to, select


@njit(cache=True)
def _jitted(a, b, numel, itemsize, block):
    return (select(a < b, a, b), minimum(a, b), maximum(a, b), ceil_div(a, b), pad_to(a, b),
            a2.padded_numel(numel, itemsize, block))


def test_same_numbers_three_ways():
    rng = np.random.default_rng(0)
    a = rng.integers(0, 1 << 40, 500)
    b = rng.integers(1, 1 << 20, 500)
    numel = rng.integers(1, 1 << 40, 500)
    itemsize = rng.choice([2, 4], 500)
    block = rng.choice([32, 64, 512], 500)
    arrays = (select(a < b, a, b), minimum(a, b), maximum(a, b), ceil_div(a, b), pad_to(a, b),
              a2.padded_numel(numel, itemsize, block))
    for i in range(500):
        args = (int(a[i]), int(b[i]), int(numel[i]), int(itemsize[i]), int(block[i]))
        python = (min(args[0], args[1]), min(args[0], args[1]), max(args[0], args[1]), -(-args[0] // args[1]),
                  -(-args[0] // args[1]) * args[1], -(-args[2] * args[3] // args[4]) * args[4] // args[3])
        assert tuple(int(v[i]) for v in arrays) == python
        assert tuple(int(v) for v in _jitted(*args)) == python
        # the spec functions on Python ints
        assert (select(args[0] < args[1], args[0], args[1]), a2.padded_numel(args[2], args[3], args[4])) == \
            (python[0], python[5])

"""Ln against the correctly rounded binary32 natural logarithm for all 2**32 inputs.

The sweep runs in Numba: for every bit pattern t it compares the Ln
instruction (:mod:`swishgrad_numba.kernel.ln`, the vector loop and the
program semantics' scalar form) with the independent reference's rule:
binary64 ``log`` rounded once, except where that value lies within 2**-45
(relative) of a binary32 rounding boundary; such inputs are set aside and
decided by ``ref_ln_f32`` / ``correctly_rounded_ln_f32`` (60-digit decimal).
Negative inputs and NaN must give NaN, +-0 -inf, +inf +inf.
"""
import math

import numpy as np
import pytest
from numba import njit, prange

from swishgrad_numba.kernel import ln as ln_kernel
from swishgrad_numba.program import semantics
from reference_activations_tier2 import correctly_rounded_ln_f32, ref_ln_f32

CHUNK = 1 << 16
MAX_SET_ASIDE = 1024
REL = 2.0 ** -45


@njit(cache=True)
def _f32_from_bits(b):
    return np.uint32(b).view(np.float32)


@njit(parallel=True, cache=True, error_model="numpy")
def _sweep(first_chunk, n_chunks, mismatches, first_bad, set_aside, set_aside_count):
    for c in prange(n_chunks):
        base = (first_chunk + c) * CHUNK
        src = np.empty(CHUNK, dtype=np.float32)
        dst = np.empty(CHUNK, dtype=np.float32)
        sv = src.view(np.uint32)
        for j in range(CHUNK):
            sv[j] = np.uint32(base + j)
        ln_kernel.vln_f32(dst, src, CHUNK)
        bad = 0
        kept = 0
        for j in range(CHUNK):
            t = src[j]
            got = dst[j]
            scalar = semantics.ln(t, False)
            if np.float32(scalar).view(np.uint32) != np.float32(got).view(np.uint32) and not (
                    got != got and scalar != scalar):
                bad += 1
                first_bad[c] = base + j
                continue
            if t != t or t < 0:
                if got == got:
                    bad += 1
                    first_bad[c] = base + j
                continue
            if t == 0 or t == np.inf:
                if got != (-np.inf if t == 0 else np.inf):
                    bad += 1
                    first_bad[c] = base + j
                continue
            d = math.log(np.float64(t))
            ref = np.float32(d)
            rb = np.int64(np.float32(abs(ref)).view(np.uint32))
            up = np.float64(_f32_from_bits(rb + 1))
            dn = -1.0 if rb == 0 else np.float64(_f32_from_bits(rb - 1))
            a = abs(d)
            rv = np.float64(abs(ref))
            tol = a * REL + 1e-300
            if abs(a - 0.5 * (rv + up)) <= tol or abs(a - 0.5 * (rv + dn)) <= tol:
                if kept < MAX_SET_ASIDE:
                    set_aside[c, kept] = base + j
                kept += 1
                continue
            if np.float32(got).view(np.uint32) != np.float32(ref).view(np.uint32):
                bad += 1
                first_bad[c] = base + j
        mismatches[c] = bad
        set_aside_count[c] = kept


def _run(first_chunk, n_chunks):
    mismatches = np.zeros(n_chunks, np.int64)
    first_bad = np.zeros(n_chunks, np.int64)
    set_aside = np.zeros((n_chunks, MAX_SET_ASIDE), np.int64)
    count = np.zeros(n_chunks, np.int64)
    _sweep(first_chunk, n_chunks, mismatches, first_bad, set_aside, count)
    assert count.max() <= MAX_SET_ASIDE, "too many near-boundary inputs to decide"
    if mismatches.any():
        c = int(np.flatnonzero(mismatches)[0])
        raise AssertionError(f"{int(mismatches.sum())} Ln results differ; first t bits 0x{int(first_bad[c]):08x}")
    decided = []
    for c in np.flatnonzero(count):
        for b in set_aside[c, : count[c]]:
            t = np.uint32(b).view(np.float32)
            got = ln_kernel.ln_f32(t)
            want = correctly_rounded_ln_f32(t)
            assert np.float32(got).view(np.uint32) == want.view(np.uint32), f"t bits 0x{int(b):08x}"
            decided.append(int(b))
    return decided


@pytest.mark.slow
def test_ln_all_binary32_inputs():
    total = (1 << 32) // CHUNK
    decided = []
    step = 4096
    for first in range(0, total, step):
        decided += _run(first, step)
    # t near 1 (ln t ~ t - 1) puts results near boundaries: they must have been decided, not skipped
    assert len(decided) > 0


def test_ln_sampled_and_widened_16_bit_values():
    """A quick check for every run: all float16- and bfloat16-widened values, and 2**20 seeded bit
    patterns, against ref_ln_f32."""
    rng = np.random.default_rng(30)
    f16 = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16).view(np.float16).astype(np.float32)
    bf16 = (np.arange(1 << 16, dtype=np.uint32) << 16).view(np.float32)
    rand = rng.integers(0, 1 << 32, 1 << 20, dtype=np.uint64).astype(np.uint32).view(np.float32)
    for t in (f16, bf16, rand):
        got = np.empty_like(t)
        ln_kernel.vln_f32(got, t, t.size)
        want = ref_ln_f32(t)
        same = (got.view(np.uint32) == want.view(np.uint32)) | (np.isnan(got) & np.isnan(want))
        assert same.all(), f"bits 0x{int(t[~same][0].view(np.uint32)):08x}"


@pytest.mark.parametrize("t, expected", [
    (0.0, -np.inf), (-0.0, -np.inf), (np.inf, np.inf), (1.0, 0.0), (-1.0, np.nan), (-np.inf, np.nan),
    (np.nan, np.nan), (-1e-45, np.nan),
])
def test_ln_special_values(t, expected):
    got = ln_kernel.ln_f32(np.float32(t))
    if np.isnan(expected):
        assert np.isnan(got)
    else:
        assert got == np.float32(expected) and np.signbit(got) == np.signbit(np.float32(expected))

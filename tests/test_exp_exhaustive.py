"""Exp against the correctly rounded binary32 e**t for all 2**32 inputs.

The sweep runs in Numba: for every bit pattern t it compares the kernel's
Exp instruction (the vector loop and the scalar form) with binary64 ``math.exp(t)`` rounded once to binary32,
which is the correctly rounded result unless e**t lies within a hair
(2**-45 relative, far above libm's binary64 error) of a binary32 rounding
boundary. Such inputs are set aside and decided in 60-digit decimal.
Where the compile target has AVX-512F, the hot tier's vector Exp loop
(kernel.exp_vector) too: 8 elements a call, the bits of each call that does
not flag equal to the machine's, t below -87 aside (the hot tier flags those).
"""
import math

import numpy as np
import pytest
from numba import njit, prange

from swishgrad_numba import kernel
from swishgrad_numba.kernel.exp_vector import VECTOR_EXP, exp_rows
from reference import correctly_rounded_exp_f32

CHUNK = 1 << 16
MAX_SET_ASIDE = 1024
REL = 2.0**-45


@njit(cache=True)
def _f32_from_bits(b):
    return np.uint32(b).view(np.float32)


@njit(parallel=True, cache=True, error_model="numpy")
def _sweep(first_chunk, n_chunks, mismatches, first_bad, set_aside, set_aside_count, vector_flagged):
    for c in prange(n_chunks):
        base = (first_chunk + c) * CHUNK
        src = np.empty(CHUNK, dtype=np.float32)
        dst = np.empty(CHUNK, dtype=np.float32)
        sv = src.view(np.uint32)
        for j in range(CHUNK):
            sv[j] = np.uint32(base + j)
        kernel.exp.vexp_f32(dst, src, CHUNK, np.float32(1.0))
        bad = 0
        if VECTOR_EXP:
            # the hot tier's vector loop, 8 elements a call on the clamped argument: where a call does not
            # flag, each element not below -87 (the hot tier flags those) has the machine's bits
            clamped = np.empty(CHUNK, dtype=np.float32)
            fast = np.empty(CHUNK, dtype=np.float32)
            for j in range(CHUNK):
                clamped[j] = min(src[j], kernel.exp.T_HI)
            for j in range(0, CHUNK, 8):
                if exp_rows(clamped[j:j + 8], fast[j:j + 8], 8):
                    vector_flagged[c] += 1
                    continue
                for i in range(j, j + 8):
                    if sv[i] <= kernel.exp.LOW_BITS and \
                            np.float32(fast[i]).view(np.uint32) != np.float32(dst[i]).view(np.uint32):
                        bad += 1
                        first_bad[c] = base + i
        kept = 0
        for j in range(CHUNK):
            t = src[j]
            got = dst[j]
            # the scalar form (16-bit tables, exact fix-ups) gives the same value
            scalar = kernel.exp.exp_f32(t)
            if t != t:
                if got == got or scalar == scalar:
                    bad += 1
                    first_bad[c] = base + j
                continue
            if np.float32(scalar).view(np.uint32) != np.float32(got).view(np.uint32):
                bad += 1
                first_bad[c] = base + j
            d = math.exp(np.float64(t))
            ref = np.float32(d)
            # Is d near a binary32 rounding boundary (midpoint of ref and a neighbour)?
            rb = np.int64(np.float32(ref).view(np.uint32))
            rv = 2.0**128 if rb >= 0x7F800000 else np.float64(ref)
            up = 2.0**128 if rb + 1 >= 0x7F800000 else np.float64(_f32_from_bits(rb + 1))
            dn = -1.0 if rb == 0 else np.float64(_f32_from_bits(rb - 1))
            tol = abs(d) * REL + 1e-300
            if d < np.inf and (abs(d - 0.5 * (rv + up)) <= tol or abs(d - 0.5 * (rv + dn)) <= tol):
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
    vector_flagged = np.zeros(n_chunks, np.int64)
    _sweep(first_chunk, n_chunks, mismatches, first_bad, set_aside, count, vector_flagged)
    # the band is 2**-19 of the results: a few thousand of the 2**29 calls
    assert vector_flagged.sum() <= n_chunks
    assert count.max() <= MAX_SET_ASIDE, "too many near-boundary inputs to decide"
    if mismatches.any():
        c = int(np.flatnonzero(mismatches)[0])
        raise AssertionError(f"{int(mismatches.sum())} Exp results differ; first t bits 0x{int(first_bad[c]):08x}")
    decided = 0
    for c in np.flatnonzero(count):
        for b in set_aside[c, : count[c]]:
            t = np.uint32(b).view(np.float32)
            got = np.empty(1, np.float32)
            _one(got, np.array([t], np.float32))
            want = correctly_rounded_exp_f32(t)
            assert got[0].view(np.uint32) == want.view(np.uint32), f"t bits 0x{int(b):08x}"
            decided += 1
    return decided


@njit(cache=True, error_model="numpy")
def _one(dst, src):
    kernel.exp.vexp_f32(dst, src, src.size, np.float32(1.0))


@pytest.mark.slow
def test_exp_all_binary32_inputs():
    total = (1 << 32) // CHUNK
    decided = 0
    step = 4096
    for first in range(0, total, step):
        decided += _run(first, step)
    # Near-boundary cases exist (e.g. tiny |t|, where e**t ~ 1 +- t); they
    # must have been decided exactly, not skipped.
    assert decided > 0


@pytest.mark.parametrize("t, expected", [
    (0.0, 1.0), (-0.0, 1.0), (np.inf, np.inf), (-np.inf, 0.0), (89.0, np.inf), (-104.0, 0.0),
])
def test_exp_special_values(t, expected):
    dst = np.empty(1, np.float32)
    _one(dst, np.array([t], np.float32))
    assert dst[0] == np.float32(expected)


def test_exp_nan():
    dst = np.empty(1, np.float32)
    _one(dst, np.array([np.nan], np.float32))
    assert np.isnan(dst[0])

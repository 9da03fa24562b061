"""The outputs a device can reach when its Exp, Div and Ln err by a few ulps, for any operator's program.

The kernel's program is compiled with every Exp, Div and Ln result (:data:`.lower.ENVELOPE_FREE`)
followed by a shift of ``k`` ulps (:func:`swishgrad_numba.kernel.envelope.ulp_shift`; ``k`` is an
attribute per result, so one compiled pass serves every shift), and, where the program has an Axpy,
once for each of its roundings (:data:`.isa.AXPY_ROUNDINGS`: which one the device does is not
public). Every combination of shifts within the budgets and every rounding is run over all elements
on the flat walk; an element's reachable outputs are exactly those of the combinations, as in
SwishGrad's own enumeration (model section 10). Each shifted result is what the device may return for
its actual, already shifted, operands: the ``Div`` after a shifted ``Exp`` divides the shifted value.

The cost is the pass's, times the number of combinations (at most :data:`MAX_COMBINATIONS`). Where the
output is a monotone chain of the shifted results (:func:`.monotone.monotone_in_shifts`: Sigmoid,
Swish, Silu, Gelu), the bounds are those of the shifts' extremes, ``2^m`` combinations instead of
``(2K+1)^m`` (4 instead of 16,641 at two results of 64 ulps), every combination enumerated only for
the elements whose extremes give a NaN; the bounds are the same as the full enumeration's.
:meth:`ProgramEnvelope.contains` and :meth:`~ProgramEnvelope.count` enumerate every combination.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass, field

import numpy as np
from numba import njit, prange

from .. import kernel, runtime
from ..kernel import plan as plan_mod
from ..dtypes import dtype_info
from .isa import AXPY_ROUNDINGS
from .lower import ENVELOPE_FREE, FTZ_ATTR, SHIFT_PREFIX, ULP_SHIFT
from .monotone import monotone_in_shifts
from .passes import compiled

__all__ = ["BUDGETS", "MAX_COMBINATIONS", "ProgramEnvelope", "program_envelope"]

#: The keyword naming each freed instruction's ulp budget.
BUDGETS = {"Exp": "exp_ulp", "Div": "div_ulp", "Ln": "ln_ulp"}
assert set(BUDGETS) == set(ENVELOPE_FREE)
#: The most combinations (shifts times Axpy roundings) one envelope runs: two results each within
#: :data:`swishgrad_numba.precision.MAX_ENVELOPE_ULP` (64) ulps, both Axpy roundings.
MAX_COMBINATIONS = 2 * 129 ** 2
#: Elements per pass of the flat walk.
_PASS = 8192
_UINT = {2: np.uint16, 4: np.uint32}


#: A pattern is NaN where its magnitude bits exceed this (the infinity's), by itemsize and dtype.
_INF_BITS = {"float32": 0x7F800000, "float16": 0x7C00, "bfloat16": 0x7F80}


@njit(cache=True, error_model="numpy", inline="always")
def _key(b, sign_bit, inf_bits):
    """``(is_nan, key)``: a total order on non-NaN patterns as int64, by value, -0 just below +0."""
    mag = np.int64(b) & (sign_bit - 1)
    return mag > inf_bits, (-mag - 1) if (np.int64(b) & sign_bit) != 0 else mag


@njit(parallel=True, cache=True, error_model="numpy")
def _fold(bits, sign_bit, inf_bits, lo_key, hi_key, nan_reachable):
    """Widen each element's running bounds by one combination's output ``bits``."""
    for i in prange(bits.size):
        is_nan, k = _key(bits[i], sign_bit, inf_bits)
        if is_nan:
            nan_reachable[i] = True
        else:
            lo_key[i] = min(lo_key[i], k)
            hi_key[i] = max(hi_key[i], k)


@njit(parallel=True, cache=True, error_model="numpy")
def _mark(bits, query, sign_bit, inf_bits, inside):
    """Mark where a combination's output is the query's pattern (a NaN query is decided apart)."""
    for i in prange(bits.size):
        q_nan, _k = _key(query[i], sign_bit, inf_bits)
        if not q_nan and bits[i] == query[i]:
            inside[i] = True


def _key_bits(keys: np.ndarray, uint) -> np.ndarray:
    """The patterns of order keys (:func:`_order_keys` inverted)."""
    sign = 1 << (8 * np.dtype(uint).itemsize - 1)
    return np.where(keys < 0, sign | (-keys - 1), keys).astype(uint)


def _outputs(runs, ins: tuple):
    """Each combination's output bit patterns (unsigned) over the flat inputs ``ins``."""
    n = ins[0].size
    if n == 0:
        return
    launch_plan = _flat_plan(n)
    for c, combos in runs:
        for combo in combos:
            out = np.empty(n, dtype=ins[0].dtype)
            kernel.run_walk(c.params(**combo), ins, out, launch_plan)
            yield out.view(_UINT[out.dtype.itemsize])


def _bounds(runs, raw: tuple, sign_bit: int, inf_bits: int) -> tuple:
    """``(lo_key, hi_key, nan_reachable)`` of the outputs of ``runs``' combinations over ``raw``."""
    n = raw[0].size
    lo_key = np.full(n, np.iinfo(np.int64).max)
    hi_key = np.full(n, np.iinfo(np.int64).min)
    nan_reachable = np.zeros(n, dtype=bool)
    for bits in _outputs(runs, raw):
        _fold(bits, sign_bit, inf_bits, lo_key, hi_key, nan_reachable)
    return lo_key, hi_key, nan_reachable


def _flat_plan(numel: int) -> kernel.Plan:
    """One pass of :data:`_PASS` elements per emulated core, spread over the host threads."""
    cores = -(-numel // _PASS)
    run = plan_mod.CoreRun(0, cores, _PASS, 1, _PASS, _PASS, min(_PASS, numel))
    return plan_mod.plan([run], numel, 1 if numel < kernel.SERIAL_BELOW else runtime.num_threads())


@dataclass(frozen=True, eq=False)
class ProgramEnvelope:
    """The reachable outputs of an operator's kernel, per element (:func:`program_envelope`).

    Attributes
    ----------
    lo, hi : numpy.ndarray
        Flat, of the output's dtype: the least and greatest reachable output other than NaN (-0 below
        +0); NaN where only NaN is reachable.
    nan_reachable : numpy.ndarray of bool
    budgets : dict
        The ulp budget of each freed instruction (``{"Exp": 1, "Div": 1, "Ln": 1}``).
    freed : tuple
        The freed results of the program, in order (``("Exp", "Div")`` for SwishGrad).
    axpy_roundings : tuple
        The Axpy roundings tried (one where the program has no Axpy).
    flush_subnormals : bool
    bounds_combinations : int
        The combinations run for every element to find the bounds: :attr:`combinations`, or the
        shifts' extremes alone where the program is monotone in them (:mod:`.monotone`).
    """

    lo: np.ndarray
    hi: np.ndarray
    nan_reachable: np.ndarray
    budgets: dict
    freed: tuple
    axpy_roundings: tuple
    flush_subnormals: bool
    _runs: tuple = field(repr=False)
    _inputs: tuple = field(repr=False)
    bounds_combinations: int = 0

    @property
    def combinations(self) -> int:
        """How many outputs each element's enumeration computes."""
        return sum(len(combos) for _c, combos in self._runs)

    def outputs(self, chunk: slice = slice(None)):
        """Each combination's output bit patterns (unsigned) over ``chunk`` of the elements."""
        yield from _outputs(self._runs, tuple(np.ascontiguousarray(a[chunk]) for a in self._inputs))

    def _is_nan(self, bits: np.ndarray) -> np.ndarray:
        return (bits.astype(np.int64) & (self._sign_bit - 1)) > _INF_BITS[self.lo.dtype.name]

    @property
    def _sign_bit(self) -> int:
        return 1 << (8 * self.lo.dtype.itemsize - 1)

    def contains(self, flat_output: np.ndarray) -> np.ndarray:
        """Exact membership of a flat output of :attr:`lo`'s dtype: True where its element is reachable
        (bit patterns compared exactly, -0 and +0 apart; any NaN equal to any NaN)."""
        query = flat_output.view(_UINT[flat_output.dtype.itemsize])
        inside = self._is_nan(query) & self.nan_reachable
        for out in self.outputs():
            _mark(out, query, self._sign_bit, _INF_BITS[self.lo.dtype.name], inside)
        return inside

    def count(self) -> np.ndarray:
        """How many distinct outputs each element can reach (every NaN counts as one), as int32."""
        n = self.lo.size
        count = np.empty(n, dtype=np.int32)
        step = max(1, (1 << 22) // self.combinations)
        for start in range(0, n, step):
            chunk = slice(start, min(n, start + step))
            bits = np.stack(list(self.outputs(chunk)))
            keys = np.where(self._is_nan(bits), -1, bits.astype(np.int64))   # every NaN one key
            keys.sort(axis=0)
            count[chunk] = 1 + (np.diff(keys, axis=0) != 0).sum(axis=0)
        return count


def program_envelope(op: str, inputs: tuple, attrs: dict, architecture: str, variant: str = "main", *,
                     budgets: dict, flush_subnormals: bool = False, extremes: bool = True) -> ProgramEnvelope:
    """The envelope of operator ``op``'s kernel on ``architecture`` (its program ``variant``) over
    ``inputs``: flat, C-contiguous arrays of one float dtype and size, in the kernel's order;
    ``attrs`` the program's attributes (float32), ``budgets`` the ulp budget of each
    :data:`.lower.ENVELOPE_FREE` instruction. The arguments are the caller's to check
    (:func:`swishgrad_numba.precision.operator_envelope` checks them). ``extremes``: find the bounds from
    the shifts' extremes where the program is monotone in them (False: every combination)."""
    info = dtype_info(inputs[0].dtype)
    runs, ends, roundings, freed, monotone = [], [], (), (), bool(extremes)
    for rounding in AXPY_ROUNDINGS:
        c = compiled(op, architecture, info.name, variant, axpy_rounding=rounding, envelope=True)
        if runs and not any(s.op == "Axpy" for s in c.lowered.steps):
            break          # no Axpy: one rounding is every rounding
        shifts = [s.scalars[0].name for s in c.lowered.steps if s.op == ULP_SHIFT]
        freed = tuple(c.lowered.freed[int(a.removeprefix(SHIFT_PREFIX))] for a in shifts)
        ranges = [range(-budgets[BUDGETS[f]], budgets[BUDGETS[f]] + 1) for f in freed]
        combos = [{**attrs, FTZ_ATTR: float(flush_subnormals), **{a: float(k) for a, k in zip(shifts, ks)}}
                  for ks in itertools.product(*ranges)]
        runs.append((c, combos))
        extreme = [{r.start, r.stop - 1} for r in ranges]
        ends.append((c, [combo for combo in combos
                         if all(combo[a] in e for a, e in zip(shifts, extreme))]))
        monotone = monotone and monotone_in_shifts(c.lowered, attrs)
        roundings += (rounding,)
    total = sum(len(combos) for _c, combos in runs)
    if total > MAX_COMBINATIONS:
        raise ValueError(f"the ulp budgets {budgets} ask for {total} combinations of this program's freed "
                         f"results {freed} (x {len(roundings)} Axpy roundings); at most {MAX_COMBINATIONS}")
    uint = _UINT[info.itemsize]
    raw = tuple(a.view(uint) if info.itemsize == 2 else a for a in inputs)
    sign_bit, inf_bits = 1 << (8 * info.itemsize - 1), _INF_BITS[info.name]
    lo_key, hi_key, nan_reachable = _bounds(ends if monotone else runs, raw, sign_bit, inf_bits)
    if monotone:       # a NaN at an extreme may hide its neighbour: those elements enumerate every combination
        redo = np.flatnonzero(nan_reachable)
        if redo.size:
            lo_key[redo], hi_key[redo], nan_reachable[redo] = _bounds(
                runs, tuple(np.ascontiguousarray(a[redo]) for a in raw), sign_bit, inf_bits)
    only_nan = lo_key > hi_key
    all_ones = uint(np.iinfo(uint).max)       # a NaN pattern
    lo = np.where(only_nan, all_ones, _key_bits(np.where(only_nan, 0, lo_key), uint)).view(info.numpy)
    hi = np.where(only_nan, all_ones, _key_bits(np.where(only_nan, 0, hi_key), uint)).view(info.numpy)
    return ProgramEnvelope(lo, hi, nan_reachable, dict(budgets), freed, roundings, bool(flush_subnormals),
                           tuple(runs), raw, sum(len(combos) for _c, combos in (ends if monotone else runs)))

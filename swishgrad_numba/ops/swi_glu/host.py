"""SwiGlu's host tiling (issue 41), from ops-nn ``activation/swi_glu/op_host/swi_glu_tiling.cpp``.

x is viewed as ``(rowLen, 2 * colLen)``: rowLen the product of the axes before ``dim``, colLen half the
product of ``dim`` and the axes after it (``SetTotalShape``); a is each row's first colLen elements, b the
next colLen. The host cuts that view into tiles of ``baseRowLen x baseColLen`` (``CalcOptBaseShape``: the
widest column block the UB and the DataCopy limits allow, narrowed by 512-byte packs while more rows fit,
the best by cores used, then fewer tiles, then a bigger tile, then more whole tiles), tries double
buffering first and single buffering where the double-buffered choice gives two tiles per core and the
single-buffered one tile. SwiGluGrad's A2 host is the same calculator with its own UB division. The same host serves the Atlas A2 and the Ascend 950 (the forward's regbase
branch is only the empty-tensor key 100). Tiling key: the dtype (0 float32, 1 float16, 27 bfloat16).
"""
from __future__ import annotations

from dataclasses import dataclass

__all__ = ["SwiGluTiling", "swiglu_tiling", "split_lengths", "TILING_KEYS"]

_UB_MIN_BLOCK = 32
_CACHE_LINE = 512
MAX_BLOCK_COUNT = 4095
MAX_BLOCK_LEN = 65535
MAX_STRIDE = 65535
TQUE = 3
TBUF = {2: 2, 4: 1}          # SWIGLU_TBUF_NUM_HALF / _BF16 (2), _FLOAT (1)
TQUE_GRAD = 5                # XXGLU_BW_TQUE_NUM
TBUF_GRAD = {2: 5, 4: 2}     # SWIGLU_BW_TBUF_NUM_HALF / _BF16 (5), _FLOAT (2)
TILING_KEYS = {"float32": 0, "float16": 1, "bfloat16": 27}


@dataclass(frozen=True)
class SwiGluTiling:
    """The ``SwiGluTilingData`` fields the kernel reads, and the launch's block dim."""

    dtype: str
    row_len: int
    col_len: int
    is_32b_aligned: int
    is_double_buffer: int
    base_row_len: int
    base_col_len: int
    block_dim: int
    tiling_key: int

    @property
    def dsize(self) -> int:
        return 4 if self.dtype == "float32" else 2

    @property
    def ub_min_block(self) -> int:
        return _UB_MIN_BLOCK // self.dsize

    @property
    def tile_length(self) -> int:
        """UB elements per queue buffer (``GetTilingAndOffset``: columns padded to 32 bytes when unaligned)."""
        return self.base_row_len * _align_up(self.base_col_len, self.ub_min_block)

    @property
    def total_tiles(self) -> int:
        return -(-self.row_len // self.base_row_len) * -(-self.col_len // self.base_col_len)


def _align_up(n, r):
    return 0 if r == 0 else (n + r - 1) // r * r


def _align_down(n, r):
    return 0 if r == 0 or n < r else n // r * r


def split_lengths(shape, dim: int):
    """``(rowLen, colLen)`` of ``SetTotalShape`` (``dim`` already checked and normalised)."""
    before = after = 1
    for s in shape[:dim]:
        before *= int(s)
    for s in shape[dim:]:
        after *= int(s)
    return before, after // 2


class _Calc:
    def __init__(self, row_len, col_len, dsize, cores, grad):
        self.row_len, self.col_len, self.dsize, self.cores, self.grad = row_len, col_len, dsize, cores, grad
        self.ub_min = _UB_MIN_BLOCK // dsize
        self.pack = _CACHE_LINE // dsize
        self.aligned = col_len % self.ub_min == 0

    def single_row(self, c):     # MustBeSingleBaseRowLen: the stride between rows exceeds DataCopy's
        if self.aligned:
            return 2 * self.col_len - c > MAX_STRIDE * self.ub_min
        return (2 * self.col_len - c) * self.dsize > MAX_STRIDE

    def save(self, r, c, opt):   # SaveOptBaseShape
        if r == 0 or c == 0:
            return
        total = -(-self.row_len // r) * -(-self.col_len // c)
        size = r * c
        whole = (self.row_len // r) * (self.col_len // c)
        used = min(total, self.cores)
        key = (used, -total, size, whole)
        if opt.get("total", 0) == 0 or key > opt["key"]:
            opt.update(r=r, c=c, total=total, key=key, used=used, per_core=-(-total // used))

    def best(self, ub_size, buffers):   # CalcUbMaxTileLen, CalcOptBaseShape
        if self.grad:    # GetBufferNumAndDataLenPerUB, SWIGLU_GRAD_SINGLE
            single = buffers * TQUE_GRAD * self.dsize + TBUF_GRAD[self.dsize] * 4
        else:
            single = buffers * TQUE * self.dsize + TBUF[self.dsize] * 4
        max_tile = _align_down(ub_size // single, self.ub_min)
        if max_tile == 0:    # not one 32-byte block per buffer fits in the UB
            return None
        opt = {}
        c = min(self.col_len, max_tile)
        c = min(c, MAX_BLOCK_LEN if self.aligned else MAX_BLOCK_LEN // self.dsize)
        if self.col_len > c > self.pack:
            c = _align_down(c, self.pack)
        if self.single_row(c):
            self.save(1, c, opt)
            return opt
        row_up = min(self.row_len, MAX_BLOCK_COUNT)
        while True:
            r = min(max_tile // _align_up(c, self.ub_min), row_up)
            if r < 1 or (r > 1 and self.single_row(c)):
                return opt if opt.get("total", 0) > 0 else None
            if not (r > 1 and self.single_row(self.col_len % c)):
                self.save(r, c, opt)
            if c <= self.pack or r >= row_up:
                return opt
            c = c - self.pack if c % self.pack == 0 else _align_down(c, self.pack)


def swiglu_tiling(shape, dim: int, dtype: str, ub_size: int, core_num: int, grad: bool = False) -> SwiGluTiling:
    """The host tiling of a non-empty x of ``shape`` split at ``dim`` (checked, normalised); ValueError where
    the host fails (no tile shape fits). ``grad``: SwiGluGrad's A2 tiling (the same calculator, its own UB
    division: five queues and five 16-bit or two float32 buffers)."""
    dsize = 4 if dtype == "float32" else 2
    row_len, col_len = split_lengths(shape, dim)
    calc = _Calc(row_len, col_len, dsize, core_num, grad)
    opt, double = calc.best(ub_size, 2), 1
    if opt is None:
        raise ValueError(f"x {tuple(shape)}: the SwiGlu host finds no tile shape in platform.ub_size={ub_size} "
                         "bytes (CalcOptBaseShape fails)")
    if opt["per_core"] == 2:
        nodb = calc.best(ub_size, 1)
        if nodb is not None and nodb["per_core"] == 1 and nodb["used"] >= opt["used"]:
            opt, double = nodb, 0
    return SwiGluTiling(dtype, row_len, col_len, int(calc.aligned), double, opt["r"], opt["c"], opt["used"],
                        TILING_KEYS[dtype])

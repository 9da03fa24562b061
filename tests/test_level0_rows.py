"""Level-0 addressing (mask, repeat times, block and repeat strides) lowered to row instructions
(swishgrad_numba.engine.level0, issue 39), fuzzed against a plain reference written here: repeats in order,
lane l of block b of repeat r at base + r * repStride * 8 + b * blkStride * 8 + l, run where mask bit 8b + l is
set."""
import numpy as np
import pytest

from swishgrad_numba.engine import opcodes as O
from swishgrad_numba.engine.level0 import lower
from swishgrad_numba.engine.rows import RowProgram

_OPS = {"R_ADD": np.add, "R_MUL": np.multiply, "R_DIV": np.divide}
_ARENA = 4096


class _Stream:
    def __init__(self):
        self.rows = []

    def emit(self, name, dst=0, src0=0, src1=0, count=1):
        self.rows.append([O.ROW_OPCODES[name], dst, src0, src1, count, 0, 0, 0])


def reference(arena, name, dst, src0, src1, mask, repeats, blk, rep):
    out = arena.copy()
    for r in range(repeats):
        lanes = []
        for b in range(8):
            for lane in range(8):
                if mask >> (8 * b + lane) & 1:
                    lanes.append(tuple(base + r * rep[i] * 8 + b * blk[i] * 8 + lane
                                       for i, base in enumerate((dst, src0, src1))))
        values = [_OPS[name](out[a], out[c]) for _d, a, c in lanes]     # a repeat reads, then writes
        for (d, _a, _c), v in zip(lanes, values):
            out[d] = v
    return out


def _machine(arena, stream):
    code = np.array(stream.rows, dtype=np.int64).reshape(-1, 8)
    load = np.array([[O.ROW_OPCODES["R_GM_IN"], 0, 0, 0, _ARENA, 0, 0, 0]], np.int64)
    store = np.array([[O.ROW_OPCODES["R_GM_OUT"], 0, 0, 0, _ARENA, 0, 0, 0]], np.int64)
    prog = RowProgram([np.zeros((0, 8), np.int64), np.concatenate([load, code, store])], [0.0], _ARENA)
    gm = arena.copy()
    prog.run(gm, [[0, _ARENA]], [[1, 0]], [0, 1])
    return gm


def test_fuzz_against_the_reference():
    rng = np.random.default_rng(39)
    ran = refused = 0
    with np.errstate(all="ignore"):
        while ran < 120:
            name = str(rng.choice(list(_OPS)))
            mask = int(rng.integers(1, 1 << 63)) if rng.random() < 0.7 else (1 << int(rng.integers(1, 65))) - 1
            repeats = int(rng.integers(1, 6))
            blk = tuple(int(v) for v in rng.integers(1, 4, 3))
            rep = tuple(int(v) for v in rng.integers(0, 25, 3))
            dst, src0, src1 = (int(v) for v in rng.integers(0, 1200, 3))
            arena = rng.standard_normal(_ARENA).astype(np.float32)
            arena[rng.random(_ARENA) < 0.05] = np.float32("nan")
            stream = _Stream()
            try:
                lower(stream, name, dst, src0, src1, mask, repeats, blk, rep)
            except ValueError as exc:
                assert "same repeat" in str(exc) or "same destination" in str(exc)
                refused += 1
                continue
            want = reference(arena, name, dst, src0, src1, mask, repeats, blk, rep)
            got = _machine(arena, stream)
            assert got.view(np.uint32).tolist() == want.view(np.uint32).tolist(), (name, mask, repeats, blk, rep)
            ran += 1
    assert refused < ran     # the fuzz mostly runs calls, not refusals


def test_in_place_lane_is_allowed_and_overlap_refused():
    stream = _Stream()
    assert lower(stream, "R_ADD", 0, 0, 64, (1 << 64) - 1, 2) == 16      # 2 repeats x 8 full blocks
    with pytest.raises(ValueError, match="same repeat"):
        lower(_Stream(), "R_ADD", 1, 0, 64, (1 << 64) - 1, 1)            # dst one past src0
    with pytest.raises(ValueError, match="same destination"):
        lower(_Stream(), "R_ADD", 0, 100, 200, 0xFFFF, 1, blk_strides=(0, 1, 1))


@pytest.mark.parametrize("kwargs, words", [
    ({"name": "R_SQRT"}, "name"), ({"mask": 0}, "mask"), ({"mask": 1 << 64}, "mask"), ({"repeat_times": 0}, "repeat"),
    ({"repeat_times": 256}, "repeat"), ({"dst": -1}, "dst"), ({"blk_strides": (1, 1)}, "hold"),
    ({"rep_strides": (8, 8, 256)}, "rep_strides"), ({"mask": True}, "mask"),
])
def test_bad_arguments(kwargs, words):
    args = dict(name="R_ADD", dst=0, src0=512, src1=1024, mask=0xFF, repeat_times=1)
    args.update(kwargs)
    with pytest.raises(ValueError, match=words):
        lower(_Stream(), **args)

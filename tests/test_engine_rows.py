"""The engine's row machine (issue 39's reductions, issue 42): each row instruction against the plain
references of tests/reference_rms_norm.py, specials, and the checks that refuse a malformed stream."""
import numpy as np
import pytest

from reference_rms_norm import ORDERS, half_interval, merge_n_sum, repeat_sum
from swishgrad_numba.engine import opcodes as O
from swishgrad_numba.engine.rows import RowProgram, run

F32 = np.float32


def _ins(name, dst=0, src0=0, src1=0, count=1, k0=0, k1=0, mode=0):
    return [O.ROW_OPCODES[name], dst, src0, src1, count, k0, k1, mode]


def _machine(instructions, data, arena_len=None, scalars=(0.0,)):
    """Run one stream over one core: ``data`` copied into the arena's front, the arena copied back."""
    n = len(data)
    arena_len = arena_len or max(n, 8)
    code = np.array([_ins("R_GM_IN", 0, 0, count=n)] + instructions + [_ins("R_GM_OUT", 0, 0, count=arena_len,
                                                                            mode=1)], np.int64)
    gm = np.zeros(n + arena_len, F32)
    gm[:n] = data
    segs = np.array([[0, n], [n, arena_len]], np.int64)
    prog = RowProgram([code], scalars, arena_len)
    prog.run(gm, segs, np.array([[0, 0, n]], np.int64), np.array([0, 1], np.int64))
    return gm[n:]


def _bits(a):
    return np.asarray(a, F32).view(np.uint32)


def _same(a, b):
    a, b = np.asarray(a, F32), np.asarray(b, F32)
    return bool(np.all((_bits(a) == _bits(b)) | (np.isnan(a) & np.isnan(b))))


@pytest.fixture(scope="module")
def rng():
    return np.random.default_rng(42)


@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize("count", [1, 5, 8, 33, 64])
def test_repeat_sum_matches_the_plain_order(rng, order, count):
    data = (rng.standard_normal(count) * 10.0 ** rng.integers(-6, 6, count)).astype(F32)
    out = _machine([_ins("R_REPEAT_SUM", 64, 0, count=count, mode=O.REDUCE_ORDERS.index(order))], data, 72)
    assert _same(out[64], repeat_sum(data, order))


def _awkward_lanes(rng, n):
    """Random float32 lanes with specials mixed in: infinities, NaNs, signed zeros, subnormals, values near the
    largest (sums overflow) and magnitudes 2^-40 to 2^40 (sums round)."""
    data = (rng.standard_normal(n) * 2.0 ** rng.integers(-40, 40, n)).astype(F32)
    specials = np.array([np.inf, -np.inf, np.nan, 0.0, -0.0, 1e-45, -1e-40, 3.4e38, -3.4e38, 2.0 ** 24, 1.0], F32)
    at = rng.random(n) < 0.1
    data[at] = rng.choice(specials, at.sum())
    data[rng.random(n) < 0.02] = -0.0
    return data


def test_whole_repeats_and_blocks_in_tree_order_match_the_plain_tree(rng):
    """A whole 64-lane repeat and a whole 8-lane DataBlock in the default tree order (the vector tree,
    :func:`swishgrad_numba.intrinsics.pair_tree_sum_64`) against the plain pairwise tree, over 300 repeats of
    awkward lanes (one of them all -0: the sum is -0, and each of its DataBlocks' too)."""
    repeats = 300
    data = _awkward_lanes(rng, 64 * repeats)
    data[:64] = -0.0
    n = data.size
    sums = [_ins("R_REPEAT_SUM", n + r, 64 * r, count=64) for r in range(repeats)]
    out = _machine(sums + [_ins("R_BLOCK_SUM", n + repeats, 0, count=8 * repeats)], data, n + 9 * repeats)
    want = [repeat_sum(data[64 * r:64 * r + 64], "tree") for r in range(repeats)]
    assert _same(out[n:n + repeats], want) and _bits(out[n]) == 0x80000000
    blocks = [repeat_sum(data[8 * b:8 * b + 8], "tree", 8) for b in range(8 * repeats)]
    assert _same(out[n + repeats:], blocks) and (_bits(out[n + repeats:n + repeats + 8]) == 0x80000000).all()


@pytest.mark.parametrize("pairs", [
    [(200, 0), (201, 64)],            # apart: both trees at once
    [(70, 0), (300, 64)],             # the second reads the first's sum (at 70): one after the other
    [(250, 0), (250, 64)],            # one destination: the second's sum stays
    [(10, 0), (251, 64)],             # the second writes into what the first read (read before)
    [(200, 0), (201, 64), (202, 128), (130, 192), (203, 128)],   # a run, one of them fed by another
])
def test_consecutive_repeat_sums_read_what_the_ones_before_them_wrote(rng, pairs):
    """Whole repeats in a row, run two at a time where the second does not read the first's sum: the same as
    one at a time, each reading the arena as the sums before it left it (finite lanes: a sum read or not shows)."""
    data = (rng.standard_normal(256) * 100).astype(F32)
    sums = [_ins("R_REPEAT_SUM", d, a, count=64) for d, a in pairs]
    out = _machine(sums, data, 320)
    want = np.zeros(320, F32)
    want[:256] = data
    for d, a in pairs:
        want[d] = repeat_sum(want[a:a + 64], "tree")
    assert _same(out, want)


def test_the_orders_differ():
    # 1 + 2**24 lanes: the tree adds (1, 1) first and keeps it, the left-to-right sum loses every 1
    data = np.array([2.0 ** 24] + [1.0] * 63, F32)
    got = {o: _machine([_ins("R_REPEAT_SUM", 64, 0, count=64, mode=i)], data, 72)[64]
           for i, o in enumerate(O.REDUCE_ORDERS)}
    assert got["sequential"] == F32(2.0 ** 24)
    assert got["tree"] == F32(2.0 ** 24 + 62) and got["block8"] == F32(2.0 ** 24 + 56)
    assert all(_same(got[o], repeat_sum(data, o)) for o in ORDERS)


@pytest.mark.parametrize("order", ORDERS)
def test_block_and_reduce_sum(rng, order):
    data = rng.standard_normal(200).astype(F32)
    m = O.REDUCE_ORDERS.index(order)
    out = _machine([_ins("R_BLOCK_SUM", 200, 0, count=25, mode=m), _ins("R_REDUCE_SUM", 225, 0, count=200, mode=m)],
                   data, 232)
    for b in range(25):
        assert _same(out[200 + b], repeat_sum(data[8 * b:8 * b + 8], "tree" if order == "tree" else "sequential", 8))
    acc = None
    for r in range(0, 200, 64):
        s = repeat_sum(data[r:r + 64], order)
        acc = s if acc is None else F32(acc + s)
    assert _same(out[225], acc)


@pytest.mark.parametrize("n", [65, 100, 128, 1000, 4097])
def test_half_interval_as_a_stream(rng, n):
    from swishgrad_numba.ops.rms_norm.kernel_a2 import _half_interval, Stream
    data = rng.standard_normal(n).astype(F32)
    s = Stream()
    _half_interval(s, n, 0, n, 0)
    out = _machine([list(r) for r in s.array()], data, n + 8)
    assert _same(out[n], half_interval(data, "tree"))


def test_merge_n_as_a_stream(rng):
    from swishgrad_numba.ops.rms_norm.kernel_a2 import _merge_n, Stream
    data = rng.standard_normal(200).astype(F32)
    s = Stream()
    _merge_n(s, 264, 0, 200, 200, 0)
    out = _machine([list(r) for r in s.array()], data, 272, scalars=(0.0, 0.0, 0.0, 1.0))
    assert _same(out[264], merge_n_sum(data, "tree"))


def test_specials_flow_through_the_sums():
    big = F32(3e38)
    cases = {"past FLT_MAX": [big, big], "nan": [1.0, np.nan, 2.0], "inf": [np.inf, 1.0], "inf-inf": [np.inf, -np.inf],
             "zeros": [0.0] * 10}
    for data in cases.values():
        data = np.array(data, F32)
        for i, o in enumerate(O.REDUCE_ORDERS):
            out = _machine([_ins("R_REPEAT_SUM", 16, 0, count=len(data), mode=i)], data, 24)
            assert _same(out[16], repeat_sum(data, o))


def test_brcb_sqrt_div_cast_and_scalar_broadcast():
    data = np.array([4.0, 2.0, -1.0, 1.0 / 3.0], F32)
    from swishgrad_numba.dtypes import dtype_info
    out = _machine([_ins("R_BRCB", 8, 0, count=4), _ins("R_SQRT", 40, 0, count=4),
                    _ins("R_MULS_AT", 44, 0, 1, count=4), _ins("R_CAST_RINT", 48, 3, count=1,
                                                                mode=dtype_info("bfloat16").code)], data, 56)
    assert _same(out[8:40], np.repeat(data, 8))
    with np.errstate(invalid="ignore"):
        assert _same(out[40:44], np.sqrt(data))
    assert _same(out[44:48], data * F32(2.0))
    assert _same(out[48], F32(0.333984375))   # 0x3EAAAAAB to nearest even: 0x3EAB


@pytest.mark.parametrize("bad, message", [
    (_ins("R_ADD", 0, 0, 60, count=8), "leave the arena"),
    (_ins("R_REPEAT_SUM", 0, 0, count=65), "count 65"),
    (_ins("R_GM_IN", 0, 10, count=8), "leave global segment 0"),
    (_ins("R_REPEAT_SUM", 0, 0, count=8, mode=3), "mode 3"),
    (_ins("R_MULS", 0, 0, count=8, k0=5), "scalar index"),
    ([0, 0, 0, 0, 1, 0, 0, 0], "unknown opcode"),   # an elementwise opcode is not a row instruction
    (_ins("R_DUP", -1, count=1), "leave the arena"),
])
def test_malformed_streams_are_refused_before_they_run(bad, message):
    gm = np.arange(16, dtype=F32)
    before = gm.copy()
    code = np.array([_ins("R_GM_OUT", 0, 0, count=8, mode=1), bad], np.int64)
    with pytest.raises(ValueError, match=message):
        run(code, np.array([0, 2]), np.zeros(1, F32), 64, gm, np.array([[0, 12], [8, 8]]), np.array([[0, 0, 8]]),
            np.array([0, 1]))
    assert np.array_equal(gm, before)


def test_a_tile_base_outside_its_segment_is_refused():
    gm = np.zeros(16, F32)
    code = np.array([_ins("R_GM_IN", 0, 0, count=4)], np.int64)
    with pytest.raises(ValueError, match="base of segment 0"):
        run(code, np.array([0, 1]), np.zeros(1, F32), 8, gm, np.array([[0, 8]]), np.array([[0, 9]]), np.array([0, 1]))


def test_mula_rounds_once_or_twice_and_set_if_eq():
    a, b, d = F32(1 + 2.0 ** -23), F32(1 - 2.0 ** -24), F32(-1.0)
    data = np.array([a, b, d, d, F32(3.0), F32(0.0), F32(3.0), F32(0.0)], F32)
    out = _machine([_ins("R_MULA", 2, 0, 1, count=1), _ins("R_MULA", 3, 0, 1, count=1, mode=1),
                    _ins("R_SET_IF_EQ", 4, 5, count=2, k0=1, k1=2)], data, 8, scalars=(0.0, 0.0, 7.0))
    assert out[2] == F32(2.0 ** -24 - 2.0 ** -47) and out[3] == F32(0.0)
    assert out[4] == F32(7.0) and out[5] == F32(0.0)     # 0 == 0: set; 3 != 0: kept (out[5] was 0 already)


def test_exp_row_instruction_is_correctly_rounded_with_specials():
    """R_EXP (issue 41, SwiGlu): the correctly rounded binary32 e**x (tests/reference.py), specials included."""
    from reference import ref_exp_f32
    data = np.concatenate([np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 88.72, 88.73, -103.0, -104.0, 1e-45],
                                    F32), np.random.default_rng(7).uniform(-90, 90, 54).astype(F32)])
    out = _machine([_ins("R_EXP", 64, 0, count=64)], data, 128)
    assert _same(out[64:], ref_exp_f32(data))


def test_each_segment_in_an_array_of_its_own():
    """Two input segments and an output one, each its own array, two tiles at different bases: the same as one
    array holding all three."""
    a, b = np.arange(40, dtype=F32), -np.arange(24, dtype=F32)
    code = np.array([_ins("R_GM_IN", 0, 0, count=8), _ins("R_GM_IN", 8, 0, count=8, mode=1),
                     _ins("R_ADD", 0, 0, 8, 8), _ins("R_GM_OUT", 0, 0, count=8, mode=2)], np.int64)
    prog = RowProgram([code], [0.0], 16)
    out = np.full(16, 7.0, F32)
    segs = np.array([[0, 40], [0, 24], [0, 16]], np.int64)
    tiles = np.array([[0, 0, 16, 8], [0, 32, 0, 0]], np.int64)
    prog.run((a, b, out), segs, tiles, np.array([0, 1, 2], np.int64))
    assert _same(out, np.concatenate([a[32:40] + b[0:8], a[0:8] + b[16:24]]))
    gm = np.concatenate([a, b, np.full(16, 7.0, F32)])
    one = np.array([[0, 40], [40, 24], [64, 16]], np.int64)
    prog.run(gm, one, tiles + np.array([0, 0, 40, 64]), np.array([0, 1, 2], np.int64))
    assert _same(gm[64:], out)


@pytest.mark.parametrize("arrays, segs, message", [
    (lambda: (np.zeros(8, F32), np.zeros(8, F32)), [[0, 8], [0, 16]], "segment 1 leaves its array"),
    (lambda: (np.zeros(8, F32),), [[0, 8], [0, 8]], "one array for all or one each"),
    (lambda: (np.zeros(8, F32), np.zeros(8, np.float64)), [[0, 8], [0, 8]], "float32"),
    (lambda: (np.zeros(8, F32), np.zeros(8, np.int16)), [[0, 8], [0, 8]], "float16 or bfloat16"),
    (lambda: (np.zeros(8, F32), np.zeros(16, F32)[::2]), [[0, 8], [0, 8]], "C-contiguous"),
    (lambda: (np.zeros(8, F32), np.frombuffer(bytes(32), F32)), [[0, 8], [0, 8]], "writeable"),
    (lambda: (np.zeros(8, F32),) * 5, [[0, 8]] * 5, "at most 4"),
])
def test_segment_arrays_that_do_not_fit_are_refused(arrays, segs, message):
    code = np.array([_ins("R_GM_IN", 0, 0, count=8), _ins("R_GM_OUT", 0, 0, count=8, mode=1)], np.int64)
    segs = np.array(segs, np.int64)
    tiles = np.zeros((1, 1 + len(segs)), np.int64)
    with pytest.raises(ValueError, match=message):
        RowProgram([code], [0.0], 8).run(arrays(), segs, tiles, np.array([0, 1], np.int64))


def _widened_reference(bits, dtype):
    """float32 bit patterns of 16-bit ``bits``, written plainly: bfloat16's shifted up; float16's by its fields
    (a NaN's payload kept, not quieted)."""
    bits = bits.astype(np.uint32)
    if dtype == "bfloat16":
        return bits << 16
    sign, e, m = (bits >> 15) << 31, (bits >> 10) & 0x1F, bits & 0x3FF
    out = np.empty_like(bits)
    for i in range(bits.size):
        if e[i] == 0x1F:
            out[i] = sign[i] | 0x7F800000 | (m[i] << 13)
        elif e[i]:
            out[i] = sign[i] | ((e[i] + 112) << 23) | (m[i] << 13)
        else:
            out[i] = np.float32(m[i] * 2.0 ** -24).view(np.uint32) | sign[i]
    return out


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_every_16bit_value_read_from_and_written_to_a_16bit_segment(dtype):
    """A 16-bit segment is widened exactly as it is read (against a plain reference) and narrowed as it is written:
    every pattern back as it was, a NaN as CAST_RINT leaves it."""
    import ml_dtypes

    from swishgrad_numba.engine.rows import segment

    np_dtype = np.dtype(np.float16) if dtype == "float16" else np.dtype(ml_dtypes.bfloat16)
    bits = np.arange(1 << 16, dtype=np.uint16)
    code = np.array([_ins("R_GM_IN", 0, 0, count=1024), _ins("R_GM_OUT", 0, 0, count=1024, mode=1),
                     _ins("R_GM_OUT", 0, 0, count=1024, mode=2)], np.int64)
    wide, back = np.zeros(1 << 16, F32), np.zeros(1 << 16, np_dtype)
    segs = np.array([[0, 1 << 16]] * 3, np.int64)
    tiles = np.array([[0, b, b, b] for b in range(0, 1 << 16, 1024)], np.int64)
    RowProgram([code], [0.0], 1024).run((segment(bits.view(np_dtype)), wide, back), segs, tiles,
                                        np.array([0, 32, 64], np.int64))
    assert (wide.view(np.uint32) == _widened_reference(bits, dtype)).all()
    back, nan = back.view(np.uint16), np.isnan(wide)
    assert (back[~nan] == bits[~nan]).all()
    quiet = (bits[nan] & 0x8000) | 0x7E00 if dtype == "float16" else bits[nan] | 0x40   # CAST_RINT's NaN
    assert (back[nan] == quiet).all()
    x = np.arange(6, dtype=F32)
    assert np.shares_memory(segment(x), x)                   # read where it lies
    ro = np.frombuffer(x.tobytes(), F32)
    assert not np.shares_memory(segment(ro), ro) and segment(ro).flags.writeable       # read-only: copied


def _rms_norm_launch(cols, rows=6, dtype=np.float32):
    """RmsNorm's A2 row program and schedule for ``rows x cols`` (a real stream to mutate)."""
    from swishgrad_numba.ops.rms_norm.host_a2 import a2_tiling
    from swishgrad_numba.ops.rms_norm.kernel_a2 import row_program, schedule
    from swishgrad_numba.platform import Platform

    t = a2_tiling(rows, cols, np.dtype(dtype), np.dtype(dtype), 1e-6, Platform())
    prog = row_program(t, np.dtype(dtype))
    segments = np.array([[0, rows * cols], [0, cols], [0, rows * cols], [0, rows]], np.int64)
    tiles, core_ptr = schedule(t, segments)
    return prog, segments, tiles, core_ptr


@pytest.mark.parametrize("cols", [100, 3000, 14000])
def test_the_compiled_check_passes_exactly_what_the_rules_pass(cols):
    """:func:`check`'s compiled pass lets a launch through only where every rule holds (check_rules): the real
    streams pass it, and of 600 random mutations (a field of an instruction, a tile's base, a segment, a pointer,
    the arena) check refuses exactly those check_rules refuses, with its message."""
    from swishgrad_numba.engine import row_check

    prog, segments, tiles, core_ptr = _rms_norm_launch(cols)
    args = (prog.code, prog.stream_ptr, prog.scalars, prog.arena_len, segments, tiles, core_ptr)
    assert row_check._first_fault(prog.code, prog.stream_ptr, len(prog.scalars), prog.arena_len, segments, tiles,
                             core_ptr, row_check._MODE_TABLES[4], row_check._EXT) == -1
    row_check.check(*args)
    rng = np.random.default_rng(cols)
    refused = 0
    for _ in range(600):
        code, sp, sc, arena, segs, tl, cp = (a.copy() if isinstance(a, np.ndarray) else a for a in args)
        where = rng.integers(6)
        delta = int(rng.choice([-1, 1, -64, 64, 1 << 20, -(1 << 62), 1 << 62]))
        if where <= 1:
            code[rng.integers(len(code)), rng.integers(O.FIELDS)] += delta
        elif where == 2:
            tl[rng.integers(len(tl)), rng.integers(tl.shape[1])] += delta
        elif where == 3:
            segs[rng.integers(len(segs)), rng.integers(2)] += delta
        elif where == 4:
            (sp if rng.integers(2) else cp)[rng.integers(2)] += delta
        else:
            arena += delta
        try:
            row_check.check_rules(code, sp, sc, arena, segs, tl, cp)
            why = None
        except ValueError as exc:
            why = str(exc)
        if why is None:
            row_check.check(code, sp, sc, arena, segs, tl, cp)
        else:
            refused += 1
            with pytest.raises(ValueError) as got:
                row_check.check(code, sp, sc, arena, segs, tl, cp)
            assert str(got.value) == why
    assert refused > 100


_N = 96     # one region's elements: regions at 0, 96 and 192 of the arena


def _plain(op, x, y, k, dtype=None):
    """The element-wise row instructions written plainly (float32 arithmetic; the casts by ml_dtypes, a NaN the
    dtype's quiet NaN of its sign)."""
    import ml_dtypes

    from reference import ref_exp_f32
    with np.errstate(all="ignore"):
        if op == "R_CAST_RINT":
            wide = x.astype(np.dtype(dtype) if dtype == "float16" else ml_dtypes.bfloat16).astype(F32)
            quiet = np.uint32(0x7FC00000) if dtype == "float16" else (_bits(x) & np.uint32(0x7FFF0000)) | 0x7FC00000
            return np.where(np.isnan(x), ((_bits(x) & np.uint32(0x80000000)) | quiet).view(F32), wide)
        return {"R_ADD": lambda: x + y, "R_MUL": lambda: x * y, "R_DIV": lambda: x / y, "R_MULS": lambda: x * k,
                "R_ADDS": lambda: x + k, "R_SQRT": lambda: np.sqrt(x), "R_EXP": lambda: ref_exp_f32(x),
                "R_MULS_AT": lambda: x * y[0]}[op]().astype(F32)


_BINARY = ["R_ADD", "R_MUL", "R_DIV", "R_MULS_AT"]
_UNARY = ["R_MULS", "R_ADDS", "R_SQRT", "R_EXP", "R_CAST_RINT float16", "R_CAST_RINT bfloat16"]


@pytest.mark.parametrize("op, placement", [(op, p) for op in _BINARY for p in ("apart", "dst_at_src0", "dst_at_src1",
                                                                               "all_one")]
                         + [(op, p) for op in _UNARY for p in ("apart", "dst_at_src0")])
def test_element_wise_instructions_in_place_and_apart(rng, op, placement):
    """Each element-wise row instruction with its destination apart from its sources, at one of them, or all three
    one region (the in-place loops the machine keeps vectorised): the plain reference's bits, NaN payloads and
    specials included."""
    from swishgrad_numba.dtypes import dtype_info

    op, _, dtype = op.partition(" ")
    specials = np.array([np.inf, -np.inf, np.nan, -0.0, 0.0, 65519.0, 65520.0, 1e-8, -3e38], F32)
    x = np.concatenate([specials, rng.standard_normal(_N - 9).astype(F32) * 8])
    x[3:6] = np.array([0x7FA00001, 0xFFC12345, 0x7F800001], np.uint32).view(F32)   # NaN payloads
    y = rng.permutation(x) if op != "R_SQRT" else x
    a, b, d = {"apart": (0, _N, 2 * _N), "dst_at_src0": (0, _N, 0), "dst_at_src1": (0, _N, _N),
               "all_one": (0, 0, 0)}[placement]
    if placement == "all_one":
        y = x
    count = 1 if op == "R_MULS_AT" and placement != "apart" else _N
    mode = dtype_info(dtype).code if dtype else 0
    data = np.concatenate([x, y, np.full(_N, 7.0, F32)])
    ins = _ins(op, d, a, b, count=count, k0=1, mode=mode)
    out = _machine([ins], data, 3 * _N, scalars=(0.0, 1.75))
    want = _plain(op, x[:count], y[:count], F32(1.75), dtype)
    assert _same(out[d:d + count], want)


def _copy_launch():
    """A copy of 8 elements per tile from segment 0 to segment 1: two tiles."""
    code = np.array([_ins("R_GM_IN", 0, 0, count=8), _ins("R_GM_OUT", 0, 0, count=8, mode=1)], np.int64)
    tiles = np.array([[0, 0, 0], [0, 8, 8]], np.int64)
    return RowProgram([code], [0.0], 8), np.array([[0, 16], [0, 16]], np.int64), tiles


def test_a_read_only_schedule_is_checked_once_a_writeable_one_at_every_run(monkeypatch):
    """A schedule kept read-only (scheduled_once's) passes check() once per program and segments; a writeable
    one, other segments, or a schedule that fails is checked at every run."""
    from swishgrad_numba.engine import rows

    checks = []
    real = rows.check
    monkeypatch.setattr(rows, "check", lambda *args: checks.append(1) or real(*args))
    prog, segs, tiles = _copy_launch()
    assert not any(a.flags.writeable for a in (prog.code, prog.stream_ptr, prog.scalars))
    core_ptr = np.array([0, 1, 2], np.int64)
    src, out = np.arange(16, dtype=F32), np.zeros(16, F32)
    for _ in range(3):
        prog.run((src, out), segs, tiles, core_ptr)
    assert len(checks) == 3 and _same(out, src)
    tiles.flags.writeable = core_ptr.flags.writeable = False
    for k in range(3):
        out[:] = 0
        prog.run((src + k, out), segs, tiles, core_ptr)
        assert _same(out, src + k)
    assert len(checks) == 4
    with pytest.raises(ValueError, match="segment 0"):     # other segments: checked, and refused
        prog.run((src[:12], out), [[0, 12], [0, 16]], tiles, core_ptr)
    bad = np.array([[0, 0, 0], [0, 9, 8]], np.int64)      # a tile's copy leaves segment 0
    bad.flags.writeable = False
    for _ in range(2):
        with pytest.raises(ValueError, match="leave global segment 0"):
            prog.run((src, out), segs, bad, core_ptr)
    assert len(checks) == 7
    with pytest.raises(ValueError, match="segment 1 leaves its array"):   # the arrays checked at every run
        prog.run((src, out[:8]), segs, tiles, core_ptr)
    flat = np.array([[0, 0, 0, 0, 8, 8]], np.int64)      # the same tiles in one row: reshaped for the check alone
    flat.flags.writeable = False
    for _ in range(2):
        out[:] = 0
        prog.run((src, out), segs, flat, core_ptr)
        assert _same(out, src)
    assert len(checks) == 9


def test_a_schedule_of_one_core_runs_without_a_parallel_region(monkeypatch):
    """One core's tiles run serially (no prange to start), several cores' in the parallel launch: the same
    bits."""
    from swishgrad_numba.engine import rows

    prog, segs, tiles = _copy_launch()
    src = np.arange(16, dtype=F32)
    outs = {}
    for cores, unused in (([0, 2], "_run"), ([0, 1, 2], "_run_one")):
        def refuse(*args, name=unused):
            raise AssertionError(f"{name} ran")
        with monkeypatch.context() as m:
            m.setattr(rows, unused, refuse)
            outs[len(cores)] = np.zeros(16, F32)
            prog.run((src, outs[len(cores)]), segs, tiles, np.array(cores, np.int64))
    assert _same(outs[2], src) and _same(outs[3], src)

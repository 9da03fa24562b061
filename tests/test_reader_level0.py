"""Level-0 vector calls (mask, repeatTimes, repeat parameters) in an A2 kernel (issue 43), on the fixture
level0_repeats (y = exp(x * scale) + x over 4 cores, tiles of 1024 float32 and a short last tile) and its
variants. The reference runs each call lane by lane from the level-0 addressing: a repeat of 256 bytes is
8 blocks of 32; lane l of repeat r is element r * repStride * 8 + (l // 8) * blkStride * 8 + l % 8 of a
float32 operand, for l < mask; the repeats run in order; nothing else is touched."""
import numpy as np
import pytest

from reader_variants import KERNELS, fixture_variant
from reference import SPECIALS, assert_bits_equal, random_inputs, ref_exp_f32

from swishgrad_numba.ops import read_kernel
from swishgrad_numba.reader import KernelSourceError

F32 = np.float32
CORES, TILE = 4, 1024


def level0(fn, dst, srcs, mask, repeat, blk, rep):
    """One float32 level-0 call: ``blk`` and ``rep`` the strides (in 32-byte blocks), destination first."""
    for r in range(repeat):
        for lane in range(mask):
            at = [r * rep[i] * 8 + (lane // 8) * blk[i] * 8 + lane % 8 for i in range(len(blk))]
            dst[at[0]] = fn(*(s[a] for s, a in zip(srcs, at[1:])))


def ref_level0_repeats(x, scale, lanes=64, rep=8):
    """The fixture's kernel, core by core and tile by tile, each tile in buffers of TILE elements whose
    elements past the copied ones hold NaN (what the last repeat reads there is never stored)."""
    core_len = x.size // CORES
    y = np.full(x.size, np.nan, F32)          # past CORES * core_len: never written
    exp1 = lambda t: ref_exp_f32(np.array([t], F32))[0]
    with np.errstate(all="ignore"):
        for c in range(CORES):
            for start in range(0, core_len, TILE):
                n = min(TILE, core_len - start)
                xb, tmp, yb = (np.full(TILE + 64, np.nan, F32) for _ in range(3))
                xb[:n] = x[c * core_len + start:][:n]
                repeats = -(-n // lanes)
                level0(lambda a: a * F32(scale), tmp, [xb], lanes, repeats, (1, 1), (rep, rep))
                level0(exp1, tmp, [tmp], lanes, repeats, (1, 1), (rep, rep))
                level0(lambda a, b: a + b, yb, [tmp, xb], lanes, repeats, (1, 1, 1), (rep, rep, rep))
                y[c * core_len + start:][:n] = yb[:n]
    return y


def _inputs(n):
    x = random_inputs(np.random.default_rng(43), n, F32)[1].astype(F32)
    x[:SPECIALS.size] = SPECIALS.astype(F32)
    return x


def _run(op, x, **kw):
    out = op.run(x=x, **kw)
    out[x.size // CORES * CORES:] = np.nan          # the cores' remainder: no core copies it
    return out


def test_full_repeats_and_a_last_repeat_past_the_tile_bit_for_bit():
    op = read_kernel(KERNELS / "level0_repeats")
    assert [s.op for s in op.description.body("float32").steps] == ["Muls", "Exp", "Add"]
    x = _inputs(4 * 2500 + 3)           # tiles 1024, 1024, 452: the last computes 8 repeats, stores 452
    assert_bits_equal(_run(op, x), ref_level0_repeats(x, -0.75), "level0_repeats")
    assert_bits_equal(_run(op, x, scale=1.5), ref_level0_repeats(x, 1.5), "level0_repeats scale")


def test_a_partial_mask_with_a_matching_repeat_stride_bit_for_bit(tmp_path):
    # 48 lanes a repeat (192 bytes) with a repeat stride of 6 blocks: the repeats still tile the buffer
    folder, path = fixture_variant(tmp_path, "level0_repeats", "LANES = 64;", "LANES = 48;")
    path.write_text(path.read_text().replace("8, 8, 8}", "6, 6, 6}").replace("8, 8}", "6, 6}")
                    .replace("tileLength * sizeof(float))", "(tileLength + 48) * sizeof(float))"))
    op = read_kernel(folder)
    x = _inputs(4 * 1500)
    assert_bits_equal(_run(op, x), ref_level0_repeats(x, -0.75, lanes=48, rep=6), "level0_repeats mask 48")


def test_the_reference_models_gaps_the_reader_refuses():
    # a half mask at the default repeat stride leaves every other 32 elements untouched
    dst = np.zeros(128, F32)
    level0(lambda a: a + F32(1), dst, [np.arange(128, dtype=F32)], 32, 2, (1, 1), (8, 8))
    assert np.array_equal(dst[:32], np.arange(32) + 1) and not dst[32:64].any()
    assert np.array_equal(dst[64:96], np.arange(64, 96) + 1) and not dst[96:].any()


@pytest.mark.parametrize("old, new, construct", [
    ("AscendC::Exp(tmp, tmp, LANES, repeats, {1, 1, 8, 8});",
     "AscendC::Exp(tmp, tmp, 32, repeats, {1, 1, 8, 8});", "Exp operand 0 repeat stride 8"),
    ("AscendC::Exp(tmp, tmp, LANES, repeats, {1, 1, 8, 8});",
     "AscendC::Exp(tmp, tmp, LANES, repeats, {2, 1, 8, 8});", "Exp operand 0 block stride 2"),
    ("AscendC::Exp(tmp, tmp, LANES, repeats, {1, 1, 8, 8});",
     "AscendC::Exp(tmp, tmp, LANES, repeats, {1, 1, 8});", "Exp repeat parameters with 3 values"),
    ("AscendC::Exp(tmp, tmp, LANES, repeats, {1, 1, 8, 8});",
     "AscendC::Exp(tmp, tmp, 65, repeats, {1, 1, 8, 8});", "Exp mask 65"),
    ("AscendC::Exp(tmp, tmp, LANES, repeats, {1, 1, 8, 8});",
     "uint64_t bits[2] = {0xffffffff, 0};\n        AscendC::Exp(tmp, tmp, bits, repeats, {1, 1, 8, 8});",
     "Exp with a bit-mode mask"),
    ("AscendC::Exp(tmp, tmp, LANES, repeats, {1, 1, 8, 8});",
     "AscendC::SetMaskCount();\n        AscendC::Exp(tmp, tmp, LANES, repeats, {1, 1, 8, 8});",
     "Exp in the counter mask mode"),
    ("AscendC::Exp(tmp, tmp, LANES, repeats, {1, 1, 8, 8});",
     "AscendC::Exp(tmp, tmp, LANES, 4, {1, 1, 8, 8});", "Exp over 256 elements"),
    ("AscendC::Exp(tmp, tmp, LANES, repeats, {1, 1, 8, 8});",
     "AscendC::Exp(tmp, tmp, LANES, repeats, {1, 1, this->tileNum, 8});", "Exp repeat parameter this->tileNum"),
])
def test_what_the_program_form_cannot_express_is_refused_at_its_line(tmp_path, old, new, construct):
    folder, path = fixture_variant(tmp_path, "level0_repeats", old, new)
    line = next(i for i, t in enumerate(path.read_text().splitlines(), 1) if "AscendC::Exp(" in t)
    with pytest.raises(KernelSourceError, match=construct) as err:
        read_kernel(folder)
    assert err.value.line == line


def test_repeats_short_of_the_tile_are_refused_for_the_launch(tmp_path):
    # floor instead of ceiling: the last tile's last 452 % 64 elements would be stored uncomputed
    folder, _ = fixture_variant(tmp_path, "level0_repeats", "(len + LANES - 1) / LANES", "len / LANES")
    op = read_kernel(folder)
    with pytest.raises(KernelSourceError, match="over 448 elements"):
        op.run(x=_inputs(4 * 2500))

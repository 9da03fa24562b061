"""Which Casts the program form takes (issue 43, "Casts between every float and integer dtype, in every round mode"),
pinned against the A2 table of asc-devkit's Cast page (0da921b9, docs/zh/api/SIMD-API/基础API/Memory矢量计算/
类型转换/Cast.md, lines 180-212) restricted to the program's dtypes, and the A2 pairs it does not model refused by
name, in the form and in a read kernel. (The values of each Cast: tests/test_casts_whole.py, test_casts_int.py,
test_casts_directed.py.)"""
import itertools

import pytest

from reader_variants import fixture_variant

from swishgrad_numba.program import Program, Tensor
from swishgrad_numba.program.form import V

NONE, RINT, FLOOR, CEIL, ROUND, TRUNC, ODD = ("CAST_NONE", "CAST_RINT", "CAST_FLOOR", "CAST_CEIL", "CAST_ROUND",
                                              "CAST_TRUNC", "CAST_ODD")
FIVE = {RINT, FLOOR, CEIL, ROUND, TRUNC}
#: The A2 table, (src, dst) -> modes, for the program's dtypes (int4b_t, int64_t and uint16_t rows left out).
A2 = {
    ("int8", "float16"): {NONE}, ("uint8", "float16"): {NONE}, ("int16", "float16"): FIVE | {NONE},
    ("int16", "float32"): {NONE}, ("float16", "int8"): FIVE | {NONE}, ("float16", "uint8"): FIVE | {NONE},
    ("float16", "int16"): FIVE, ("float16", "int32"): FIVE, ("float16", "float32"): {NONE},
    ("bfloat16", "int32"): FIVE, ("bfloat16", "float32"): {NONE}, ("int32", "int16"): {NONE},
    ("int32", "float16"): {NONE}, ("int32", "float32"): FIVE | {NONE}, ("float32", "int16"): FIVE,
    ("float32", "float16"): FIVE | {ODD, NONE}, ("float32", "bfloat16"): FIVE, ("float32", "int32"): FIVE,
    ("float32", "float32"): FIVE,
}
#: The A2 pairs the form refuses, with the words of the reason.
UNMODELLED = {("int32", "int16"): "an integer to integer Cast",
              ("int32", "float16"): "SetDeqScale"}
DTYPES = ("float32", "float16", "bfloat16", "int32", "int16", "int8", "uint8")
MODES = (NONE, RINT, FLOOR, CEIL, ROUND, TRUNC, ODD)
#: A float input and the Cast that makes each source dtype from it.
FEED = {"int32": ("float32", RINT), "int16": ("float16", RINT), "int8": ("float16", RINT), "uint8": ("float16", RINT)}


def _program(src, dst, mode):
    if src in FEED:
        feed, how = FEED[src]
        return Program("P", (Tensor("x", feed),), Tensor("o", "float32"), (Tensor("s", src), Tensor("d", dst)),
                       (V.Cast("s", "x", how), V.Cast("d", "s", mode), V.Duplicate("o", 0.0)), ())
    return Program("P", (Tensor("x", src),), Tensor("o", "float32"), (Tensor("d", dst),),
                   (V.Cast("d", "x", mode), V.Duplicate("o", 0.0)), ())


def _taken():
    taken = {}
    for src, dst, mode in itertools.product(DTYPES, DTYPES, MODES):
        try:
            _program(src, dst, mode)
        except ValueError:
            continue
        taken.setdefault((src, dst), set()).add(mode)
    return taken


def test_the_form_takes_the_a2_table():
    want = {k: set(v) for k, v in A2.items() if k not in UNMODELLED}
    # float32 -> float16 with CAST_NONE: the reader writes it CAST_RINT (the RoundMode page), the form names RINT
    want["float32", "float16"].discard(NONE)
    assert _taken() == want


@pytest.mark.parametrize("pair", sorted(UNMODELLED))
def test_an_unmodelled_a2_pair_says_why(pair):
    with pytest.raises(ValueError, match=UNMODELLED[pair]):
        _program(*pair, NONE)


CALL = "AscendC::Silu(yLocal, xLocal, this->tileLength);"
_INT32 = ("AscendC::LocalTensor<int32_t> a = tmpBuf.Get<int32_t>();\n"
          "        AscendC::Cast(a, xLocal, AscendC::RoundMode::CAST_RINT, this->tileLength);\n        ")


@pytest.mark.parametrize("dtype, body, line, words", [
    ("float", _INT32 + "AscendC::LocalTensor<int16_t> b = outQueueY.AllocTensor<int16_t>();\n"
     "        AscendC::Cast(b, a, AscendC::RoundMode::CAST_NONE, this->tileLength);\n"
     "        AscendC::Cast(yLocal, b, AscendC::RoundMode::CAST_NONE, this->tileLength);", 53,
     "no Cast from int32 to int16"),
    ("half", _INT32 + "AscendC::Cast(yLocal, a, AscendC::RoundMode::CAST_NONE, this->tileLength);", 52,
     "SetDeqScale"),
    ("half", "AscendC::Cast(yLocal, xLocal, AscendC::RoundMode::CAST_RINT, this->tileLength);", 50,
     "a Cast from float16 to itself"),
    ("float", "AscendC::LocalTensor<int64_t> a = tmpBuf.Get<int64_t>();", 50, "int64_t"),
])
def test_a_read_kernel_refuses_them_at_their_line(tmp_path, dtype, body, line, words):
    import numpy as np

    from swishgrad_numba.ops import read_kernel
    from swishgrad_numba.reader import KernelSourceError

    folder, path = fixture_variant(tmp_path, "mathlib_acts", CALL, body)
    text = path.read_text().replace("AscendC::LocalTensor<uint8_t> sharedTmp = tmpBuf.Get<uint8_t>();", "")
    path.write_text(text.replace("KernelMathlibActs<float> op;", f"KernelMathlibActs<{dtype}> op;"))
    with pytest.raises(KernelSourceError) as e:
        read_kernel(folder).run(x=np.zeros(64, np.float32 if dtype == "float" else np.float16))
    assert e.value.file == str(path) and e.value.line == line and words in str(e.value), str(e.value)

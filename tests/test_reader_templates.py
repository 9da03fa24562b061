"""C++ templates and traits the kernels compute their types with (issue 43): a static constexpr member read by
a class alias, ``std::conditional_t`` / ``std::conditional<...>::type`` on it, a variable template, a file-level
alias template, a trait with a full specialization, a member template defined outside its class with its
parameter deduced, a base class template's methods with its own template arguments (called qualified and
inherited), a helper setting lengths through reference parameters, TQueBind's ``DeQue<from, to, T>``, a binary
literal, destructors, ``__attribute__((aligned(8)))``, ``__restrict__`` and the
``g_coreType`` guard, in a fixture written for these tests (traits_affine), bit for bit against a reference
written here instruction by instruction; parser-level checks of each construct; what stays outside the subset
refused at its line."""
from pathlib import Path

import numpy as np
import pytest

from activation_checks import every16
from reference import SPECIALS, assert_bits_equal, random_inputs
from reference_family import narrow
from reader_variants import fixture_variant

from swishgrad_numba.ops import read_kernel
from swishgrad_numba.reader import KernelSourceError, read_source
from swishgrad_numba.reader.declarations import parse_file
from swishgrad_numba.reader.lexer import tokenize
from swishgrad_numba.reader.syntax import ClassDef, Decl, Function

KERNELS = Path(__file__).parent / "fixtures" / "kernels"
F32 = np.float32


def ref_traits_affine(x):
    """Widened exactly to float32 for 16-bit x; Muls 0.1f; Adds 2.0; then Mul by the widened x for float16,
    Add of it otherwise (each rounded to float32); 16-bit results narrowed with CAST_RINT."""
    with np.errstate(all="ignore"):
        w = x.astype(F32)
        acc = w * F32(0.1)        # the base's T is float whatever the kernel's T: 0.1f, not half's 0.1
        acc = acc + F32(2.0)
        acc = acc * w if x.dtype == np.float16 else acc + w
    return acc if x.dtype == F32 else narrow(acc, x.dtype, ties_away=False)


@pytest.fixture(scope="module")
def affine():
    return read_kernel(KERNELS / "traits_affine")


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
def test_traits_affine_bit_for_bit(affine, dtype):
    if dtype == "float32":
        x = np.concatenate([random_inputs(np.random.default_rng(43), 4_000, F32)[1], SPECIALS.astype(F32)])
    else:
        x = every16(dtype)
    assert_bits_equal(affine.run(x=x), ref_traits_affine(x), f"traits_affine {dtype}")


def test_each_dtype_takes_the_path_its_traits_choose(affine):
    def ops(dtype):
        return [s.op for s in affine.description.body(dtype).steps]
    assert ops("float32") == ["Muls", "Adds", "Add"]                      # no cast: ComputeT is T
    assert ops("float16") == ["Cast", "Muls", "Adds", "Mul", "Cast"]      # IsHalf<half>: the specialization
    assert ops("bfloat16") == ["Cast", "Muls", "Adds", "Add", "Cast"]     # the primary: std::false_type
    assert [s.args[2].value for s in affine.description.body("float16").steps[1:3]] == [float(F32(0.1)), 2.0]  # 0b10


def _parse(src):
    return parse_file(tokenize(src, "t.h"))


def test_parser_reads_each_construct():
    items = _parse("""
        template <typename T> constexpr bool kWide = sizeof(T) == 2;
        template <typename T> struct IsHalf : std::false_type {};
        template <> struct IsHalf<half> : std::true_type {};
        template <typename T> class K {
            __aicore__ inline ~K() = default;
            virtual ~K() {}
            void Run(const int64_t (&dims)[2], GM_ADDR inputs[3], float* __restrict__ p);
        };
        template <typename T> template <typename C, int N> __aicore__ inline void K<T>::F() {}
        struct __attribute__((aligned(8))) Tiling { uint32_t n; };
        __launch_bounds__(256) inline void G() { if TILING_KEY_IS(1) { return; } int m = 0b101; }
    """)
    var, primary, spec, cls, method, tiling, g = items
    assert isinstance(var, Decl) and [tp.name for tp in var.tparams] == ["T"]
    assert primary.spec is None and [b.name.last for b in primary.bases] == ["false_type"]
    assert isinstance(spec, ClassDef) and spec.tparams == () and spec.spec[0].name.last == "half"
    assert [m.name.last for m in cls.methods] == ["Run"]                  # the destructors are not methods
    assert [(p.name, p.type.ptr) for p in cls.methods[0].params] == [("dims", "&"), ("inputs", "*"), ("p", "*")]
    assert isinstance(method, Function) and [tp.name for tp in method.tparams] == ["T", "C", "N"]
    assert isinstance(tiling, ClassDef) and tiling.name == "Tiling"
    assert g.name.last == "G" and g.body.stmts[0].cond.fn.last == "TILING_KEY_IS"
    assert g.body.stmts[1].names[0][1].text == "0b101"


@pytest.mark.parametrize("src, line, words", [
    ("class K {\n  ~K() { x = 1; }\n};", 2, "destructor ~K with statements"),
    ("struct\n__attribute__((packed)) S { int a; };", 2, "__attribute__((packed))"),
    ("template <typename C,\n void (C::*f)(int)> void F() {}", 2, "pointer-to-member template parameter"),
    ("template <\nREDUCE_PARAMS> void F() {}", 2, "template parameter REDUCE_PARAMS"),
    ("void F() {\n  G([this, &n](int k) { H(k); });\n}", 2, "a lambda capturing '&'"),    # issue 43: [&n] only
    ("template <typename T, typename... Ts>\nstruct One<T, Ts...> {};", 2, "a pack expansion"),
])
def test_parser_refuses_what_stays_outside_at_its_line(src, line, words):
    with pytest.raises(KernelSourceError) as e:
        _parse(src)
    assert e.value.line == line and words in str(e.value), str(e.value)


def _variant(tmp_path, old, new):
    return fixture_variant(tmp_path, "traits_affine", old, new)


@pytest.mark.parametrize("old, new, at, words", [
    # the guard reads g_coreType as AIV: a kernel that returns on a vector core computes nothing
    ("if (g_coreType == AscendC::AIC) {", "if (g_coreType == AscendC::AIV) {", None, "computes"),
    # a member template whose parameter no argument gives: refused at the call (float32 is read first)
    ("template <typename C>\n__aicore__ inline void TraitsAffine<T>::Affine(",
     "template <typename C, typename D>\n__aicore__ inline void TraitsAffine<T>::Affine(", "Affine(yLocal, xLocal);",
     "template parameter D is neither given nor deduced"),
    # a trait with two specializations that match the same arguments: refused where it is read
    ("struct IsHalf<half> : std::true_type {};",
     "struct IsHalf<half> : std::true_type {};\ntemplate <>\nstruct IsHalf<half> : std::false_type {};",
     "IsHalf<T>::value", "two specializations match"),
    # a trait whose value the reader cannot find
    ("struct IsHalf : std::false_type {};", "struct IsHalf {};", "IsHalf<T>::value",
     "neither a static constexpr value"),
])
def test_what_is_not_followed_is_refused_at_its_line(tmp_path, old, new, at, words):
    folder, path = _variant(tmp_path, old, new)
    with pytest.raises(KernelSourceError) as e:
        read_source(folder)
    assert words in str(e.value), str(e.value)
    if at is not None:
        lines = path.read_text().splitlines()
        assert e.value.line == next(i for i, text in enumerate(lines, 1) if at in text), str(e.value)


def test_a_destructor_and_aligned_struct_change_nothing(tmp_path):
    plain = _variant(tmp_path, "__aicore__ inline ~TraitsAffine() = default;", "")[0]
    plain_text = (plain / "traits_affine.cpp").read_text().replace("__attribute__((aligned(8))) ", "")
    (plain / "traits_affine.cpp").write_text(plain_text.replace(" __restrict__", ""))
    for dtype in ("float32", "float16", "bfloat16"):
        assert str(read_source(plain).body(dtype)) == str(read_source(KERNELS / "traits_affine").body(dtype))


def test_a_refusal_while_constructing_an_object_in_a_block_names_its_line(tmp_path):
    """A field initialiser refused while an object is built inside nested blocks (a macro's ``do { }
    while (0)`` under an ``if``) is that refusal: the block's scopes are the caller's again, not an IndexError."""
    folder, path = fixture_variant(tmp_path, "traits_affine", "uint32_t tileLength, tileNum;",
                                   "uint32_t tileLength = NotAKnownCall(), tileNum;")
    text = path.read_text().replace("TraitsAffine<DTYPE_X> op;\n    op.Init(x, y, &td);\n    op.Process();",
                                    "if (true) {\n do {\n        TraitsAffine<DTYPE_X> op;\n"
                                    "        op.Init(x, y, &td);\n        op.Process();\n    } while (0);\n }")
    path.write_text(text)
    with pytest.raises(KernelSourceError) as e:
        read_source(folder)
    assert "unknown call NotAKnownCall" in str(e.value), str(e.value)
    assert e.value.line == next(i for i, t in enumerate(text.splitlines(), 1) if "NotAKnownCall" in t)


def test_a_dtype_flag_of_a_tensor_the_entry_does_not_name_is_the_reads_dtype(tmp_path):
    """``DTYPE_INPUT_X`` (the op definition's input name, where the entry's parameter is ``x``) in C++ code is
    the dtype the kernel is read for, as every dtype flag of a build; a name of another form stays refused."""
    folder = _variant(tmp_path, "TraitsAffine<DTYPE_X> op;", "TraitsAffine<DTYPE_INPUT_X> op;")[0]
    for dtype in ("float32", "float16", "bfloat16"):
        assert str(read_source(folder).body(dtype)) == str(read_source(KERNELS / "traits_affine").body(dtype))
    other = tmp_path / "other"
    other.mkdir()
    folder = fixture_variant(other, "traits_affine", "TraitsAffine<DTYPE_X> op;", "TraitsAffine<TYPE_INPUT_X> op;")[0]
    with pytest.raises(KernelSourceError):
        read_source(folder)

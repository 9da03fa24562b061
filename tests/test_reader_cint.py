"""C integer semantics of the reader's constants (issue 43): octal literals, unsigned wrap-around, ``%`` and
``/`` truncating toward zero, narrowing conversions, the usual arithmetic conversions; what C leaves
undefined (a signed overflow, a float out of an integer's range) refused at its line. The expected values
are worked out here by hand from the C rules."""
import pytest

from test_reader_hardening import kernel, muls_constant, refused

from swishgrad_numba.reader.values import arith, convert, negate, number


@pytest.mark.parametrize("expr, value", [
    ("(float)010", 8.0),                                  # octal
    ("(float)0x10", 16.0),
    ("static_cast<float>(static_cast<uint32_t>(-1))", 4294967296.0),      # 2^32 - 1, rounded to float
    ("(float)(0u - 1)", 4294967296.0),      # 2^32 - 1, rounded to float                    # unsigned wraps
    ("(float)(-1 < 0u)", 0.0),                            # -1 converted to unsigned int first
    ("(float)(-1 < 0)", 1.0),
    ("(float)(-7 % 2)", -1.0),                            # truncation toward zero
    ("(float)(-7 / 2)", -3.0),
    ("(float)(uint8_t)300", 44.0),                        # narrowing to unsigned wraps
    ("(float)(int)-2.75f", -2.0),                         # a float truncates toward zero
    ("(float)(~0u)", 4294967296.0),      # 2^32 - 1, rounded to float
    ("(float)(1u << 31)", 2147483648.0),
    ("(float)(3000000000 + 0)", 3000000000.0),            # a decimal literal past int is int64_t
])
def test_constants_follow_c(tmp_path, expr, value):
    folder = kernel(tmp_path, new=f"AscendC::Muls(yLocal, xLocal, {expr}, this->len);")
    assert muls_constant(folder) == value


@pytest.mark.parametrize("before, words", [
    ("const int K = 65536 * 65536;\n", "overflows int"),
    ("const int K = 2147483647 + 1;\n", "overflows int"),
    ("const uint32_t K = (uint32_t)-1.5f;\n", "out of its range"),
    ("const int K = (int)3e9;\n", "out of its range"),
    ("const int K = 09;\n", "octal"),
    ("const int K = -1 << 2;\n", "negative value"),
])
def test_what_c_leaves_undefined_is_refused_at_its_line(tmp_path, before, words):
    e = refused(kernel(tmp_path, new="AscendC::Muls(yLocal, xLocal, (float)K, this->len);", before=before))
    assert e.line == 1 and words in str(e), str(e)


@pytest.mark.parametrize("before, value", [
    ("const int16_t K = 40000;\n", -25536.0),                   # 40000 - 2^16
    ("constexpr int K = 274877906944;\n", 0.0),                 # 2^38 modulo 2^32
    ("constexpr int K = 17592186044417;\n", 1.0),               # 2^44 + 1
    ("const int8_t K = (int8_t)200u;\n", -56.0),
    ("const int32_t K = static_cast<int32_t>(3000000000u);\n", -1294967296.0),
    ("const int64_t K = 0xFFFFFFFFFFFFFFFF * 2;\n", -2.0),     # uint64_t wraps to 2^64 - 2, then to int64_t
])
def test_an_integer_narrowed_to_a_signed_type_wraps(tmp_path, before, value):
    # implementation-defined in C; C++20's rule and the device compiler's (clang): modulo 2^bits
    folder = kernel(tmp_path, new="AscendC::Muls(yLocal, xLocal, (float)K, this->len);", before=before)
    assert muls_constant(folder) == value


def test_the_usual_arithmetic_conversions():
    u32, i64 = convert(number("5"), "uint32_t"), convert(number("-3"), "int64_t")
    assert arith("+", u32, i64).value == 2 and arith("+", u32, i64).ctype == "int64_t"    # int64 holds uint32
    big = convert(number("1"), "uint64_t")
    assert arith("-", big, number("2")).value == 2 ** 64 - 1                               # uint64 wraps
    assert negate(convert(number("1"), "uint32_t")).value == 2 ** 32 - 1
    assert convert(number("300"), "uint8_t").ctype == "uint8_t"
    assert arith("+", convert(number("255"), "uint8_t"), number("1")).value == 256         # promoted to int

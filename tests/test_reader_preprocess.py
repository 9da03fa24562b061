"""The reader's preprocessor (issue 43): conditions evaluated for a device build, ``defines=``.

Fixture kernels in the styles of kernels written outside ops-nn (a host-launch stub under
``#ifndef ASCENDC_CPU_DEBUG``, CPU-debug blocks, ``#if defined(HIGH_PERFORMANCE)`` bodies,
``__CCE_AICORE__`` comparisons), written here; runs compared bit for bit with plain float32.
"""
import re
from pathlib import Path

import numpy as np
import pytest

from reference import assert_bits_equal
from swishgrad_numba.reader import KernelSourceError, read_source
from swishgrad_numba.reader.preprocess import preprocess

KERNELS = Path(__file__).parent / "fixtures" / "kernels"
F32 = np.float32

WILD = """// y = x * scale * GAIN (or x * scale + 1 where HIGH_PERFORMANCE is defined), in a samples-like style
#include "kernel_operator.h"
#ifdef ASCENDC_CPU_DEBUG
#include "tikicpulib.h"
#endif
#ifdef __CCE_KT_TEST__
static void dump_for_cpu(int n) { if (n) goto done; done: return; }
#endif
#if defined(__CCE_AICORE__) && __CCE_AICORE__ == 220
constexpr float GAIN = 0.5f;
#elif __CCE_AICORE__ >= 300
constexpr float GAIN = 0.25f;
#else
#error "an AI core build only"
#endif
constexpr int32_t BUFFER_NUM = 2;

struct WildTilingData {
    uint32_t tileLength;
    float scale;
};

class KernelWild {
public:
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, const WildTilingData* tiling)
    {
        this->len = tiling->tileLength;
        this->scale = tiling->scale;
        xGm.SetGlobalBuffer((__gm__ float*)x);
        yGm.SetGlobalBuffer((__gm__ float*)y);
        pipe.InitBuffer(inQ, BUFFER_NUM, this->len * sizeof(float));
        pipe.InitBuffer(outQ, BUFFER_NUM, this->len * sizeof(float));
    }
    __aicore__ inline void Process()
    {
        AscendC::LocalTensor<float> xLocal = inQ.AllocTensor<float>();
        AscendC::DataCopy(xLocal, xGm[0], this->len);
        inQ.EnQue(xLocal);
        Compute();
        AscendC::LocalTensor<float> yLocal = outQ.DeQue<float>();
        AscendC::DataCopy(yGm[0], yLocal, this->len);
    }

private:
    __aicore__ inline void Compute()
    {
        AscendC::LocalTensor<float> xLocal = inQ.DeQue<float>();
        AscendC::LocalTensor<float> yLocal = outQ.AllocTensor<float>();
        AscendC::Muls(yLocal, xLocal, this->scale, this->len);
#if defined(HIGH_PERFORMANCE)
        AscendC::Adds(yLocal, yLocal, 1.0f, this->len);
#else
        AscendC::Muls(yLocal, yLocal, GAIN, this->len);
#endif
        outQ.EnQue(yLocal);
    }

    AscendC::TPipe pipe;
    AscendC::TQue<AscendC::QuePosition::VECIN, BUFFER_NUM> inQ;
    AscendC::TQue<AscendC::QuePosition::VECOUT, BUFFER_NUM> outQ;
    AscendC::GlobalTensor<float> xGm, yGm;
    uint32_t len;
    float scale;
};

extern "C" __global__ __aicore__ void wild_scale(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA_WITH_STRUCT(WildTilingData, tilingData, tiling);
    KernelWild op;
    op.Init(x, y, &tilingData);
    op.Process();
}

#ifndef ASCENDC_CPU_DEBUG
void wild_scale_do(uint32_t blockDim, void* l2ctrl, void* stream, uint8_t* x, uint8_t* y, uint8_t* tiling)
{
    wild_scale<<<blockDim, l2ctrl, stream>>>(x, y, nullptr, tiling);
}
#endif
"""


def wild(tmp_path, text=WILD):
    folder = tmp_path / "wild"
    folder.mkdir(exist_ok=True)
    (folder / "wild_scale.cpp").write_text(text)
    return folder


def steps(d):
    return [str(s) for s in d.body("float32").steps]


def test_a_device_build_drops_the_host_stub_and_the_cpu_debug_blocks(tmp_path):
    d = read_source(wild(tmp_path))
    assert steps(d) == ["Muls(yLocal, xLocal, scale);", "Muls(yLocal, yLocal, 0.5f);"]
    assert d.body("float32").steps[1].args[2].value == 0.5        # the A2's __CCE_AICORE__ 220


@pytest.mark.parametrize("defines, last, gain", [
    (None, "Muls(yLocal, yLocal, 0.5f);", 0.5),
    ({"__CCE_AICORE__": 310}, "Muls(yLocal, yLocal, 0.25f);", 0.25),
    ({"HIGH_PERFORMANCE": 1}, "Adds(yLocal, yLocal, 1.0f);", None),
    ({"HIGH_PERFORMANCE": ""}, "Adds(yLocal, yLocal, 1.0f);", None),      # -DHIGH_PERFORMANCE
    ({"HIGH_PERFORMANCE": None}, "Muls(yLocal, yLocal, 0.5f);", 0.5),
])
def test_defines_choose_the_bodies(tmp_path, defines, last, gain):
    d = read_source(wild(tmp_path), defines=defines)
    assert steps(d)[-1] == last
    if gain is not None:
        assert d.body("float32").steps[1].args[2].value == gain


def test_a_cpu_debug_build_is_what_the_user_asks_for(tmp_path):
    with pytest.raises(KernelSourceError) as err:     # the CPU build's block is not the kernel's C++
        read_source(wild(tmp_path), defines={"__CCE_KT_TEST__": 1})
    assert err.value.line == 7
    with pytest.raises(KernelSourceError, match="#error") as err:
        read_source(wild(tmp_path), defines={"__CCE_AICORE__": 100})
    assert err.value.line == 14


def test_the_wild_kernel_runs_bit_exact_in_both_builds(tmp_path):
    from swishgrad_numba.ops import read_kernel

    x = np.concatenate([np.linspace(-70000, 70000, 3001), [np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-45]]).astype(F32)
    with np.errstate(all="ignore"):
        out = read_kernel(wild(tmp_path)).run(x=x, scale=1.3)
        assert_bits_equal(out, x * F32(1.3) * F32(0.5))                    # plain float32, one step at a time
        out = read_kernel(wild(tmp_path), defines={"HIGH_PERFORMANCE": 1}).run(x=x, scale=1.3)
        assert_bits_equal(out, x * F32(1.3) + F32(1.0))


def test_an_ifndef_define_pair_inside_a_file_does_not_redefine(tmp_path):
    text = WILD.replace("constexpr int32_t BUFFER_NUM = 2;",
                        "#define GAIN_OVERRIDE 2.0f\n#ifndef GAIN_OVERRIDE\n#define GAIN_OVERRIDE 3.0f\n#endif\n"
                        "constexpr int32_t BUFFER_NUM = 2;")
    text = text.replace("AscendC::Muls(yLocal, yLocal, GAIN, this->len);",
                        "AscendC::Muls(yLocal, yLocal, GAIN_OVERRIDE, this->len);")
    d = read_source(wild(tmp_path, text))
    assert d.body("float32").steps[1].args[2].value == 2.0


def test_a_build_flag_the_reader_does_not_know_is_refused_and_settled_by_defines(tmp_path):
    text = WILD.replace("#if defined(HIGH_PERFORMANCE)", "#ifdef FAST_PATH")
    with pytest.raises(KernelSourceError, match="FAST_PATH is a build flag") as err:
        read_source(wild(tmp_path, text))
    assert err.value.line == WILD.splitlines().index("#if defined(HIGH_PERFORMANCE)") + 1
    assert "defines=" in str(err.value)
    assert steps(read_source(wild(tmp_path, text), defines={"FAST_PATH": None}))[-1] == "Muls(yLocal, yLocal, 0.5f);"
    assert steps(read_source(wild(tmp_path, text), defines={"FAST_PATH": 1}))[-1] == "Adds(yLocal, yLocal, 1.0f);"


@pytest.mark.parametrize("defines, last", [
    (None, "Muls(yLocal, yLocal, 0.5f);"),          # no ops-nn build passes SUPER_PERFORMANCE
    ({"SUPER_PERFORMANCE": 1}, "Adds(yLocal, yLocal, 1.0f);"),
    ({"SUPER_PERFORMANCE": 2}, "Muls(yLocal, yLocal, 0.5f);"),
])
def test_super_performance_is_a_device_build_flag_not_defined_by_default(tmp_path, defines, last):
    text = WILD.replace("#if defined(HIGH_PERFORMANCE)", "#if defined(SUPER_PERFORMANCE) && SUPER_PERFORMANCE == 1")
    assert steps(read_source(wild(tmp_path, text), defines=defines))[-1] == last


@pytest.mark.parametrize("cond", ["__CCE_AICORE__ == 310", "__NPU_ARCH__ == 3510 && defined(__DAV_C310_VEC__)"])
def test_a_950_kernel_reads_its_conditions_with_the_950s_macros(tmp_path, cond):
    folder = tmp_path / "toy"
    folder.mkdir()
    for f in (KERNELS / "dag_swish_toy").rglob("*"):
        if f.is_file():
            (folder / f.relative_to(KERNELS / "dag_swish_toy")).parent.mkdir(exist_ok=True)
            (folder / f.relative_to(KERNELS / "dag_swish_toy")).write_text(f.read_text())
    entry = folder / "swish_toy_apt.cpp"
    entry.write_text(entry.read_text().replace('#include "arch35/swish_toy_dag.h"',
                                               '#if ' + cond + '\n#include "arch35/swish_toy_dag.h"\n'
                                               '#else\n#error "the 950 only"\n#endif'))
    d = read_source(folder)
    assert d.style == "dag" and steps(d)[-1] == "Muls(Doubled, res, 2.0f);"


def kept(text, **kw):
    return [t.text for t in preprocess(text, "f.h", **kw).tokens if t.kind != "eof"]


@pytest.mark.parametrize("cond, value", [
    ("1 + 2 * 3 == 7", True), ("(1 + 2) * 3 == 7", False), ("-7 / 2 == -3", True), ("-7 % 2 == -1", True),
    ("0x10 == 16 && 010 == 8 && 16u == 16UL", True), ("1 << 3 == 8 && 16 >> 2 == 4", True), ("~0 == -1", True),
    ("1 ? 0 : 1", False), ("0 || 2 > 1", True), ("!defined(NOPE_X)", True), ("defined VAL && VAL > 2", True),
    ("VAL == 3 && TWICE == 6", True), ("true && !false", True), ("3 > 2 > 1", False),
    ("(5 & 3) == 1 && (5 ^ 3) == 6", True),
    ("ASCENDC_CPU_DEBUG", False), ("__CCE_AICORE__ == 220", True), ("defined(__CCE_KT_TEST__)", False),
    ("__NPU_ARCH__ == 2201 && defined(__DAV_C220_VEC__) && !defined(__DAV_C220_CUBE__) && !__DAV_C310__", True),
])
def test_condition_expressions(cond, value):
    text = f"#define VAL 3\n#define TWICE (VAL * 2)\n#undef NOPE_X\n#if {cond}\nyes;\n#else\nno;\n#endif\n"
    assert kept(text) == (["yes", ";"] if value else ["no", ";"])


def test_elif_chains_and_groups_inside_dropped_ones():
    text = "#if 0\na;\n#elif 0\nb;\n#elif 1\nc;\n#elif UNKNOWN_FLAG\nd;\n#else\ne;\n#endif\n"
    assert kept(text) == ["c", ";"]
    text = "#if 0\n#if UNKNOWN_FLAG\nx;\n#endif\n#else\ny;\n#endif\n"      # a dropped group is not evaluated
    assert kept(text) == ["y", ";"]
    text = "#ifndef UNKNOWN_FLAG\n#define DEFAULTED 4\n#endif\nz = DEFAULTED;\n"  # directives only: as C does
    assert kept(text) == ["z", "=", "4", ";"]


def test_macros_are_expanded_as_c_does():
    assert kept("#define A A + 1\nx = A;\n") == ["x", "=", "A", "+", "1", ";"]
    assert kept("#define B C\n#define C 7\nx = B;\n") == ["x", "=", "7", ";"]
    assert kept("#define E\n#ifdef E\nx;\n#endif\n") == ["x", ";"]


@pytest.mark.parametrize("text, words", [
    ("#if 1 / 0\nx;\n#endif\n", "division by zero"),
    ("#if 1 << 64\nx;\n#endif\n", "shift by 64"),
    ("#if 0x7FFFFFFFFFFFFFFF * 4\nx;\n#endif\n", "past 64 bits"),
    ("#define F(a) a\n#if F(1)\nx;\n#endif\n", "function-like macro F"),
    ("#if 1\n#else\n#else\n#endif\n", "after #else"),
    ("#elif 1\n", "without its #if"),
    ("#if 1\nx;\n", "not closed"),
    ("#error stop\n", "#error"),
    ("#if (1\nx;\n#endif\n", "( without )"),
    ("#if 1.5\nx;\n#endif\n", "not an integer literal"),
    pytest.param("#if " + "(" * 500 + "1" + ")" * 500 + "\nx;\n#endif\n", "nested more than", id="deep-parens"),
    ("#if UNKNOWN_FLAG > 1\nint a;\n#endif\n", "UNKNOWN_FLAG is a build flag"),
    pytest.param("#if 1\n" * 50_000 + "x;\n" + "#endif\n" * 50_000, "conditionals nested more than", id="deep-ifs"),
])
def test_refused_conditions(text, words):
    with pytest.raises(KernelSourceError, match=re.escape(words)):
        preprocess(text, "f.h")


def test_defines_are_checked(tmp_path):
    folder = wild(tmp_path)
    with pytest.raises(ValueError, match="not a macro name"):
        read_source(folder, defines={"1X": 1})
    with pytest.raises(TypeError, match=r"defines\['X'\] must be an int, a str or None"):
        read_source(folder, defines={"X": 1.5})
    with pytest.raises(TypeError, match="defines must be a dict"):
        read_source(folder, defines=[("X", 1)])


def test_kernel_show_takes_the_builds_macros(capsys, tmp_path):
    from test_cli_errors import assert_usage_error, run

    folder = wild(tmp_path, WILD.replace("#if defined(HIGH_PERFORMANCE)", "#ifdef FAST_PATH"))
    code, out, err = run(capsys, "kernel", "show", folder, "-D", "FAST_PATH", "--define", "__CCE_AICORE__=310")
    assert code == 0, err
    assert out.splitlines()[-2:] == ["    Muls(yLocal, xLocal, scale);", "    Adds(yLocal, yLocal, 1.0f);"]
    code, out, err = run(capsys, "kernel", "show", folder, "-U", "FAST_PATH")
    assert code == 0, err
    assert out.splitlines()[-1] == "    Muls(yLocal, yLocal, 0.5f);"
    code, _, err = run(capsys, "kernel", "show", folder)
    assert_usage_error(code, err, "FAST_PATH is a build flag")
    code, _, err = run(capsys, "kernel", "show", folder, "-D", "1X=2")
    assert_usage_error(code, err, "--define", "1X=2")

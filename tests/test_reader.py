"""The kernel source reader (swishgrad_numba.reader) on fixture kernels written for these tests.

Each fixture is read into the instruction list written out plainly here;
each refused construct is refused with its file, line and name.
"""
from pathlib import Path

import numpy as np
import pytest

from swishgrad_numba.reader import AttrRef, Constant, KernelSourceError, ScalarProduct, read_source
from swishgrad_numba.reader.preprocess import preprocess

KERNELS = Path(__file__).parent / "fixtures" / "kernels"


def steps(body):
    return [str(s) for s in body.steps]


# ---------------------------------------------------------------- A2 class style

SWISH_BACK_F32 = [
    "Muls(xLocal, xLocal, sconf);",
    "Muls(sig, xLocal, -1.0f);",
    "Exp(sig, sig);",
    "Adds(sig, sig, 1.0f);",
    "Reciprocal(sig, sig);",
    "Duplicate(work, 1.0f);",
    "Sub(work, work, sig);",
    "Mul(work, work, xLocal);",
    "Adds(work, work, 1.0f);",
    "Mul(work, work, sig);",
    "Mul(dxLocal, work, dyLocal);",
]
SWISH_BACK_16 = [
    "Cast(xf, xLocal, CAST_NONE);",
    "Cast(dyf, dyLocal, CAST_NONE);",
    "Muls(xf, xf, sconf);",
    "Muls(sig, xf, -1.0f);",
    "Exp(sig, sig);",
    "Adds(sig, sig, 1.0f);",
    "Reciprocal(sig, sig);",
    "Duplicate(work, 1.0f);",
    "Sub(work, work, sig);",
    "Mul(work, work, xf);",
    "Adds(work, work, 1.0f);",
    "Mul(work, work, sig);",
    "Mul(xf, work, dyf);",
    "Cast(dxLocal, xf, CAST_RINT);",
]


def test_a2_swish_back_reads_per_dtype():
    d = read_source(KERNELS / "a2_swish_back")
    assert (d.name, d.style) == ("swish_back", "a2")
    assert d.gm_params == ("dy", "x", "y", "dx")
    assert d.inputs_read == ("dy", "x")              # y is declared and never read
    assert d.tiling.name == "SwishBackTiling" and d.tiling.float_fields() == ("sconf",)
    assert d.dtypes == ("float32", "float16", "bfloat16")
    f32 = d.body("float32")
    assert steps(f32) == SWISH_BACK_F32
    assert f32.inputs == (("dy", "dyLocal"), ("x", "xLocal")) and f32.output == ("dx", "dxLocal")
    assert f32.attrs == ("sconf",) and f32.buffer_num == 2
    for dtype in ("float16", "bfloat16"):
        body = d.body(dtype)
        assert steps(body) == SWISH_BACK_16
        assert dict(body.tensors) == {"dyLocal": dtype, "xLocal": dtype, "xf": "float32", "dyf": "float32",
                                      "sig": "float32", "work": "float32", "dxLocal": dtype}


def test_a2_scaled_abs_constant_rounded_once_and_prologue():
    d = read_source(KERNELS / "a2_scaled_abs")
    assert d.inputs_read == ("x",) and d.tiling.name == "ScaledAbsTilingData"
    assert steps(d.body("float32")) == [
        "Duplicate(ones, 1.0f);",                # Init fills the constant buffer once
        "Abs(calc, xLocal);",
        "Muls(calc, calc, scale);",
        "Muls(calc, calc, (float)(0.3 * 0.7));",
        "Add(outLocal, calc, ones);",
    ]
    assert steps(d.body("float16")) == [
        "Duplicate(ones, 1.0f);",
        "Cast(calc, xLocal, CAST_NONE);",
        "Abs(calc, calc);",
        "Muls(calc, calc, scale);",
        "Muls(calc, calc, (float)(0.3 * 0.7));",
        "Add(calc, calc, ones);",
        "Cast(outLocal, calc, CAST_ROUND);",
    ]
    shrink = d.body("float32").steps[3].args[2]
    assert shrink == Constant(float(np.float32(0.3 * 0.7)), "0.3 * 0.7")
    assert shrink.name == "SHRINK"
    # rounded once from the double product, which float arithmetic would not give
    assert shrink.value != float(np.float32(0.3) * np.float32(0.7))
    assert d.body("float32").steps[2].args[2] == AttrRef("scale")


# ---------------------------------------------------------------- 950 DAG style

def test_dag_swish_toy_reads_per_dtype():
    d = read_source(KERNELS / "dag_swish_toy")
    assert (d.name, d.style, d.inputs_read) == ("swish_toy", "dag", ("x",))
    assert d.tiling.fields == (("baseTiling", "EleBaseTilingData"), ("beta", "float"))
    f32 = d.body("float32")
    assert steps(f32) == [
        "Duplicate(one, 1.0f);",
        "Muls(den, InX, beta);",
        "Neg(den, den);",
        "Exp(den, den);",
        "Add(den, den, one);",
        "Div(res, InX, den);",
        "Muls(Doubled, res, 2.0f);",
    ]
    assert f32.inputs == (("x", "InX"),) and f32.output == ("y", "Doubled")
    for dtype in ("float16", "bfloat16"):
        body = d.body(dtype)
        assert steps(body) == [
            "Cast(WideX, InX, CAST_NONE);",
            "Duplicate(one, 1.0f);",
            "Muls(den, WideX, beta);",
            "Neg(den, den);",
            "Exp(den, den);",
            "Add(den, den, one);",
            "Div(res, WideX, den);",
            "Muls(Doubled, res, 2.0f);",
            "Cast(Narrow, Doubled, CAST_RINT);",
        ]
        assert body.output == ("y", "Narrow") and body.dtype_of("Narrow") == dtype
        assert body.dtype_of("InX") == dtype and body.dtype_of("res") == "float32"


# ---------------------------------------------------------------- refusals

@pytest.mark.parametrize("folder, line, construct", [
    ("refuse_setvalue_loop", 36, "a loop over SetValue"),
    ("refuse_reinterpret", 36, "ReinterpretCast"),
    ("refuse_ifdef", 36, "#ifdef FAST_SCALE"),
    ("refuse_unknown_call", 37, "AscendC::Erfc"),    # a math-library call not expanded
])
def test_refusals_name_file_line_and_construct(folder, line, construct):
    with pytest.raises(KernelSourceError) as err:
        read_source(KERNELS / folder)
    e = err.value
    assert (Path(e.file).name, e.line, e.construct) == (f"{folder}.cpp", line, construct)
    assert f"{folder}.cpp:{line}: cannot read {construct}" in str(e)


def test_the_refusal_fixtures_base_reads():
    # the refusal fixtures differ from this one only in the refused construct
    d = read_source(KERNELS / "plain_muls")
    assert steps(d.body("float16")) == ["Muls(yLocal, xLocal, scale);"]


def _variant(tmp_path, old, new):
    src = (KERNELS / "plain_muls" / "plain_muls.cpp").read_text()
    assert old in src
    (tmp_path / "k.cpp").write_text(src.replace(old, new))
    return tmp_path


def test_a_level0_muls_over_whole_repeats_reads_as_the_counted_one(tmp_path):
    # issue 43: the full mask (256 bytes of lanes) at the contiguous strides covers len elements
    new = "AscendC::Muls(yLocal, xLocal, this->scale, 256 / sizeof(T), this->len * sizeof(T) / 256, {1, 1, 8, 8});"
    d = read_source(_variant(tmp_path, "AscendC::Muls(yLocal, xLocal, this->scale, this->len);", new))
    for dtype in ("float32", "float16"):
        assert steps(d.body(dtype)) == ["Muls(yLocal, xLocal, scale);"]


@pytest.mark.parametrize("old, new, construct", [
    ("AscendC::Muls(yLocal, xLocal, this->scale, this->len);",
     "if (GetBlockIdx() > 4) { AscendC::Muls(yLocal, xLocal, this->scale, this->len); }",
     r"output yLocal: never written \(on the way `!\(GetBlockIdx\(\) > 4\)` of this branch\)"),   # .launch_branch
    ("AscendC::Muls(yLocal, xLocal, this->scale, this->len);",
     # issue 43: scale + 1.0f reads (.launch_scalars); with a double constant C adds in double
     "AscendC::Muls(yLocal, xLocal, this->scale + 1.0, this->len);", "arithmetic on attribute values"),
    ("AscendC::Muls(yLocal, xLocal, this->scale, this->len);",
     "AscendC::Muls(yLocal, xLocal, (int)(this->scale + 1.0f), this->len);", "cast of attribute value"),
    ("AscendC::Muls(yLocal, xLocal, this->scale, this->len);",     # 0.1 is not a float32 value
     "AscendC::Muls(yLocal, xLocal, 0.1 * this->scale, this->len);", "attribute times 0.1"),
    ("AscendC::Muls(yLocal, xLocal, this->scale, this->len);",
     # issue 43: xLocal[16] is the buffer's part from element 16, which nothing writes (a shifted read)
     "AscendC::Muls(yLocal, xLocal[16], this->scale, this->len);", "inQ_at_16: nothing writes"),
    ("AscendC::Muls(yLocal, xLocal, this->scale, this->len);",     # level-0: the parameters unbraced
     "AscendC::Muls(yLocal, xLocal, this->scale, 64, 2, 8);", "Muls repeat parameters 8"),
    ("AscendC::Muls(yLocal, xLocal, this->scale, this->len);",     # 64 half lanes are half a repeat
     "AscendC::Muls(yLocal, xLocal, this->scale, 64, this->len / 64, {1, 1, 8, 8});", "repeat stride 8"),
    ("AscendC::Muls(yLocal, xLocal, this->scale, this->len);",
     "AscendC::Muls(yLocal, xLocal, this->len, this->len);", "Muls scalar"),
    ("AscendC::Muls(yLocal, xLocal, this->scale, this->len);",
     "AscendC::Muls(yLocal, xLocal, this->scale, 64);", "Muls over 64 elements"),
])
def test_more_refusals(tmp_path, old, new, construct):
    with pytest.raises(KernelSourceError, match=construct) as err:
        read_source(_variant(tmp_path, old, new))
    assert err.value.line == 36


def test_preprocessor_keeps_the_device_guard_and_object_macros():
    text = "#define TWO 2.0f\n#ifndef G\n#define G\n#ifdef __CCE_AICORE__\nx = TWO;\n#else\ny;\n#endif\n#endif\n"
    toks = [t.text for t in preprocess(text, "f.h").tokens if t.kind != "eof"]
    assert toks == ["x", "=", "2.0f", ";"]
    with pytest.raises(KernelSourceError, match="#if FOO > 1"):
        preprocess("#if FOO > 1\nint a;\n#endif\n", "f.h")
    assert [t.text for t in preprocess("#if FOO\n#define A 1\n#endif\nb;", "f.h").tokens][:2] == ["b", ";"]


def test_folder_with_two_entries_needs_entry(tmp_path):
    for name in ("a.cpp", "b.cpp"):
        (tmp_path / name).write_text((KERNELS / "plain_muls" / "plain_muls.cpp").read_text())
    with pytest.raises(KernelSourceError, match="2 entry files"):
        read_source(tmp_path)
    assert read_source(tmp_path, entry="b.cpp").entry.endswith("b.cpp")


def test_dag_same_type_cast_is_removed_as_the_scheduler_does(tmp_path):
    # the 16-bit DAG instantiated for float: both of its Vec::Cast nodes are float -> float
    src = KERNELS / "dag_swish_toy"
    (tmp_path / "arch35").mkdir()
    for f in src.rglob("*.h"):
        (tmp_path / f.relative_to(src)).write_text(f.read_text())
    entry = (src / "swish_toy_apt.cpp").read_text()
    assert "SwishToyDag32::OpDag" in entry
    (tmp_path / "swish_toy_apt.cpp").write_text(entry.replace("SwishToyDag32::OpDag", "SwishToyDag16<float>::OpDag"))
    f32 = read_source(tmp_path).body("float32")
    assert steps(f32) == steps(read_source(src).body("float32"))
    assert f32.output == ("y", "Doubled")


def test_dag_variants_by_template_argument(tmp_path):
    # two DAGs chosen by a non-type template argument of the entry are two variants per dtype
    src = KERNELS / "dag_swish_toy"
    (tmp_path / "arch35").mkdir()
    for f in src.rglob("*.h"):
        (tmp_path / f.relative_to(src)).write_text(f.read_text())
    entry = (src / "swish_toy_apt.cpp").read_text()
    entry = entry.replace("template <uint64_t schMode, uint64_t dType>", "template <uint64_t schMode, uint64_t dType, "
                          "uint64_t plain>").replace(
        "        ElementwiseSch<schMode, SwishToyDag32::OpDag> sch(&(tilingData.baseTiling), &pipe);",
        "        if constexpr (plain == 1) {\n            ElementwiseSch<schMode, SwishToyDag16<float>::OpDag> "
        "sch0(&(tilingData.baseTiling), &pipe);\n            sch0.Init(x, y);\n            sch0.Process();\n"
        "            return;\n        }\n"
        "        ElementwiseSch<schMode, SwishToyDag32::OpDag> sch(&(tilingData.baseTiling), &pipe);")
    (tmp_path / "swish_toy_apt.cpp").write_text(entry)
    d = read_source(tmp_path)
    assert d.variants("float32") == ("dType == 3 && plain == 1", "dType == 3 && !(plain == 1)")
    assert steps(d.body("float32", "dType == 3 && plain == 1"))[1] == "Muls(den, InX, var0);"   # no SetVar
    assert d.variants("float16") == ("",)


@pytest.mark.parametrize("type_name, float32_steps", [
    ("float32_t", ["Abs(yLocal, xLocal);"]),          # float32_t is float
    ("half", ["Muls(yLocal, xLocal, scale);"]),
])
def test_dtype_branches_by_type_name(tmp_path, type_name, float32_steps):
    old = "        AscendC::Muls(yLocal, xLocal, this->scale, this->len);"
    new = (f"        if constexpr (std::is_same_v<T, {type_name}>) {{\n"
           f"            AscendC::Abs(yLocal, xLocal, this->len);\n        }} else {{\n{old}\n        }}")
    assert steps(read_source(_variant(tmp_path, old, new)).body("float32")) == float32_steps


def test_an_unknown_type_in_is_same_is_refused(tmp_path):
    old = "        AscendC::Muls(yLocal, xLocal, this->scale, this->len);"
    new = f"        if constexpr (std::is_same_v<T, fp32_alias>) {{\n{old}\n        }}"
    with pytest.raises(KernelSourceError, match="std::is_same_v with type fp32_alias") as err:
        read_source(_variant(tmp_path, old, new))
    assert err.value.line == 36


def _dag_variant(tmp_path, replacements):
    src = KERNELS / "dag_swish_toy"
    (tmp_path / "arch35").mkdir()
    (tmp_path / "swish_toy_apt.cpp").write_text((src / "swish_toy_apt.cpp").read_text())
    for f in src.glob("arch35/*.h"):
        text = f.read_text()
        for old, new in replacements:
            if f.name == "swish_toy_dag.h":
                assert old in text
                text = text.replace(old, new)
        (tmp_path / "arch35" / f.name).write_text(text)
    return tmp_path


_LINE_OF = {line.strip(): n for n, line in enumerate((KERNELS / "dag_swish_toy" / "arch35" / "swish_toy_dag.h")
                                                     .read_text().splitlines(), 1)}
_MULS = "MicroAPI::Muls(den, in, beta, mask);"
_INPLACE = "MicroAPI::Muls(in, in, beta, mask);\n                MicroAPI::Muls(den, in, 1.0f, mask);"


def test_dag_node_writing_its_input_reads_when_it_is_the_last_reader(tmp_path):
    body = read_source(_dag_variant(tmp_path, [(_MULS, _INPLACE)])).body("float32")
    assert steps(body)[1:3] == ["Muls(InX, InX, beta);", "Muls(den, InX, 1.0f);"]


@pytest.mark.parametrize("replacements, construct, line", [
    # the node writes its input (a register loaded from it) and a later node reads that input
    ([(_MULS, _INPLACE), ("using Doubled = Bind<Vec::Muls<float>, Swish, Two>;",
                          "using Doubled = Bind<Vec::Mul<float>, Swish, InX>;")],
     "DAG node Swish writing its input InX",
     ("using Swish = Bind<SigmoidTimes<float>, InX, Placeholder::Var<float, 0>>;", 1)),   # below the inserted line
    # a register set before the loop and written in it: refused at the write
    ([(_MULS, _MULS + "\n                MicroAPI::Adds(one, one, 1.0f, mask);")], "Adds into one", (_MULS, 1)),
    ([("MicroAPI::StoreAlign((__ubuf__ T*)(dstAddr + i * vl), res, mask);",
       "MicroAPI::StoreAlign((__ubuf__ T*)(dstAddr + i * vl), (MicroAPI::RegTensor<half>&)res, mask);")],
     "a register cast to another type", ("MicroAPI::StoreAlign((__ubuf__ T*)(dstAddr + i * vl), res, mask);", 0)),
])
def test_dag_refusals(tmp_path, replacements, construct, line):
    with pytest.raises(KernelSourceError, match=construct) as err:
        read_source(_dag_variant(tmp_path, replacements))
    anchor, shift = line
    assert err.value.line == _LINE_OF[anchor] + shift


def test_a_while_tile_loop_reads(tmp_path):
    src = (KERNELS / "plain_muls" / "plain_muls.cpp").read_text()
    first = "        AscendC::LocalTensor<T> xLocal = inQ.AllocTensor<T>();"
    last = "        AscendC::DataCopy(yGm[0], yLocal, this->len);"
    assert first in src and last in src
    src = src.replace(first, "        uint32_t left = 3;\n        while (left-- > 0) {\n" + first)
    (tmp_path / "k.cpp").write_text(src.replace(last, last + "\n        }"))
    assert steps(read_source(tmp_path).body("float16")) == ["Muls(yLocal, xLocal, scale);"]


def test_an_attribute_times_a_float_constant_is_a_scalar_product(tmp_path):
    # as the A2 Swish's Init: this->scale = -1.0f * scale; then Muls(y, x, this->scale)
    old = "        this->scale = tiling->scale;"
    body = read_source(_variant(tmp_path, old, "        this->scale = -1.0f * tiling->scale;")).body("float32")
    assert steps(body) == ["Muls(yLocal, xLocal, (-1.0f * scale));"]
    assert body.steps[0].args[2] == ScalarProduct(Constant(-1.0), AttrRef("scale"))
    assert body.attrs == ("scale",)


def test_a_branch_on_a_tiling_field_is_a_variant_and_one_choice(tmp_path):
    # the field is fixed for a launch: its condition chooses a variant; asked twice, it is one choice
    old = "        AscendC::Muls(yLocal, xLocal, this->scale, this->len);"
    new = ("        if (this->len > 4) {\n" + old + "\n        } else {\n"
           "            AscendC::Abs(yLocal, xLocal, this->len);\n        }\n"
           "        if (this->len > 4) {\n            AscendC::Exp(yLocal, yLocal, this->len);\n        }")
    d = read_source(_variant(tmp_path, old, new))
    assert d.variants("float32") == ("tileLength > 4", "!(tileLength > 4)")
    assert steps(d.body("float32", "tileLength > 4")) == ["Muls(yLocal, xLocal, scale);", "Exp(yLocal, yLocal);"]
    assert steps(d.body("float32", "!(tileLength > 4)")) == ["Abs(yLocal, xLocal);"]


def test_tiling_key_variants_and_class_aliases(tmp_path):
    src = (KERNELS / "plain_muls" / "plain_muls.cpp").read_text()
    muls = "        AscendC::Muls(yLocal, xLocal, this->scale, this->len);"
    src = src.replace(muls, "        if (TILING_KEY_IS(1)) {\n            AscendC::Abs(yLocal, xLocal, this->len);\n"
                            "        } else if constexpr (std::is_same_v<U, half>) {\n" + muls + "\n        } else {\n"
                            "            AscendC::Adds(yLocal, xLocal, this->scale, this->len);\n        }")
    src = src.replace("class PlainKernel {\n", "class PlainKernel {\n    using U = T;\n")
    assert "using U = T;" in src
    (tmp_path / "k.cpp").write_text(src)
    d = read_source(tmp_path)
    assert d.variants("float16") == ("tilingKey == 1", "!(tilingKey == 1)")
    assert steps(d.body("float16", "tilingKey == 1")) == ["Abs(yLocal, xLocal);"]
    assert steps(d.body("float16", "!(tilingKey == 1)")) == ["Muls(yLocal, xLocal, scale);"]
    assert steps(d.body("float32", "!(tilingKey == 1)")) == ["Adds(yLocal, xLocal, scale);"]


@pytest.mark.parametrize("new, refused", [
    ("using Dag = SwishToyDag32::OpDag;\n        ElementwiseSch<schMode, Dag> sch(", None),
    ("ReduceSch<schMode, SwishToyDag32::OpDag> sch(", "ReduceSch sch"),      # BroadcastSch reads (issue 43)
])
def test_entry_alias_and_other_schedulers(tmp_path, new, refused):
    old = "ElementwiseSch<schMode, SwishToyDag32::OpDag> sch("
    folder = _dag_variant(tmp_path, [])
    entry = (folder / "swish_toy_apt.cpp").read_text()
    assert old in entry
    (folder / "swish_toy_apt.cpp").write_text(entry.replace(old, new))
    if refused is None:
        assert steps(read_source(folder).body("float32")) == steps(read_source(KERNELS / "dag_swish_toy")
                                                                   .body("float32"))
    else:
        with pytest.raises(KernelSourceError, match=refused):
            read_source(folder)

"""The reader against kernel folders crafted as an attacker would (issue 43, Hardening).

Each is refused as a KernelSourceError naming its file and line, in bounded time and memory,
never a Python traceback of another type, a hang or a file read from outside the folder.
The folders are variations of the refusal fixtures' base kernel (plain_muls), written here.
"""
import os
import shutil
import threading
from pathlib import Path

import numpy as np
import pytest

from reference import assert_bits_equal
from swishgrad_numba.ops import read_kernel
from swishgrad_numba.reader import KernelSourceError, read_source
from swishgrad_numba.reader.expressions import ExpressionMixin
from swishgrad_numba.reader.limits import MAX_FILE_BYTES, MAX_TOKENS
from test_cli_errors import assert_usage_error, run

KERNELS = Path(__file__).parent / "fixtures" / "kernels"
BASE = (KERNELS / "plain_muls" / "plain_muls.cpp").read_text()
MULS = "AscendC::Muls(yLocal, xLocal, this->scale, this->len);"       # line 36


def kernel(tmp_path, old=MULS, new=MULS, before="", name="k.cpp"):
    """plain_muls with ``old`` replaced by ``new`` and ``before`` put at its top (its lines shift)."""
    assert old in BASE
    folder = tmp_path / "kern"
    folder.mkdir(exist_ok=True)
    (folder / name).write_text(before + BASE.replace(old, new))
    return folder


def refused(folder, **kw) -> KernelSourceError:
    with pytest.raises(KernelSourceError) as err:
        read_source(folder, **kw)
    assert err.value.file and Path(err.value.file).name      # names its file
    return err.value


def muls_constant(folder):
    (step,) = read_source(folder).body("float32").steps
    return step.args[2].value


def test_a_chain_of_constants_is_evaluated_once_each(tmp_path, monkeypatch):
    # C_k = C_{k-1} + C_{k-1}: followed naively, C_39 evaluates C_0 2^39 times
    chain = "const float C0 = 1.0f;\n" + "".join(f"const float C{k} = C{k - 1} + C{k - 1};\n" for k in range(1, 40))
    folder = kernel(tmp_path, new="AscendC::Muls(yLocal, xLocal, C39, this->len);", before=chain)
    calls = {"n": 0}
    plain = ExpressionMixin._eval_Name

    def counted(self, node):
        calls["n"] += 1
        assert calls["n"] < 20_000, "constants are evaluated again at each use"
        return plain(self, node)

    monkeypatch.setattr(ExpressionMixin, "_eval_Name", counted)
    assert muls_constant(folder) == 2.0 ** 39


def test_a_constant_defined_by_itself_is_refused(tmp_path):
    folder = kernel(tmp_path, new="AscendC::Muls(yLocal, xLocal, A, this->len);",
                    before="const float A = B;\nconst float B = A;\n")
    e = refused(folder)
    assert e.line in (1, 2) and "reads itself" in str(e)


@pytest.mark.parametrize("before, line, words", [
    ("const int64_t K = 1 << 100000;\n", 1, "shift by 100000"),
    ("const int64_t K = 1 << -1;\n", 1, "shift by -1"),
    ("const int64_t K = 99999999999999999999999;\n", 1, "past 64 bits"),
    ("const int64_t K = 7 / (3 - 3);\n", 1, "division by zero"),
    ("const int64_t K = (int64_t)(1e300 * 1e300);\n", 1, "inf converted"),
    ("const float K = 1.5 % 2;\n", 1, "operator %"),
])
def test_integers_past_64_bits_and_undefined_arithmetic_are_refused(tmp_path, before, line, words):
    e = refused(kernel(tmp_path, new="AscendC::Muls(yLocal, xLocal, (float)K, this->len);", before=before))
    assert e.line == line and words in str(e), str(e)


def test_c_integer_division_truncates_toward_zero(tmp_path):
    folder = kernel(tmp_path, new="AscendC::Muls(yLocal, xLocal, (float)(-7 / 2 * 10 + -7 % 2), this->len);")
    assert muls_constant(folder) == -31.0          # C: -7 / 2 == -3, -7 % 2 == -1


@pytest.mark.parametrize("expr, words", [
    ("(" * 3000 + "1" + ")" * 3000, "nested more than"),
    (" + ".join(["1"] * 600), "nested more than"),
    ("-" * 3000 + "1", "nested more than"),
])
def test_deep_expressions_are_refused(tmp_path, expr, words):
    e = refused(kernel(tmp_path, new=f"AscendC::Muls(yLocal, xLocal, (float)({expr}), this->len);"))
    assert e.line == 36 and words in str(e), str(e)


def test_deep_blocks_and_template_arguments_are_refused(tmp_path):
    e = refused(kernel(tmp_path, new="{" * 3000 + MULS + "}" * 3000))
    assert e.line == 36 and "nested more than" in str(e)
    e = refused(kernel(tmp_path, before="using T = " + "A<" * 3000 + "int" + ">" * 3000 + ";\n"))
    assert e.line == 1 and "nested more than" in str(e)


def test_recursion_of_the_kernels_functions_is_refused(tmp_path):
    folder = kernel(tmp_path, new="AscendC::Muls(yLocal, xLocal, F(), this->len);",
                    before="__aicore__ inline float F() { return F(); }\n")
    e = refused(folder)
    assert e.line == 1 and "nested more than" in str(e)


def test_a_long_include_chain_is_refused(tmp_path):
    folder = kernel(tmp_path, before='#include "h0.h"\n')
    for k in range(1500):
        (folder / f"h{k}.h").write_text(f'#include "h{k + 1}.h"\n')
    e = refused(folder)
    assert Path(e.file).name.startswith("h") and e.line == 1 and "nested more than" in str(e)


def test_a_token_stream_past_the_cap_is_refused(tmp_path):
    e = refused(kernel(tmp_path, before=";" * (MAX_TOKENS + 1) + "\n"))
    assert e.line == 1 and f"more than {MAX_TOKENS} tokens" in str(e)


def test_a_macro_that_doubles_at_each_level_is_refused(tmp_path):
    bomb = "#define M0 1\n" + "".join(f"#define M{k} M{k - 1} + M{k - 1}\n" for k in range(1, 40))
    e = refused(kernel(tmp_path, new="AscendC::Muls(yLocal, xLocal, (float)(M39), this->len);", before=bomb))
    assert "expands to more than" in str(e)


def read_in_thread(folder):
    """read_source in a thread: (finished, its exception). A read that blocks would hang the suite."""
    box = {}

    def target():
        try:
            read_source(folder)
        except Exception as exc:        # noqa: BLE001 (reported to the test)
            box["exc"] = exc
    t = threading.Thread(target=target, daemon=True)
    t.start()
    t.join(60)
    return not t.is_alive(), box.get("exc")


def test_a_fifo_is_not_read(tmp_path):
    folder = kernel(tmp_path)
    os.mkfifo(folder / "zz.cpp")
    finished, exc = read_in_thread(folder)
    assert finished, "the reader blocked on a FIFO"
    assert isinstance(exc, KernelSourceError) and Path(exc.file).name == "zz.cpp" and "not a regular file" in str(exc)


def test_kernel_show_refuses_a_fifo(capsys, tmp_path):
    folder = kernel(tmp_path)
    os.mkfifo(folder / "zz.cpp")
    code, _, err = run(capsys, "kernel", "show", folder)
    assert_usage_error(code, err, "zz.cpp", "not a regular file")


@pytest.mark.parametrize("target", ["/dev/zero", "k.cpp"])
def test_a_symbolic_link_is_not_read(tmp_path, target):
    folder = kernel(tmp_path)
    os.symlink(target, folder / "zz.cpp")
    finished, exc = read_in_thread(folder)
    assert finished and isinstance(exc, KernelSourceError) and "symbolic link" in str(exc), exc


def test_a_device_is_not_read(tmp_path):
    # issue 43: "never a FIFO, a device or a symlink": /dev/zero's own device node in the folder
    import stat

    folder = kernel(tmp_path)
    try:
        os.mknod(folder / "zz.cpp", stat.S_IFCHR | 0o600, os.makedev(1, 5))
    except (PermissionError, AttributeError) as exc:        # not root, or a platform without mknod
        pytest.skip(f"cannot make a device node here: {exc}")
    finished, exc = read_in_thread(folder)
    assert finished, "the reader read a device to exhaustion"
    assert isinstance(exc, KernelSourceError) and Path(exc.file).name == "zz.cpp" and "not a regular file" in str(exc)


def test_a_file_past_the_size_cap_is_refused(tmp_path):
    folder = kernel(tmp_path, before='#include "big.h"\n')
    (folder / "big.h").write_text("/" * (MAX_FILE_BYTES + 1))
    e = refused(folder)
    assert (Path(e.file).name, e.line) == ("k.cpp", 1) and f"larger than {MAX_FILE_BYTES} bytes" in str(e)


def test_includes_stay_inside_the_folder_and_are_not_echoed(tmp_path):
    (tmp_path / "secret.h").write_text("TOP_SECRET_WORD is here;\n")
    for name in ("/etc/passwd", "../secret.h", "../kern/../secret.h", "sub/../../secret.h"):
        e = refused(kernel(tmp_path, before=f'#include "{name}"\n'))
        assert (e.line, e.construct) == (1, f'#include "{name}"'), str(e)
        assert "TOP_SECRET_WORD" not in str(e) and "root:" not in str(e)
    folder = kernel(tmp_path, before='#include "inc/../inc/ok.h"\n')      # inside: read
    (folder / "inc").mkdir()
    (folder / "inc" / "ok.h").write_text("const float OK_SCALE = 2.0f;\n")
    assert read_source(folder).dtypes


def test_buffer_num_must_be_a_whole_number_of_at_least_one(tmp_path):
    for num in ("-1", "0", "1.5"):
        new = f"pipe.InitBuffer(inQ, {num}, this->len * sizeof(T));"
        e = refused(kernel(tmp_path, old="pipe.InitBuffer(inQ, 2, this->len * sizeof(T));", new=new))
        assert e.line == 18 and "a whole number >= 1" in str(e), str(e)


def test_a_runtime_branch_is_named_in_the_function_it_is_in(tmp_path):
    src = (KERNELS / "a2_scaled_abs" / "scaled_abs.h").read_text()
    old = "AscendC::DataCopy(xLocal, xGm[i * this->tileDataNum], this->processDataNum);"
    folder = tmp_path / "abs"
    folder.mkdir()
    for f in (KERNELS / "a2_scaled_abs").iterdir():
        (folder / f.name).write_text(f.read_text())
    # issue 43: a branch known for the launch (GetBlockIdx() == 1) is a variant per way (.launch_branch); one on
    # a value the schedule does not know either (an uninitialised local) is refused when the launch runs it
    (folder / "scaled_abs.h").write_text(src.replace(old, "int32_t mode;\n        if (mode == 1) { AscendC::Duplicate("
                                                     "xLocal, (TYPE_X)0, this->processDataNum); }\n" + old))
    op = read_kernel(folder)
    with pytest.raises(KernelSourceError) as err:
        op.run(x=np.ones(512, np.float32), tiling={"tileDataNum": 256, "tileNum": 2, "tailDataNum": 256,
                                                    "scale": 1.0})
    assert err.value.construct == "vector calls under a runtime branch", str(err.value)
    assert err.value.detail == "if (mode == 1) in CopyIn" and err.value.line == 49


def test_a_member_of_a_struct_not_in_the_folder_says_why(tmp_path):
    folder = kernel(tmp_path, old="GET_TILING_DATA_WITH_STRUCT(PlainTilingData, tilingData, tiling);",
                    new="GET_TILING_DATA(tilingData, tiling);")
    src = (folder / "k.cpp").read_text()
    (folder / "k.cpp").write_text(src.replace("struct PlainTilingData {\n    uint32_t tileLength;\n"
                                              "    float scale;\n};\n", ""))
    e = refused(folder)
    assert "no tiling struct was found" in str(e) and "op_host was not given" in str(e), str(e)


def test_fields_named_as_python_cannot_be_run_bit_exact(tmp_path):
    # C allows these names; the compiled pass makes Python names of its attributes
    src = BASE.replace("float scale;\n};", "float lambda;\n    float k\uFB01;\n    float _bias;\n};", 1)
    src = src.replace("this->scale = tiling->scale;", "this->scale = tiling->lambda; this->f1 = tiling->k\uFB01; "
                      "this->b = tiling->_bias;")
    src = src.replace(MULS, MULS + " AscendC::Muls(yLocal, yLocal, this->f1, this->len);"
                      " AscendC::Adds(yLocal, yLocal, this->b, this->len);")
    src = src.replace("    float scale;\n};", "    float scale, f1, b;\n};")
    folder = tmp_path / "names"
    folder.mkdir()
    (folder / "k.cpp").write_text(src)
    from swishgrad_numba.ops import read_kernel

    op = read_kernel(folder)
    assert op.attributes == ("lambda", "k\uFB01", "_bias")
    x = np.linspace(-3, 3, 1000, dtype=np.float32)
    attrs = {"lambda": 1.25, "k\uFB01": -0.75, "_bias": 0.5}
    got = op.run(x=x, **attrs)
    want = x * np.float32(1.25) * np.float32(-0.75) + np.float32(0.5)        # float32, one step at a time
    assert_bits_equal(got, want)


def test_what_the_long_fuzz_found_is_refused_where_it_is(tmp_path):
    from swishgrad_numba.ops import read_kernel

    folder = kernel(tmp_path, old="    uint32_t tileLength;\n    float scale;\n",
                    new="    uint32_t tileLength;\n    float scale;\n    float scale;\n")
    with pytest.raises(KernelSourceError, match="tiling struct field scale: declared twice"):
        read_kernel(folder)
    e = refused(kernel(tmp_path, old="GET_TILING_DATA_WITH_STRUCT(PlainTilingData, tilingData, tiling);",
                       new="GET_TILING_DATA_WITH_STRUCT(PlainTilingData, C > tilingData, tiling);"))
    assert e.line == 50 and "expected (struct, variable, tiling)" in str(e)
    e = refused(kernel(tmp_path, before='#include "' + "x" * 5000 + '.h"\n'))
    assert e.line == 1 and "File name too long" in str(e)
    toy = tmp_path / "toy"
    shutil.copytree(KERNELS / "dag_swish_toy", toy)
    dag = toy / "arch35" / "swish_toy_dag.h"
    text = dag.read_text()
    assert "Bind<Vec::Muls<float>, " in text
    dag.write_text(text.replace("Bind<Vec::Muls<float>, ", "Bind<Vec::Muls<>, ", 1))
    e = refused(toy)
    assert Path(e.file).name == "swish_toy_dag.h" and "DAG node" in e.construct, str(e)


def test_too_many_paths_through_the_entry_are_refused(tmp_path):
    # 20 independent conditions on tiling fields: 2^20 variants, each a path through the entry
    fields = "".join(f"    uint32_t f{k};\n" for k in range(20))
    branches = "".join(f"if (tiling->f{k} == 1) {{ this->len = tiling->tileLength; }}\n" for k in range(20))
    folder = kernel(tmp_path, old="    uint32_t tileLength;\n    float scale;\n",
                    new="    uint32_t tileLength;\n    float scale;\n" + fields)
    src = (folder / "k.cpp").read_text().replace("this->len = tiling->tileLength;\n", branches, 1)
    (folder / "k.cpp").write_text(src)
    e = refused(folder)
    assert "more than 128 paths" in str(e), str(e)

"""bench/census_ops_nn.py's pure parts (issue 43): the folder selection and the platforms tried, on a tiny fake
ops-nn tree, and the summary's counts from a hand-made result (no kernel is read)."""
import importlib.util
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[1]


def _script():
    spec = importlib.util.spec_from_file_location("census_ops_nn", ROOT / "bench" / "census_ops_nn.py")
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    return script


def _kernel(folder: pathlib.Path, *files):
    (folder / "op_kernel").mkdir(parents=True)
    for name, global_ in files:
        path = folder / "op_kernel" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("extern \"C\" __global__ __aicore__ void k() {}\n" if global_ else "// helper\n")


def test_selection_takes_op_kernel_parents_under_the_categories_and_not_under_tests(tmp_path):
    _kernel(tmp_path / "activation" / "gelu", ("gelu.cpp", True))
    _kernel(tmp_path / "activation" / "gelu" / "tests" / "ut", ("t.cpp", True))     # a UT tree: left out
    _kernel(tmp_path / "experimental" / "activation" / "swish", ("swish.cpp", True))
    _kernel(tmp_path / "experimental" / "activation" / "group" / "inner", ("inner.cpp", True))
    _kernel(tmp_path / "norm" / "rms_norm", ("rms_norm.cpp", True))                  # another category
    (tmp_path / "activation" / "no_kernel" / "op_host").mkdir(parents=True)
    assert _script().select_folders(tmp_path) == [
        "activation/gelu", "experimental/activation/group/inner", "experimental/activation/swish"]


def test_ascend950_is_tried_only_where_op_kernel_holds_an_a2_and_a_950_entry(tmp_path):
    script = _script()
    _kernel(tmp_path / "both_apt", ("s.cpp", True), ("s_apt.cpp", True))
    _kernel(tmp_path / "both_arch35", ("s.cpp", True), ("arch35/s.cpp", True))
    _kernel(tmp_path / "only_950", ("s_apt.cpp", True), ("s.cpp", False))
    _kernel(tmp_path / "only_a2", ("s.cpp", True), ("arch35/helper.cpp", False))
    tried = {f: script.platforms_to_try(tmp_path / f) for f in ("both_apt", "both_arch35", "only_950", "only_a2")}
    assert tried == {"both_apt": [None, "ascend950"], "both_arch35": [None, "ascend950"],
                     "only_950": [None], "only_a2": [None]}


def test_summary_counts_and_ranks_first_refusals():
    refused = {"platform": "default", "status": "refused", "construct": "#if"}
    result = {"root": "/x", "folders": ["a", "b", "c", "d"], "compares": [], "reads": {
        "a": [{"platform": "default", "status": "read", "arch": "a2", "op_type": "A", "dtypes": ["float32"],
               "matches": []}, dict(refused, platform="ascend950", construct="token <")],
        "b": [refused], "c": [refused],
        "d": [{"platform": "default", "status": "crashed", "error": "timeout after 1 s"}]}}
    text = _script().summary(result)
    assert "| folders, default platform | 1 | 2 | 1 | 4 |" in text
    assert "| folders' 950 entries (platform=ascend950) | 0 | 1 | 0 | 1 |" in text
    ranked = text.split("First refusal, ranked")[1]
    assert ranked.index("| 2 | `#if` |") < ranked.index("| 1 | `token <` |")
    assert "- d (default): timeout after 1 s" in text


def test_a_verdict_names_the_equal_variants_or_each_ones_count():
    verdict = _script()._verdict
    assert verdict({"": 0}, 10) == "equal"
    assert verdict({"": 3}, 10) == "differ (3 of 10)"
    assert verdict({"k == 0": 0, "k == 1": 4}, 10) == "equal (variant `k == 0`, of 2)"
    assert verdict({"k == 0": 1, "k == 1": 4}, 10) == "differ (`k == 0` 1, `k == 1` 4 of 10)"


def test_a_refusal_kind_groups_constructs_and_keeps_an_unknown_one_as_it_is():
    kind = _script().kind
    assert kind("unknown call AscendC::CompareScalar") == kind("unknown call Compare") == "a Compare-family call"
    assert kind("unknown call LeakyRelu") == "another call it does not know"
    assert kind("'<'") == "a token outside the C++ subset"
    assert kind("#ifdef DTYPE_X") == "a preprocessor conditional around code"
    assert kind("kernel selu_grad") == "kernel selu_grad"

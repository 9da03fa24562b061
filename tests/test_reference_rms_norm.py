"""The plain RmsNorm references checked against facts worked by hand from ops-nn and asc-devkit."""
import numpy as np
import pytest

from reference_rms_norm import a2_mode, half_interval, merge_n_sum, repeat_sum, scalar_mean_eps, split_d_sum

F32 = np.float32


@pytest.mark.parametrize("n, dtype, mode", [
    (2000, np.float32, "merge_n"), (2001, np.float32, "normal"), (2000, np.float16, "merge_n"),
    (2001, np.float16, "normal"), (10240, np.float32, "normal"), (10241, np.float32, "split_d"),
    (12288, np.float16, "normal"), (12289, np.float16, "split_d")])
def test_a2_mode_boundaries(n, dtype, mode):
    assert a2_mode(n, dtype, dtype)[0] == mode


def test_ascend910_93_never_merges():
    assert a2_mode(64, np.float32, np.float32, soc="ASCEND910_93")[0] == "normal"


def test_split_d_chunk_keeps_the_tail_at_least_16():
    mode, chunk = a2_mode(20481, np.float32, np.float32)
    assert mode == "split_d" and 20481 % chunk >= 16 and chunk % 16 == 0


def test_tree_pairs_neighbours():
    lanes = np.zeros(64, F32)
    lanes[:4] = [2.0 ** 24, 1.0, 1.0, 0.0]
    assert repeat_sum(lanes, "tree") == F32(2.0 ** 24 + 1 - 1)     # (2^24 + 1) rounds to 2^24 first
    assert repeat_sum(lanes[[1, 2, 0, 3]], "tree") == F32(2.0 ** 24 + 2)


def test_sums_of_small_integers_are_exact_in_every_mode():
    v = np.arange(1, 5001, dtype=F32) % 7
    exact = F32(v.astype(np.float64).sum())
    assert half_interval(v) == exact and merge_n_sum(v) == exact and split_d_sum(v, 1024) == exact


def test_the_fused_scalar_rounds_once():
    s, avg, eps = F32(1 + 2.0 ** -23), F32(1 - 2.0 ** -24), F32(-1.0)
    assert scalar_mean_eps(s, avg, eps, fused=True) == F32(2.0 ** -23 - 2.0 ** -24 - 2.0 ** -47)
    assert scalar_mean_eps(s, avg, eps, fused=False) == F32(0.0)   # 1 + 2^-24 - 2^-47 rounds to 1

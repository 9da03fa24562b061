"""ops-nn's activation/heaviside read (issue 43, reader.gm_scalars) against NumPy, instruction by instruction.

    python bench/check_heaviside_gm.py /path/to/ops-nn

heaviside's host tiling function is not evaluated by the reader, so each run is given its record (as the host
sets it: elementNum, valuesType = values holds one element, needCoreNum = ceil(n / 8192) capped at 48) and
tiling key 1. values of one element is the scalar GetValue(0) reads per launch; else values is copied tile by
tile. Prints one line per dtype; bfloat16's in-place widening is refused at launch (overlapping buffer parts).
"""
import sys
from pathlib import Path

import ml_dtypes
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from reference import assert_bits_equal  # noqa: E402

from swishgrad_numba.ops import read_kernel  # noqa: E402
from swishgrad_numba.reader import KernelSourceError  # noqa: E402

_T = {"float32": np.float32, "float16": np.float16, "bfloat16": ml_dtypes.bfloat16}


def ref_heaviside(x, v):
    f = x.astype(np.float32)
    f = np.where(f == f, f, np.float32(-1))           # Compare(EQ) then Selects(-1): NaN -> -1
    nonzero, nonpositive = f != 0, f <= 0             # CompareScalar NE 0, LE 0
    f = np.maximum(f, np.float32(0))                  # Maxs 0
    f = np.where(nonpositive, f, np.float32(1))       # Selects 1
    vals = v.astype(np.float32).reshape(-1)
    vals = np.broadcast_to(vals, f.shape) if vals.size == 1 else vals.reshape(f.shape)
    return np.where(nonzero, f, vals).astype(x.dtype)  # Select(values) / Selects(values[0])


def main(opsnn):
    op = read_kernel(Path(opsnn) / "activation" / "heaviside")
    rng = np.random.default_rng(1)
    for dt, t in _T.items():
        runs = 0
        try:
            for n in (1000, 70001):
                x = rng.normal(0, 2, n)
                x[:6] = [0.0, -0.0, np.nan, np.inf, -np.inf, 1e-40]
                x = x.astype(t)
                for v in (np.array([0.5]), np.array([np.nan]), np.array([-0.0]), rng.normal(0, 1, n)):
                    v = v.astype(t)
                    cores = min(-(-n // 8192), 48)
                    rec = {"elementNum": n, "valuesType": int(v.size == 1), "needCoreNum": cores}
                    got = op.run(input=x, values=v, tiling=rec, block_dim=cores, tiling_key=1)
                    assert_bits_equal(got, ref_heaviside(x, v), f"{dt} n={n} values={v.size}")
                    runs += 1
            print(f"heaviside {dt}: {runs} runs bit-equal with NumPy")
        except KernelSourceError as e:
            print(f"heaviside {dt}: refused at launch: {e}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "/work/opsnn")

"""A fuzz of the reader (issue 43): the fixture kernels' sources mutated, token by token and byte by byte.

Each mutated folder is read (``read_kernel`` and every dtype's and variant's program) or refused; a
refusal is a KernelSourceError, never another exception. ``SWISHGRAD_READER_FUZZ`` sets the number of
mutations (default 300, a few seconds), ``SWISHGRAD_READER_FUZZ_SEED`` the seed (default 43):

    SWISHGRAD_READER_FUZZ=10000 python -m pytest -q tests/test_reader_fuzz.py
"""
import os
import random
import re
import shutil
import types
from pathlib import Path

import numpy as np

from swishgrad_numba.dtypes import dtype_info
from swishgrad_numba.ops import read_kernel
from swishgrad_numba.reader.launch_plan import schedule
from swishgrad_numba.reader import KernelSourceError

KERNELS = Path(__file__).parent / "fixtures" / "kernels"
COUNT = int(os.environ.get("SWISHGRAD_READER_FUZZ", "300"))
SEED = int(os.environ.get("SWISHGRAD_READER_FUZZ_SEED", "43"))
_PIECES = re.compile(r"\s+|[A-Za-z_]\w*|\d[\w.]*|::|->|<<|&&|\|\||.", re.DOTALL)
_POOL = ["(", ")", "{", "}", "<", ">", "[", "]", ";", ",", "::", "<<", "-", "!", "~", "*", "&", "?", ":", "#",
         "\n#if X\n", "\n#else\n", "\n#endif\n", "\n#define X 1\n", "\n#include \"k.h\"\n", "0", "-1", "0x",
         "99999999999999999999999", "1e999", "1.5", "010", "template", "if", "for", "return", "this", "const",
         "\x00", "\uFB01", "'", '"', "/*", "\\\n", "__global__", "BUFFER_NUM", "static_cast<int>", "sizeof",
         "(" * 1500, "{" * 1200, " + 1" * 700, "-" * 1500, "A<" * 800, "1 << 100000", "1 / 0", "lambda",
         "\n#if 1 << 99\n", "\n#include \"/etc/hostname\"\n", "\n#include \"../../x.h\"\n"]


def mutate(text: str, rng: random.Random) -> str:
    pieces = _PIECES.findall(text)
    for _ in range(rng.randint(1, 3)):
        if not pieces:
            break
        k = rng.randrange(len(pieces))
        kind = rng.randrange(6)
        if kind == 0:
            del pieces[k]
        elif kind == 1:
            pieces.insert(k, pieces[k])
        elif kind == 2 and k + 1 < len(pieces):
            pieces[k], pieces[k + 1] = pieces[k + 1], pieces[k]
        elif kind == 3:
            pieces[k] = rng.choice(_POOL)
        elif kind == 4:
            pieces.insert(k, bytes(rng.randrange(256) for _ in range(rng.randint(1, 4))).decode("latin-1"))
        else:
            j = rng.randrange(len(pieces))
            pieces.insert(k, "".join(pieces[min(j, k):max(j, k)][:200]))       # a stretch duplicated
    return "".join(pieces)


def read_all(folder):
    op = read_kernel(folder)
    for dtype in op.description.dtypes:
        for variant in op.variants(dtype):
            op.program(dtype, variant=variant)
    if op.style == "a2" and len(op.variants(op.description.dtypes[0])) == 1:
        # the per-core schedule (reader.schedule) on a small record: every integer field 64, two cores
        record = np.zeros((), op.record_dtype)
        for name in op.record_dtype.names:
            if op.record_dtype.fields[name][0].kind in "iu":
                record[name] = 64
        launch = types.SimpleNamespace(data=record[()], block_dim=2, tiling_key=1)
        schedule(op, launch, dtype_info(op.description.dtypes[0]))


def run_fuzz(count: int, seed: int, scratch: Path) -> tuple:
    """``count`` mutated fixture folders read under ``scratch``: ({"read", "refused", "line 0"} counts, the
    problems: other exceptions, and refusals without a file or with no int line)."""
    rng = random.Random(seed)
    folders = sorted(p for p in KERNELS.iterdir() if p.is_dir())
    problems, outcomes = [], {"read": 0, "refused": 0, "line 0": 0}
    for n in range(count):
        origin = rng.choice(folders)
        files = sorted(f for f in origin.rglob("*") if f.is_file())
        victim = rng.choice(files)
        work = scratch / "k"
        if work.exists():
            shutil.rmtree(work)
        shutil.copytree(origin, work)
        (work / victim.relative_to(origin)).write_text(mutate(victim.read_text(), rng), encoding="utf-8",
                                                       errors="surrogateescape")
        where = f"mutation {n} of {victim.relative_to(KERNELS)}"
        try:
            read_all(work)
            outcomes["read"] += 1
        except KernelSourceError as exc:
            outcomes["refused"] += 1
            if not exc.file or not isinstance(exc.line, int) or isinstance(exc.line, bool) or exc.line < 0:
                problems.append(f"{where}: a refusal without its file and line: {exc!r}"[:300])
            elif exc.line == 0:         # the file (or folder) as a whole: an entry, a struct, a limit
                outcomes["line 0"] += 1
        except Exception as exc:        # noqa: BLE001 (what the fuzz looks for)
            problems.append(f"{where}: {type(exc).__name__}: {exc}"[:300])
    return outcomes, problems


def test_mutated_sources_fail_only_as_kernel_source_errors(tmp_path):
    outcomes, problems = run_fuzz(COUNT, SEED, tmp_path)
    print(f"fuzz: {COUNT} mutations (seed {SEED}): {outcomes['read']} read, {outcomes['refused']} refused "
          f"({outcomes['line 0']} at line 0), {len(problems)} problems")
    assert not problems, "\n".join(problems[:20])

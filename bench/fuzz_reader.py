"""The reader's fuzz at length (issue 43): mutated fixture kernels, each read or refused, never another exception.

Runs :func:`tests.test_reader_fuzz.run_fuzz` (the mutations the default suite samples 300 of) ``--count``
times (default 10,000) with ``--seed`` (default 43) and prints how many read, how many were refused (and
how many of those name line 0: the file or folder as a whole) and every problem: an exception other than
``KernelSourceError``, or a refusal without its file and line. Exit status 1 where there is a problem.

    PYTHONPATH=. python bench/fuzz_reader.py --count 10000
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from test_reader_fuzz import run_fuzz  # noqa: E402


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=10_000, help="mutations to read (default 10000)")
    parser.add_argument("--seed", type=int, default=43, help="the mutations' seed (default 43)")
    args = parser.parse_args(argv)
    if args.count < 1:
        parser.error(f"--count must be at least 1, got {args.count}")
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as scratch:
        outcomes, problems = run_fuzz(args.count, args.seed, Path(scratch))
    print(f"{args.count} mutations (seed {args.seed}) in {time.perf_counter() - start:.0f} s: "
          f"{outcomes['read']} read, {outcomes['refused']} refused ({outcomes['line 0']} at line 0), "
          f"{len(problems)} problems")
    for p in problems:
        print(" ", p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())

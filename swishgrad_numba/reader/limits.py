"""The reader's fixed limits: what a kernel folder may not exceed, each refused as a
:class:`.KernelSourceError` at its file and line rather than exhausting time, memory or the stack.

They are far above what the kernels need (upstream's biggest element-wise kernel file is
tens of kilobytes, its deepest expression a dozen levels) and far below what would hurt.
"""
from __future__ import annotations

__all__ = ["MAX_FILE_BYTES", "MAX_TOKENS", "MAX_NESTING", "MAX_TREE_DEPTH", "MAX_EVAL_DEPTH",
           "MAX_INCLUDE_DEPTH", "MAX_PATHS", "INT_MIN", "INT_MAX"]

#: The largest source file read (bytes); a bigger one is refused before it is read whole.
MAX_FILE_BYTES = 1 << 20
#: The most tokens of one file, after its macros are expanded; and of a whole folder, 4 times that.
MAX_TOKENS = 250_000
#: The deepest the parser recurses (parentheses, blocks, template arguments, unary operators).
MAX_NESTING = 100
#: The deepest syntax tree of one declaration (a sum of n terms is n deep).
MAX_TREE_DEPTH = 200
#: The deepest the interpreter recurses (statements, expressions and calls of the kernel's functions).
MAX_EVAL_DEPTH = 150
#: The longest chain of ``#include`` s.
MAX_INCLUDE_DEPTH = 40
#: The most paths through the entry per dtype (each choice of its template arguments and tiling-field
#: conditions is one; n independent conditions make 2^n).
MAX_PATHS = 128
#: The range of a compile-time integer: the 64-bit types' (int64_t and uint64_t together).
INT_MIN, INT_MAX = -(1 << 63), (1 << 64) - 1

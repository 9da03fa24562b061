"""The samples' kernel-launch ``CopyTiling(&tilingData, tiling)`` (issue 43): a kernel function that copies
the tiling struct from its GM address word by word,

    __aicore__ inline void CopyTiling(S* tiling, GM_ADDR tilingGM)
    {
        uint32_t* ptr = reinterpret_cast<uint32_t*>(tiling);
        auto tiling32 = reinterpret_cast<__gm__ uint32_t*>(tilingGM);
        for (uint32_t i = 0; i < sizeof(S) / sizeof(uint32_t); i++, ptr++) {
            *ptr = *(tiling32 + i);
        }
    }

is read as ``GET_TILING_DATA_WITH_STRUCT(S, tilingData, tiling)``: the local whose address it is given holds
the launch's record. Only that shape is read (the copy ``ptr[i] = tiling32[i]`` too): two parameters
(``S*``, ``GM_ADDR``), the two pointers, one loop over ``sizeof(S) / sizeof(W)`` words of a 4-byte ``W``
with one assignment of a word, and a struct of 4- and 8-byte fields (whose size is whole words); any other
body is the call's usual reading, which refuses its ``reinterpret_cast``.
"""
from __future__ import annotations

from .abstract import refuse
from .syntax import Binary, Block, Call, Decl, ExprStmt, For, Index, Name, Unary

__all__ = ["copied_struct", "bind"]

_WORDS = ("uint32_t", "int32_t")
_FIELD_BYTES = {"uint32_t": 4, "int32_t": 4, "float": 4, "uint64_t": 8, "int64_t": 8, "double": 8}


def _name(x):
    return x.last if isinstance(x, Name) and len(x.segs) == 1 and x.targs is None else None


def _type_name(x):
    """The one identifier ``x`` (a Name or a Type without pointer) names; else None."""
    if isinstance(x, Name):
        return _name(x)
    t = getattr(x, "name", None)
    return _name(t) if isinstance(t, Name) and not getattr(x, "ptr", "") else None


def _reinterpret(init, source, word, gm):
    """Whether ``init`` is ``reinterpret_cast<[__gm__] word*>(source)``."""
    if not (isinstance(init, Call) and isinstance(init.fn, Name) and init.fn.last == "reinterpret_cast"
            and init.fn.targs and len(init.fn.targs) == 1 and len(init.args) == 1 and _name(init.args[0]) == source):
        return False
    t = init.fn.targs[0]
    return getattr(t, "ptr", "") == "*" and _type_name(getattr(t, "name", None)) == word and \
        ("__gm__" in getattr(t, "quals", ())) == gm


def _one_decl(stmt):
    return (stmt.names[0][0], stmt.names[0][1]) if isinstance(stmt, Decl) and len(stmt.names) == 1 else (None, None)


def copied_struct(symbols, fn) -> str | None:
    """The struct ``S`` the function ``fn`` copies whole from its GM parameter (module docstring); else None."""
    if len(fn.params) != 2 or fn.body is None or not isinstance(fn.body, Block) or len(fn.body.stmts) != 3:
        return None
    dst, src = fn.params
    struct = _type_name(dst.type.name)
    if dst.type.ptr != "*" or src.type.name.last != "GM_ADDR" or struct not in symbols.classes:
        return None
    fields = symbols.classes[struct].fields
    if not fields or any(d.type.name.last not in _FIELD_BYTES or d.type.ptr or any(d.dims or ()) for d in fields):
        return None
    (ptr, ptr_init), (words, words_init) = _one_decl(fn.body.stmts[0]), _one_decl(fn.body.stmts[1])
    word = None
    for w in _WORDS:
        if ptr and words and _reinterpret(ptr_init, dst.name, w, False) and _reinterpret(words_init, src.name, w, True):
            word = w
    loop = fn.body.stmts[2]
    if word is None or not isinstance(loop, For):
        return None
    i, start = _one_decl(loop.init)
    bound = Binary("/", Unary("sizeof", None), Unary("sizeof", None))
    cond = loop.cond
    if not (i and getattr(start, "text", None) == "0" and isinstance(cond, Binary) and cond.op == "<"
            and _name(cond.a) == i and isinstance(cond.b, Binary) and cond.b.op == bound.op
            and all(isinstance(s, Unary) and s.op == "sizeof" for s in (cond.b.a, cond.b.b))
            and _type_name(cond.b.a.x) == struct and _type_name(cond.b.b.x) == word):
        return None
    body = loop.body.stmts if isinstance(loop.body, Block) else (loop.body,)
    if len(body) != 1 or not isinstance(body[0], ExprStmt) or not isinstance(body[0].x, Binary) \
            or body[0].x.op != "=":
        return None
    steps = loop.step if isinstance(loop.step, tuple) else (loop.step,)
    steps = tuple(_name(s.x) if isinstance(s, Unary) and s.op in ("post++", "++") else "?" for s in steps)
    lhs, rhs = body[0].x.a, body[0].x.b
    indexed = Index(Name(((words, None),)), Name(((i, None),)))
    walked = Unary("*", Binary("+", Name(((words, None),)), Name(((i, None),))))
    if lhs == Unary("*", Name(((ptr, None),))) and rhs == walked and sorted(steps) == sorted((i, ptr)):
        return struct                   # *ptr = *(words + i); i++, ptr++
    if lhs == Index(Name(((ptr, None),)), Name(((i, None),))) and rhs in (indexed, walked) and steps == (i,):
        return struct                   # ptr[i] = words[i]; i++
    return None


def bind(machine, node, struct, arg_nodes) -> None:
    """``CopyTiling(&var, tiling)``: ``var`` holds the launch's record of ``struct``."""
    target = arg_nodes[0].x if isinstance(arg_nodes[0], Unary) and arg_nodes[0].op == "&" else None
    if _name(target) is None or len(arg_nodes) != 2:
        refuse(node, f"{node.fn.last}(...)", "the copy of the tiling struct is read into a local's address only")
    machine.assign(target, machine.tiling_value(struct, node.at), node)

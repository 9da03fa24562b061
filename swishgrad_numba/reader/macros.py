"""Function-like macros (issue 43): ``#define CEIL_DIV(a, b) (((a) + (b) - 1) / (b))`` expanded where
code calls it, as C's preprocessor does for a body without ``#``, ``##`` or ``...``: each argument (split
at the commas outside parentheses) expanded first, substituted for its parameter, and the result
rescanned, a macro never expanded inside its own expansion. The expansion takes the call's line.
A call with the wrong number of arguments, or one not closed, is refused at its line."""
from __future__ import annotations

from .errors import KernelSourceError
from .lexer import Token
from .limits import MAX_TOKENS

__all__ = ["expand_calls"]


def expand_calls(calls: dict, tokens: list, file: str) -> list:
    """``tokens`` with the calls of ``calls`` (name -> (parameters, body tokens, line)) expanded."""
    out = _expand(calls, [(t, frozenset()) for t in tokens], file, [0])
    return [t for t, _ in out]


def _expand(calls, seq, file, budget) -> list:
    out, i = [], 0
    while i < len(seq):
        tok, hide = seq[i]
        if tok.kind == "id" and tok.text in calls and tok.text not in hide and i + 1 < len(seq) \
                and seq[i + 1][0].text == "(":
            args, end = _arguments(seq, i + 1, tok, file)
            params, body, _ = calls[tok.text]
            if args == [[]] and not params:
                args = []
            if params and params[-1] == "__VA_ARGS__" and len(args) > len(params):      # variadic: one argument
                comma = (Token("op", ",", tok.file, tok.line), frozenset())
                args = args[:len(params) - 1] + [[x for a in args[len(params) - 1:] for x in a + [comma]][:-1]]
            if len(args) != len(params):
                raise KernelSourceError(file, tok.line, f"macro {tok.text}", f"called with {len(args)} arguments, "
                                        f"defined with {len(params)}")
            inner = hide | {tok.text}
            expanded = {p: _expand(calls, a, file, budget) for p, a in zip(params, args)}
            new = []
            for b in body:
                if b.kind == "id" and b.text in expanded:
                    new.extend(expanded[b.text])
                else:
                    new.append((Token(b.kind, b.text, tok.file, tok.line), inner))
            budget[0] += len(new)
            if budget[0] + len(seq) > MAX_TOKENS:
                raise KernelSourceError(file, tok.line, f"macro {tok.text}", f"expands to more than {MAX_TOKENS} "
                                        "tokens")
            seq = seq[:i] + new + seq[end:]
            continue
        out.append((tok, hide))
        i += 1
    return out


def _arguments(seq, i, tok, file):
    """The arguments of the call whose ``(`` is at ``i``: (lists of (token, hide), index after ``)``)."""
    args, cur, depth = [], [], 0
    for j in range(i + 1, len(seq)):
        t = seq[j][0]
        if t.text in ("(", "[", "{"):
            depth += 1
        elif t.text in (")", "]", "}"):
            if depth == 0 and t.text == ")":
                args.append(cur)
                return args, j + 1
            depth -= 1
        elif t.text == "," and depth == 0:
            args.append(cur)
            cur = []
            continue
        cur.append(seq[j])
    raise KernelSourceError(file, tok.line, f"macro {tok.text}", "its call is not closed")

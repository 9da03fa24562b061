"""The preprocessor lines of a kernel source, as a device build of the kernel sees them.

Conditionals (``#if``, ``#ifdef``, ``#ifndef``, ``#elif``, ``#else``, ``#endif``) are evaluated:
``defined X``, ``!``, ``~``, unary ``-``/``+``, ``* / % + - << >>``, comparisons, ``& ^ |``, ``&&``,
``||``, ``?:``, parentheses and integer literals, over 64-bit integers. A macro's value is the
sources' own ``#define`` (object-like macros are expanded, with C's rule that a macro is not
expanded inside itself), else :data:`DEVICE_DEFINES` (a device build for the vector core:
``__CCE_AICORE__`` and the SoC's macros of :data:`PLATFORM_DEFINES`, the A2's by default;
``ASCENDC_CPU_DEBUG``, ``__CCE_KT_TEST__``, ``HIGH_PERFORMANCE`` and ``SUPER_PERFORMANCE`` not defined:
no ops-nn build passes either flag), as overridden
by the ``defines`` the caller passes. So CPU-debug blocks drop out (and a host-launch stub,
``kernel<<<...>>>``, is skipped by :mod:`.declarations`). An include guard is nothing special:
``#ifndef X`` directly followed by ``#define X`` is true where X is not yet defined, and false
where it is (so such a pair inside a file never redefines a constant).

A condition on a macro none of these names (a build flag the reader cannot know) is refused
where it selects code; around directives only, it is evaluated as C does (not defined: 0).
Object-like ``#define NAME tokens`` are substituted into later code; ``#include "..."`` is
handed to the caller's ``include`` (:mod:`.source`); ``#pragma`` and ``#include <...>`` are
ignored; a function-like ``#define F(a, b) body`` is expanded where the file's code calls it (each
argument expanded first, then substituted, and the result rescanned, F not inside itself:
:func:`expand_calls`); one with ``#``, ``##`` or ``...`` is not (a use is then an unknown call);
``#error`` in a live group is refused.
"""
from __future__ import annotations

import re

from .errors import KernelSourceError
from .lexer import Token, tokenize
from .limits import INT_MAX, INT_MIN, MAX_NESTING, MAX_TOKENS
from .macros import expand_calls

__all__ = ["Preprocessed", "Preprocessor", "preprocess", "DEVICE_DEFINES", "DEVICE_GUARD", "AICORE_VALUES",
           "PLATFORM_DEFINES", "LIBRARY_MACROS"]

#: The macro the AI core's compiler defines.
DEVICE_GUARD = "__CCE_AICORE__"
#: The macros that tell the SoC apart, per architecture, for its vector core (an element-wise kernel
#: runs on the AIV): asc-devkit's build names the A2's (ascend910B1) AIV ``__NPU_ARCH__=2201``,
#: ``__DAV_C220__``, ``__DAV_C220_VEC__`` and the 950's (ascend950pr_9599) ``__NPU_ARCH__=3510``,
#: ``__DAV_C310__``, ``__DAV_C310_VEC__`` (asc-devkit 0da921b9,
#: ``.agent/skills/asc-api-ut-gen/references/foundations/api-directory-map.md:56-62``);
#: ``__CCE_AICORE__`` is the core version the DAV names carry, 220 and 310 (upstream's 950 regbase code is
#: under ``#if __CCE_AICORE__ == 310``). None: not defined.
PLATFORM_DEFINES = {
    "a2": {DEVICE_GUARD: 220, "__NPU_ARCH__": 2201, "__DAV_C220__": 1, "__DAV_C220_VEC__": 1,
           "__DAV_C220_CUBE__": None, "__DAV_C310__": None, "__DAV_C310_VEC__": None, "__DAV_C310_CUBE__": None},
    "950": {DEVICE_GUARD: 310, "__NPU_ARCH__": 3510, "__DAV_C310__": 1, "__DAV_C310_VEC__": 1,
            "__DAV_C310_CUBE__": None, "__DAV_C220__": None, "__DAV_C220_VEC__": None, "__DAV_C220_CUBE__": None},
}
AICORE_VALUES = {arch: d[DEVICE_GUARD] for arch, d in PLATFORM_DEFINES.items()}
#: The device build the conditions are evaluated for (the A2's by default): a value, or None for "not
#: defined". The caller's ``defines`` are laid over it.
DEVICE_DEFINES = {**PLATFORM_DEFINES["a2"], "__cplusplus": 201703, "ASCENDC_CPU_DEBUG": None,
                  "__CCE_KT_TEST__": None, "HIGH_PERFORMANCE": None, "SUPER_PERFORMANCE": None}
#: Object-like macros of the library headers the kernels include, as those define them (a source's own
#: ``#define`` or the caller's ``defines`` replace them): ops-nn's ``inc/platform.h`` (common/inc/op_kernel,
#: line 27) names a kernel entry ``KERNEL_API``.
LIBRARY_MACROS = {"KERNEL_API": 'extern "C" __global__ __aicore__'}
_LIBRARY = "<library>"


class Preprocessed:
    """A file's code tokens after its directives (``tokens``), the local headers it
    includes (``includes``) and the object-like macros it defines (``macros``)."""

    def __init__(self, tokens, includes, macros):
        self.tokens, self.includes, self.macros = tokens, includes, macros


class _Unknown(Exception):
    def __init__(self, name):
        self.name = name


class Preprocessor:
    """The macro state of one build, shared by the files read in it (``include(name, token)``
    reads a header at its ``#include``, with this preprocessor)."""

    def __init__(self, defines: dict | None = None, include=None):
        self.macros, self.functions, self.undefined = {}, set(), set()
        self.calls = {}                 # function-like macros: name -> (parameters, body tokens, line)
        self.include = include
        self.consulted = set()          # names whose value a condition read
        merged = dict(DEVICE_DEFINES)
        for name, text in LIBRARY_MACROS.items():     # a library macro's tokens take the use's place
            self.macros[name] = tuple(tokenize(text, _LIBRARY)[:-1])
        merged.update(defines or {})
        for name, value in merged.items():
            if value is None:
                self.undefined.add(name)
            else:
                text = str(int(value)) if isinstance(value, bool) else str(value)
                self.macros[name] = tuple(tokenize(text, "<defines>")[:-1])

    # ------------------------------------------------------------ a file
    def run(self, text: str, file: str) -> Preprocessed:
        raw = tokenize(text, file)
        out, includes, stack = [], [], []      # stack: [live, taken, seen_else, line]
        for i, tok in enumerate(raw):
            live = all(f[0] for f in stack)
            if tok.kind != "pp":
                if live and tok.kind != "eof":
                    out.extend(self.expand([tok], file) if tok.kind == "id" and tok.text in self.macros else (tok,))
                    if len(out) > MAX_TOKENS:
                        raise KernelSourceError(file, tok.line, "the file", f"more than {MAX_TOKENS} tokens")
                continue
            word, _, rest = tok.text.partition(" ")
            if word in ("if", "ifdef", "ifndef"):
                if len(stack) >= MAX_NESTING:
                    raise KernelSourceError(file, tok.line, f"#{word}", f"conditionals nested more than {MAX_NESTING} "
                                            "deep")
                if not live:
                    stack.append([False, True, False, tok.line])
                    continue
                value = self.condition(raw, i, word, rest, file)
                stack.append([value, value, False, tok.line])
            elif word in ("elif", "else"):
                if not stack or stack[-1][2]:
                    raise KernelSourceError(file, tok.line, f"#{word}", "without its #if" if not stack else
                                            "after #else")
                frame, parent = stack[-1], all(f[0] for f in stack[:-1])
                if word == "else":
                    frame[0], frame[1], frame[2] = parent and not frame[1], True, True
                elif not parent or frame[1]:
                    frame[0] = False
                else:
                    frame[0] = frame[1] = self.condition(raw, i, "if", rest, file)
            elif word == "endif":
                if not stack:
                    raise KernelSourceError(file, tok.line, "#endif", "without its #if")
                stack.pop()
            elif not live:
                continue
            elif word == "include":
                m = re.match(r'"([^"]*)"', rest)
                if m:
                    includes.append((m.group(1), tok.line))
                    if self.include is not None:
                        self.include(m.group(1), tok)
            elif word == "define":
                self.define(rest, tok, file)
            elif word == "undef":
                name = rest.strip()
                self.macros.pop(name, None)
                self.functions.discard(name)
                self.calls.pop(name, None)
                self.undefined.add(name)
            elif word == "error":
                raise KernelSourceError(file, tok.line, "#error", "a device build of this source stops here")
        if stack:
            raise KernelSourceError(file, stack[-1][3], "#if", "not closed by #endif")
        if self.calls:
            out = expand_calls(self.calls, out, file)
        out.append(raw[-1])
        return Preprocessed(out, includes, self.macros)

    def define(self, rest, tok, file):
        m = re.match(r"([A-Za-z_]\w*)(\(?)\s*(.*)$", rest)
        if not m:
            raise KernelSourceError(file, tok.line, f"#define {rest[:40]}", "not a macro definition")
        name = m.group(1)
        self.undefined.discard(name)
        if m.group(2):
            self.functions.add(name)
            self.macros.pop(name, None)
            params, _, body = m.group(3).partition(")")
            names = [p.strip() for p in params.split(",")] if params.strip() else []
            if names and names[-1] == "...":          # variadic (issue 43): the rest is __VA_ARGS__
                names[-1] = "__VA_ARGS__"
            if all(re.fullmatch(r"[A-Za-z_]\w*", n) for n in names) and "#" not in body:
                self.calls[name] = (tuple(names), tuple(Token(t.kind, t.text, file, tok.line)
                                                        for t in tokenize(body, file)[:-1]), tok.line)
            else:
                self.calls.pop(name, None)      # variadic or malformed: a use stays an unknown call
            return
        body = tokenize(m.group(3), file)[:-1]
        self.macros[name] = tuple(Token(t.kind, t.text, file, tok.line) for t in body)
        self.functions.discard(name)

    def expand(self, tokens, file) -> list:
        """``tokens`` with their object-like macros expanded (a macro is not expanded inside itself)."""
        out, work = [], [(t, frozenset()) for t in reversed(tokens)]
        while work:
            tok, hide = work.pop()
            if tok.kind == "id" and tok.text in self.macros and tok.text not in hide:
                inner = hide | {tok.text}
                work.extend((Token(t.kind, t.text, tok.file, tok.line) if t.file == _LIBRARY else t, inner)
                            for t in reversed(self.macros[tok.text]))
                if len(work) > MAX_TOKENS:
                    break
            else:
                out.append(tok)
                if len(out) > MAX_TOKENS:
                    break
        if work or len(out) > MAX_TOKENS:
            raise KernelSourceError(file, tokens[0].line, f"macro {tokens[0].text}",
                                    f"expands to more than {MAX_TOKENS} tokens")
        return out

    # ------------------------------------------------------------ conditions
    def condition(self, raw, i, word, rest, file) -> bool:
        tok = raw[i]
        try:
            if word in ("ifdef", "ifndef"):
                name = rest.strip()
                self.consulted.add(name)
                if not re.fullmatch(r"[A-Za-z_]\w*", name):
                    raise KernelSourceError(file, tok.line, f"#{tok.text}", "not a macro name")
                defines_next = i + 1 < len(raw) and raw[i + 1].kind == "pp" and \
                    raw[i + 1].text.split()[:2] == ["define", name]
                if word == "ifndef" and defines_next and name not in self.macros and name not in self.functions:
                    return True         # #ifndef X / #define X: the source defines X here (an include guard)
                return self.is_defined(name) == (word == "ifdef")
            return _Expression(self, tokenize(rest, file)[:-1], file, tok).value() != 0
        except _Unknown as unknown:
            if _has_code(raw, i):
                raise KernelSourceError(
                    file, tok.line, f"#{tok.text}",
                    f"{unknown.name} is a build flag the reader does not know: pass "
                    f"defines={{{unknown.name!r}: value}} (None: not defined)") from None
            return word == "ifndef" if word != "if" else _c_value(self, rest, file, tok)

    def is_defined(self, name) -> bool:
        if name in self.macros or name in self.functions:
            return True
        if name in self.undefined:
            return False
        raise _Unknown(name)


def _c_value(pp, rest, file, tok) -> bool:
    """A condition around directives only, as C evaluates it: a macro nobody names is not defined."""
    saved = set(pp.undefined)
    try:
        while True:
            try:
                return _Expression(pp, tokenize(rest, file)[:-1], file, tok).value() != 0
            except _Unknown as unknown:
                pp.undefined.add(unknown.name)
    finally:
        pp.undefined = saved


def _group_end(raw, i):
    """The index of the ``#endif`` closing the conditional at ``raw[i]`` (None: not closed)."""
    depth = 0
    for j in range(i + 1, len(raw)):
        if raw[j].kind == "pp":
            w = raw[j].text.split(" ", 1)[0]
            if w == "endif" and depth == 0:
                return j
            depth += w in ("if", "ifdef", "ifndef")
            depth -= w == "endif"
    return None


def _has_code(raw, i) -> bool:
    """Whether the conditional at ``raw[i]`` (from there to its ``#endif``) holds code."""
    end = _group_end(raw, i)
    return any(t.kind not in ("pp", "eof") for t in raw[i + 1:len(raw) if end is None else end])


_BINARY = {"*": 10, "/": 10, "%": 10, "+": 9, "-": 9, "<<": 8, ">>": 8, "<": 7, ">": 7, "<=": 7, ">=": 7,
           "==": 6, "!=": 6, "&": 5, "^": 4, "|": 3, "&&": 2, "||": 1}


class _Expression:
    """One ``#if`` expression over 64-bit integers."""

    def __init__(self, pp, tokens, file, at):
        self.file, self.at, self.pp = file, at, pp
        toks, j = [], 0
        while j < len(tokens):            # defined X / defined(X), before macros are expanded
            t = tokens[j]
            if t.kind == "id" and t.text == "defined":
                k = j + 1
                paren = k < len(tokens) and tokens[k].text == "("
                k += paren
                if k >= len(tokens) or tokens[k].kind != "id" or paren and (k + 1 >= len(tokens)
                                                                               or tokens[k + 1].text != ")"):
                    self.fail("defined without a macro name")
                pp.consulted.add(tokens[k].text)
                toks.append(Token("num", str(int(pp.is_defined(tokens[k].text))), file, t.line))
                j = k + 1 + paren
                continue
            if t.kind == "id":
                pp.consulted.add(t.text)
            toks.append(t)
            j += 1
        merged = []
        for t in toks:      # ">" ">" from the lexer is a shift here
            if t.text == ">" and merged and merged[-1].text == ">" and merged[-1].kind == "op":
                merged[-1] = Token("op", ">>", t.file, t.line)
                continue
            merged.append(t)
        self.toks = pp.expand(merged, file) if merged else merged
        self.i, self.depth = 0, 0

    def fail(self, detail):
        raise KernelSourceError(self.file, self.at.line, f"#{self.at.text}", detail)

    def value(self) -> int:
        if not self.toks:
            self.fail("an empty condition")
        v = self.ternary()
        if self.i != len(self.toks):
            self.fail(f"unexpected {self.toks[self.i].text!r}")
        return v

    def peek(self):
        return self.toks[self.i].text if self.i < len(self.toks) else ""

    def ternary(self):
        self.depth += 1
        if self.depth > MAX_NESTING:
            self.fail(f"nested more than {MAX_NESTING} deep")
        c = self.binary(1)
        if self.peek() == "?":
            self.i += 1
            a = self.ternary()
            if self.peek() != ":":
                self.fail("? without :")
            self.i += 1
            b = self.ternary()
            c = a if c else b
        self.depth -= 1
        return c

    def binary(self, level):
        left = self.unary()
        while self.peek() in _BINARY and _BINARY[self.peek()] >= level:
            op = self.peek()
            self.i += 1
            right = self.binary(_BINARY[op] + 1)
            left = self.apply(op, left, right)
        return left

    def apply(self, op, a, b):
        if op in ("/", "%") and b == 0:
            self.fail("division by zero")
        if op in ("<<", ">>") and not 0 <= b < 64:
            self.fail(f"a shift by {b}")
        v = {"*": lambda: a * b, "/": lambda: abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1),
             "%": lambda: a - b * (abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1)),
             "+": lambda: a + b, "-": lambda: a - b, "<<": lambda: a << b, ">>": lambda: a >> b,
             "<": lambda: int(a < b), ">": lambda: int(a > b), "<=": lambda: int(a <= b),
             ">=": lambda: int(a >= b), "==": lambda: int(a == b), "!=": lambda: int(a != b),
             "&": lambda: a & b, "^": lambda: a ^ b, "|": lambda: a | b,
             "&&": lambda: int(bool(a) and bool(b)), "||": lambda: int(bool(a) or bool(b))}[op]()
        return self.checked(v)

    def checked(self, v):
        if not INT_MIN <= v <= INT_MAX:
            self.fail("an integer past 64 bits")
        return v

    def unary(self):
        t = self.toks[self.i] if self.i < len(self.toks) else None
        if t is None:
            self.fail("ends too early")
        self.i += 1
        if t.text in ("!", "~", "-", "+"):
            self.depth += 1
            if self.depth > MAX_NESTING:
                self.fail(f"nested more than {MAX_NESTING} deep")
            x = self.unary()
            self.depth -= 1
            return self.checked({"!": int(not x), "~": ~x, "-": -x, "+": x}[t.text])
        if t.text == "(":
            x = self.ternary()
            if self.peek() != ")":
                self.fail("( without )")
            self.i += 1
            return x
        if t.kind == "num":
            return self.checked(self.number(t.text))
        if t.kind == "id":
            if t.text in ("true", "false"):
                return int(t.text == "true")
            if t.text in self.pp.functions:
                self.fail(f"function-like macro {t.text}")
            if t.text in self.pp.undefined:
                return 0
            raise _Unknown(t.text)
        self.fail(f"unexpected {t.text!r}")

    def number(self, text):
        body = text.rstrip("uUlL")
        try:
            if re.fullmatch(r"0[xX][0-9a-fA-F]+", body):
                return int(body, 16)
            if re.fullmatch(r"0[0-7]*", body):
                return int(body, 8)
            if re.fullmatch(r"[1-9][0-9]*", body):
                return int(body)
        except ValueError:
            pass
        self.fail(f"{text[:20]!r} is not an integer literal")


def preprocess(text: str, file: str, macros: dict | None = None, defines: dict | None = None) -> Preprocessed:
    """Preprocess one ``text`` alone (its includes listed, not read), with the object-like ``macros``
    of the files read before it (updated in place) and the caller's ``defines``."""
    pp = Preprocessor(defines)
    if macros is not None:
        pp.macros.update(macros)
    result = pp.run(text, file)
    if macros is not None:
        macros.update(pp.macros)
    return result

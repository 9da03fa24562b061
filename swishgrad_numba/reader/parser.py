"""A recursive-descent parser for the names, types and expressions of the kernels' C++ subset
(the statements are :mod:`.statements`').

What it does not know (lambdas, ``switch``, ``goto``, ...) is a
:class:`.KernelSourceError` at the token where it stopped.
"""
from __future__ import annotations

import functools

from .errors import KernelSourceError, TooDeep
from .limits import MAX_NESTING
from .syntax import Binary, Call, CCast, Cond, Index, InitList, Member, Name, Num, Str, Type, Unary

__all__ = ["Parser", "BUILTIN_TYPES", "DECL_SPECS", "KEYWORDS", "left_at"]

BUILTIN_TYPES = frozenset("""void bool char short int long float double unsigned signed half bfloat16_t float16_t
    float32_t __bf16 __fp16 int8_t int16_t int32_t int64_t uint8_t uint16_t uint32_t uint64_t size_t auto""".split())
#: Words before or inside a type that do not change what the reader computes.
DECL_SPECS = frozenset("""const constexpr static inline __aicore__ __global__ volatile typename struct class
    __gm__ __ubuf__ __local_mem__ extern mutable __simd_vf__ __simd_callee__ __simt_vf__""".split())
_BINARY = [("||",), ("&&",), ("|",), ("^",), ("&",), ("==", "!="), ("<", ">", "<=", ">="), ("<<",),
           ("+", "-"), ("*", "/", "%")]
_LEVEL = {op: level for level, ops in enumerate(_BINARY) for op in ops}
_LEVEL[">>"] = _LEVEL["<<"]
_ASSIGN = ("=", "+=", "-=", "*=", "/=")
_AFTER_TARGS = frozenset("( :: { ) , ; > . & * ] = || && ? == !=".split())
KEYWORDS = frozenset("if else for while do return switch case break continue goto this template using "
                      "namespace new delete".split())


def nested(method):
    """A parser method that recurses: past :data:`.limits.MAX_NESTING` levels it is refused."""
    @functools.wraps(method)
    def wrapper(self, *args, **kwargs):
        self.depth += 1
        try:
            if self.depth > MAX_NESTING:
                raise TooDeep(self.tok.file, self.tok.line, f"{self.tok.text or 'end of file'!r}",
                              f"nested more than {MAX_NESTING} deep")
            return method(self, *args, **kwargs)
        finally:
            self.depth -= 1
    return wrapper


#: Parameter structs written as braced temporaries in calls (``DataCopyPad(t, g, DataCopyExtParams{...}, ...)``),
#: read as the plain braced list the same argument may be (issue 43).
BRACED_TEMPORARIES = frozenset(("DataCopyParams", "DataCopyExtParams", "DataCopyPadExtParams", "DataCopyPadParams",
                                "UnaryRepeatParams", "BinaryRepeatParams"))


class Parser:
    def __init__(self, tokens):
        self.toks, self.i, self.depth = tokens, 0, 0
        self._targs, self._casts = {}, {}      # look-aheads by position, each tried once

    # ------------------------------------------------------------ tokens
    @property
    def tok(self):
        return self.toks[min(self.i, len(self.toks) - 1)]

    def peek(self, k=1):
        return self.toks[min(self.i + k, len(self.toks) - 1)]

    def at(self, tok=None):
        tok = tok or self.tok
        return (tok.file, tok.line)

    def is_(self, *texts) -> bool:
        return self.tok.kind in ("op", "id") and self.tok.text in texts

    def take(self, *texts):
        if not self.is_(*texts):
            self.fail(f"{self.tok.text or 'end of file'!r}", f"expected {' or '.join(texts)}")
        tok = self.tok
        self.i += 1
        return tok

    def accept(self, *texts) -> bool:
        if self.is_(*texts):
            self.i += 1
            return True
        return False

    def ident(self) -> str:
        if self.tok.kind != "id":
            self.fail(f"{self.tok.text or 'end of file'!r}", "expected a name")
        self.i += 1
        return self.toks[self.i - 1].text

    def fail(self, construct, detail="not in the C++ subset the reader knows"):
        raise KernelSourceError(self.tok.file, self.tok.line, construct, detail)

    def skip_attributes(self):
        while self.is_("[["):
            while not self.accept("]]"):
                if self.tok.kind == "eof":
                    self.fail("'[['", "not closed by ]]")
                self.i += 1

    # ------------------------------------------------------------ names and types
    def name(self) -> Name:
        at, segs = self.at(), []
        self.accept("::")
        while True:
            self.accept("template")
            ident = self.ident()
            segs.append((ident, self.maybe_targs()))
            if not (self.is_("::") and self.peek().kind == "id"):
                return Name(tuple(segs), at)
            self.i += 1

    def maybe_targs(self):
        """Template arguments after a name, if ``<`` opens them (else None: it is less-than)."""
        if not self.is_("<"):
            return None
        start = self.i
        if start in self._targs:
            args, self.i = self._targs[start]
            return args
        args = self._maybe_targs()
        self._targs[start] = (args, self.i)
        return args

    @nested
    def _maybe_targs(self):
        start = self.i
        try:
            self.i += 1
            args = []
            if not self.is_(">"):
                while True:
                    args.append(self.targ())
                    if not self.accept(","):
                        break
            self.take(">")
            if self.tok.text in _AFTER_TARGS or self.tok.kind == "id":
                return tuple(args)
        except TooDeep:
            raise
        except KernelSourceError:
            pass
        self.i = start
        return None

    def targ(self):
        self.accept("typename")          # typename X<T>::Type
        start = self.i
        if self.tok.kind == "id" and self.tok.text not in KEYWORDS:
            try:
                t = self.type()
                if self.is_(",", ">", ";"):      # a template argument, or the type of an alias
                    return t
            except TooDeep:
                raise
            except KernelSourceError:
                pass
            self.i = start
        return self.expr(no_gt=True)

    def type(self) -> Type:
        at, quals = self.at(), []
        self.skip_attributes()
        while self.is_(*DECL_SPECS) or self.is_("LAUNCH_BOUND") and self.peek().text == "(":
            if self.accept("LAUNCH_BOUND"):          # LAUNCH_BOUND(n): a launch hint
                self.take("(")
                self.expr()
                self.take(")")
                continue
            quals.append(self.take(*DECL_SPECS).text)
        if self.is_("unsigned", "signed", "long", "short") and self.peek().text in ("int", "long", "char", "short"):
            self.i += 1
        name = self.name()
        while self.is_("const", "__gm__", "__ubuf__", "__local_mem__"):
            quals.append(self.take("const", "__gm__", "__ubuf__", "__local_mem__").text)
        ptr = ""
        while self.is_("*", "&", "&&"):
            ptr += self.take("*", "&", "&&").text
            self.accept("const")
        return Type(name, tuple(quals), ptr, at)

    # ------------------------------------------------------------ expressions
    @nested
    def expr(self, no_gt=False):
        left = self.ternary(no_gt)
        if self.is_(*_ASSIGN):
            op = self.take(*_ASSIGN).text
            return Binary(op, left, self.expr(no_gt), left_at(left))
        return left

    def ternary(self, no_gt):
        c = self.binary(0, no_gt)
        if self.accept("?"):
            a = self.expr(no_gt)
            self.take(":")
            return Cond(c, a, self.ternary(no_gt), left_at(c))
        return c

    def binary(self, level, no_gt):
        """Binary operators of precedence ``level`` and above (precedence climbing, left-associative)."""
        left = self.unary()
        while True:
            op = self._binary_op(no_gt)
            if op is None or _LEVEL[op] < level:
                return left
            self.i += 2 if op == ">>" else 1
            left = Binary(op, left, self.binary(_LEVEL[op] + 1, no_gt), left_at(left))

    def _binary_op(self, no_gt):
        """The binary operator at the cursor (``> >`` is a shift, unless closing template arguments)."""
        if self.tok.kind != "op" or self.tok.text not in _LEVEL:
            return None
        if self.tok.text == ">" and (no_gt or self.peek().text == ">"):
            return ">>" if not no_gt else None
        return self.tok.text

    @nested
    def unary(self):
        at = self.at()
        if self.is_("-", "+", "!", "~", "*", "&", "++", "--"):
            op = self.take(self.tok.text).text
            return Unary(op, self.unary(), at)
        if self.is_("sizeof"):
            self.i += 1
            self.take("(")
            t = self.targ()
            self.take(")")
            return Unary("sizeof", t, at)
        if self.is_("(") and self.cast_ahead():
            self.take("(")
            t = self.type()
            self.take(")")
            return CCast(t, self.unary(), at)
        return self.postfix(self.primary())

    def cast_ahead(self) -> bool:
        """Whether ``(`` opens a C cast: a type with qualifiers, ``*``/``&`` or a built-in name, then ``)``."""
        if self.i not in self._casts:
            self._casts[self.i] = self._cast_ahead()
        return self._casts[self.i]

    def _cast_ahead(self) -> bool:
        start = self.i
        try:
            self.i += 1
            t = self.type()
            if not self.is_(")"):
                return False
            after = self.peek()
            # (float)x, (__ubuf__ T*)p, and (T)0.0 / (TYPE_X)x: a name in parentheses before an operand
            return bool(t.quals or t.ptr or t.name.text() in BUILTIN_TYPES) or after.kind in ("num", "id") \
                or after.text == "("
        except TooDeep:
            raise
        except KernelSourceError:
            return False
        finally:
            self.i = start

    def primary(self):
        tok, at = self.tok, self.at()
        if tok.kind == "num":
            self.i += 1
            return Num(tok.text, at)
        if tok.kind == "str":
            self.i += 1
            return Str(tok.text, at)
        if self.accept("("):
            x = self.expr()
            self.take(")")
            return x
        if self.accept("{"):
            items = []
            while not self.accept("}"):
                items.append(self.expr())
                if not self.is_("}"):
                    self.take(",")
            return InitList(tuple(items), at)
        if self.accept("this"):
            return Name((("this", None),), at)
        if self.is_("[") and self.peek().text in ("]", "=", "&", "this") or \
                self.is_("[") and self.peek().kind == "id" and self.peek(2).text in (",", "]"):
            from .lambdas import parse_lambda           # [this](...) { ... } (issue 43)
            return parse_lambda(self)
        if tok.kind == "id" and tok.text not in KEYWORDS or self.is_("::"):
            name = self.name()
            if self.is_("{") and name.last in BRACED_TEMPORARIES:     # DataCopyExtParams{1, n, 0, 0, 0}: issue 43
                return self.primary()             # read as the braced list an argument would be
            return name
        self.fail(repr(tok.text or "end of file"))

    def postfix(self, x):
        while True:
            at = self.at()
            if self.accept("("):
                args = []
                while not self.accept(")"):
                    args.append(self.expr())
                    if not self.is_(")"):
                        self.take(",")
                x = Call(x, tuple(args), at)
            elif self.accept("["):
                x = Index(x, self.expr(), at)
                self.take("]")
            elif self.is_(".", "->"):
                arrow = self.take(".", "->").text == "->"
                self.accept("template")
                ident = self.ident()
                x = Member(x, ident, self.maybe_targs(), arrow, at)
            elif self.is_("++", "--"):
                x = Unary("post" + self.take("++", "--").text, x, at)
            else:
                return x


def left_at(node):
    return getattr(node, "at", ("", 0))

"""The statements of the kernels' C++ subset: blocks, declarations, if, for, while, return, and ``switch``
(issue 43: a tiling-key switch) read as the ``if``/``else`` chain it is where no case group falls into the
next: each group ends in ``break;`` (dropped), ``return`` or the switch's end; groups of only labels share
the next group's statements; ``default`` is the last ``else`` wherever it stands."""
from __future__ import annotations

from .errors import KernelSourceError, TooDeep
from .parser import KEYWORDS, Parser, nested
from .syntax import Alias, Binary, Block, Decl, ExprStmt, For, If, Jump, Return, Scoped, Unary, While

__all__ = ["StatementParser"]


class StatementParser(Parser):
    def block(self) -> Block:
        at = self.at()
        self.take("{")
        stmts = []
        while not self.accept("}"):
            stmts.append(self.statement())
        return Block(tuple(stmts), at)

    @nested
    def statement(self):
        at = self.at()
        if self.is_("{"):
            return self.block()
        if self.accept(";"):
            return Block((), at)
        if self.accept("if"):
            constexpr = self.accept("constexpr")
            if self.is_("TILING_KEY_IS") and self.peek().text == "(":     # if TILING_KEY_IS(k) {: the macro's
                cond = self.postfix(self.primary())                      # own parentheses (issue 43)
            else:
                self.take("(")
                cond = self.expr()
                self.take(")")
            then = self.statement()
            other = self.statement() if self.accept("else") else None
            return If(cond, constexpr, then, other, at)
        if self.accept("for"):
            self.take("(")
            init = None if self.is_(";") else self.simple()
            self.take(";")
            cond = None if self.is_(";") else self.expr()
            self.take(";")
            step = []
            while not self.accept(")"):
                step.append(self.expr())
                self.accept(",")
            return For(init, cond, tuple(step), self._body("loop"), at)
        if self.accept("do"):             # do { ... } while (0): a macro's body, run once (issue 43)
            body = self.statement()
            self.take("while")
            self.take("(")
            if self.tok.text not in ("0", "false") or self.peek().text != ")":
                self.fail("do ... while", "only do { } while (0) is read")
            self.i += 1
            self.take(")")
            self.take(";")
            return body
        if self.accept("switch"):
            return self.switch(at)
        if self.accept("while"):
            self.take("(")
            cond = self.expr()
            self.take(")")
            return While(cond, self._body("loop"), at)
        if self.is_("break", "continue") and self.peek().text == ";":     # issue 43: in a loop's body
            kind = self.tok.text
            inner = [k for k in getattr(self, "breakable", ()) if kind == "break" or k == "loop"]
            if not inner or inner[-1] != "loop":
                self.fail(f"{kind};", "only in a loop's body (a switch's break ends its case group)")
            self.i += 2
            return Jump(kind, at)
        if self.is_("using") and self.peek().text == "namespace":    # using namespace AscendC; in a body
            while not self.accept(";"):
                if self.tok.kind == "eof":
                    self.fail("using namespace", "not closed by ;")
                self.i += 1
            return Block((), at)
        if self.is_("using") and self.peek(2).text == "=":     # using OpDag = Dag<T>::OpDag;
            self.i += 1
            name = self.ident()
            self.take("=")
            alias = Alias(name, (), self.targ(), at)
            self.take(";")
            return alias
        if self.accept("return"):
            x = None if self.is_(";") else self.expr()
            self.take(";")
            return Return(x, at)
        if self.tok.kind == "id" and self.peek().text == "{" and self.tok.text.startswith("__"):
            name = self.ident()
            return Scoped(name, self.block(), at)
        if self.tok.kind == "id" and self.tok.text in KEYWORDS and self.tok.text != "this":
            self.fail(self.tok.text)
        s = self.simple()
        self.take(";")
        return s

    def switch(self, at):
        self.take("(")
        subject = self.expr()
        self.take(")")
        if _changes(subject):
            self.fail("a switch on an expression with a side effect", "its value is compared once per case")
        self.take("{")
        groups, labels = [], []       # groups: (labels or None for default, statements, at)
        while not self.accept("}"):
            label_at = self.at()
            if not labels:
                group_at = label_at
            if self.accept("case"):
                labels.append(self.expr())
                self.take(":")
                continue
            if self.accept("default"):
                self.take(":")
                labels.append(None)
                continue
            if not labels:
                self.fail("a statement before the switch's first case label")
            stmts, ended = [], False
            while not self.is_("case", "default", "}"):
                if ended:
                    self.fail("a statement after break", "unreachable code in a switch is not read")
                if self.is_("break") and self.peek().text == ";":
                    self.i += 2
                    ended = True
                    continue
                if self.is_("{"):               # case 2: { ...; break; }
                    block_at = self.at()
                    self.i += 1
                    inner = []
                    while not self.accept("}"):
                        if self.is_("break") and self.peek().text == ";" and self.peek(2).text == "}":
                            self.i += 2
                            ended = True
                            continue
                        inner.append(self._body("switch"))
                    stmts.append(Block(tuple(inner), block_at))
                    ended = ended or bool(inner) and isinstance(inner[-1], Return)
                    continue
                stmts.append(self._body("switch"))
                ended = isinstance(stmts[-1], Return)
            if not ended and not self.is_("}"):
                raise KernelSourceError(group_at[0], group_at[1], "a case group falling into the next "
                                        f"(line {self.tok.line})", "end each group with break; or return")
            groups.append((tuple(labels), Block(tuple(stmts), group_at), group_at))
            labels = []
        if labels:
            groups.append((tuple(labels), Block((), at), at))
        chain = None
        for labels, body, gat in ([g for g in groups if None in g[0]] + [g for g in reversed(groups)
                                                                          if None not in g[0]]):
            if None in labels:
                chain = body
                continue
            cond = None
            for label in labels:
                test = Binary("==", subject, label, gat)
                cond = test if cond is None else Binary("||", cond, test, gat)
            chain = If(cond, False, body, chain, gat)
        return chain if chain is not None else Block((), at)

    def _body(self, kind):
        """A statement inside a loop's body or a switch's case group (what break and continue leave)."""
        stack = self.__dict__.setdefault("breakable", [])
        stack.append(kind)
        try:
            return self.statement()
        finally:
            stack.pop()

    def simple(self):
        """A declaration or an expression statement, without its ``;``."""
        decl = self.try_decl()
        at = self.at()
        return decl if decl is not None else ExprStmt(self.expr(), at)

    def try_decl(self):
        start, at = self.i, self.at()
        try:
            t = self.type()
            if self.tok.kind != "id" or self.peek().text not in ("=", ";", ",", "(", "{", "["):
                raise KernelSourceError("", 0, "")
        except TooDeep:
            raise
        except KernelSourceError:
            self.i = start
            return None
        names = []
        while True:
            ident, init, ctor = self.ident(), None, None
            while self.accept("["):              # an array: int64_t dims[8]; float c[] = {...}
                if not self.is_("]"):
                    self.expr()
                self.take("]")
            if self.accept("="):
                init = self.expr()
            elif self.is_("(", "{"):
                close = ")" if self.take("(", "{").text == "(" else "}"
                ctor = []
                while not self.accept(close):
                    ctor.append(self.expr())
                    if not self.is_(close):
                        self.take(",")
                ctor = tuple(ctor)
            names.append((ident, init, ctor))
            if not self.accept(","):
                return Decl(t, tuple(names), at)


def _changes(node) -> bool:
    """Whether an expression assigns or counts (``x++``, ``x = 1``, ``x += 1``)."""
    if isinstance(node, Unary) and node.op in ("++", "--", "post++", "post--"):
        return True
    if isinstance(node, Binary) and node.op.endswith("=") and node.op not in ("==", "!=", "<=", ">="):
        return True
    children = getattr(node, "__dict__", {}).values()
    return any(_changes(c) for c in children if hasattr(c, "__dataclass_fields__")) or any(
        _changes(x) for c in children if isinstance(c, tuple) for x in c if hasattr(x, "__dataclass_fields__"))

"""The statements of the kernels' C++ subset: blocks, declarations, if, for, while, return."""
from __future__ import annotations

from .errors import KernelSourceError, TooDeep
from .parser import KEYWORDS, Parser, nested
from .syntax import Alias, Block, Decl, ExprStmt, For, If, Return, Scoped, While

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
            return For(init, cond, tuple(step), self.statement(), at)
        if self.accept("while"):
            self.take("(")
            cond = self.expr()
            self.take(")")
            return While(cond, self.statement(), at)
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

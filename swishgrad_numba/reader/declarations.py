"""File-level C++: namespaces, templates, classes and structs, functions, aliases, constants.

:func:`parse_file` turns a preprocessed file into its list of declarations
(:mod:`.syntax`); the kernels' statements are :mod:`.parser`'s.
"""
from __future__ import annotations

from .errors import KernelSourceError, TooDeep
from .limits import MAX_NESTING, MAX_TREE_DEPTH
from .statements import StatementParser as Parser
from .syntax import Alias, ClassDef, Decl, Enum, ExprStmt, Function, Name, Namespace, Param, TParam, Type

__all__ = ["parse_file"]


def parse_file(tokens) -> tuple:
    """The declarations of one preprocessed file (none nested past :data:`.limits.MAX_TREE_DEPTH`)."""
    p = Parser(_without_hints(tokens))
    items = _items(p, end="eof")
    _check_depth(items)
    return items


def _without_hints(tokens) -> list:
    """``tokens`` without the compiler hints that change no value the reader computes (issue 43):
    ``__attribute__((aligned(N)))`` (a struct's alignment: its fields' offsets stay), a SIMT launch
    hint ``__launch_bounds__(N)`` and ``__restrict__``. Any other ``__attribute__`` (``packed`` moves fields) is refused."""
    out, i = [], 0
    while i < len(tokens):
        t = tokens[i]
        if t.kind == "id" and t.text in ("__restrict__", "__restrict"):      # an aliasing promise
            i += 1
            continue
        if t.kind == "id" and t.text in ("__attribute__", "__launch_bounds__") and tokens[i + 1].text == "(":
            depth, j = 0, i + 1
            while tokens[j].kind != "eof":
                depth += tokens[j].text == "("
                depth -= tokens[j].text == ")"
                j += 1
                if depth == 0:
                    break
            if depth:
                raise KernelSourceError(t.file, t.line, t.text, "its parentheses are not closed")
            inner = [x.text for x in tokens[i + 2:j - 1]]
            if t.text == "__attribute__" and not (inner[:3] == ["(", "aligned", "("] and inner[-2:] == [")", ")"]):
                raise KernelSourceError(t.file, t.line, f"__attribute__(({' '.join(inner[1:-1])}))",
                                        "only __attribute__((aligned(N))) is read (others may move fields)")
            i = j
            continue
        out.append(t)
        i += 1
    return out


def _check_depth(items):
    """Refuse a syntax tree deeper than :data:`.limits.MAX_TREE_DEPTH` (walked without recursion)."""
    work = [(item, 1, ("", 0)) for item in items]
    while work:
        node, depth, at = work.pop()
        if isinstance(node, (tuple, list)):
            work.extend((x, depth, at) for x in node)
            continue
        if not hasattr(node, "__dataclass_fields__"):
            continue
        at = getattr(node, "at", at) or at
        if depth > MAX_TREE_DEPTH:
            raise KernelSourceError(at[0], at[1], "an expression or statement",
                                    f"nested more than {MAX_TREE_DEPTH} deep (a sum of n terms is n deep)")
        work.extend((getattr(node, f), depth + 1, at) for f in node.__dataclass_fields__ if f != "at")


def _items(p: Parser, end: str) -> tuple:
    items = []
    while not (p.tok.kind == "eof" if end == "eof" else p.is_("}")):
        item = _item(p)
        if item is not None:
            items.append(item)
    return tuple(items)


def _item(p: Parser):
    p.depth += 1
    try:
        if p.depth > MAX_NESTING:
            raise TooDeep(p.tok.file, p.tok.line, f"{p.tok.text or 'end of file'!r}",
                          f"declarations nested more than {MAX_NESTING} deep")
        return _declaration(p)
    finally:
        p.depth -= 1


def _declaration(p: Parser):
    at = p.at()
    if p.accept(";"):
        return None
    if p.accept("namespace"):
        name = p.ident() if p.tok.kind == "id" else ""
        p.take("{")
        items = _items(p, "}")
        p.take("}")
        return Namespace(name, items, at)
    if p.is_("using") and p.peek().text == "namespace":
        p.i += 2
        p.name()
        p.take(";")
        return None
    if p.is_("extern") and p.peek().kind == "str":
        p.i += 2
        return None
    tparams = _template_params(p)
    if p.is_("using") and p.peek(2).text != "=":      # using A::B;  (a using-declaration)
        p.i += 1
        p.name()
        p.take(";")
        return None
    if p.accept("using"):
        name = p.ident()
        p.take("=")
        t = p.targ()
        p.take(";")
        return Alias(name, tparams, t, at)
    if p.is_("enum"):
        return _enum(p, at)
    if p.is_("struct", "class") and p.peek().kind == "id" and p.peek(2).text == ";":   # a declaration
        p.i += 3
        return None
    if p.is_("struct", "class") and p.peek().kind == "id" and p.peek(2).text in ("{", ":", "<") \
            or p.is_("struct", "class") and p.peek(2).text == "final":
        return _class(p, tparams, at)
    if p.tok.kind == "id" and p.peek().text == "(":       # a macro at file level: ASCENDC_TPL_ARGS_DECL(...)
        stmt = ExprStmt(p.expr(), at)
        p.accept(";")
        return stmt
    return _function_or_variable(p, tparams, at)


def _template_params(p: Parser) -> tuple:
    """A declaration's template parameters: ``template <...> template <...>`` (a member template defined
    outside its class template) gives the class's then the member's (issue 43)."""
    params = ()
    while p.is_("template") and p.peek().text == "<":
        params += _template_header(p)
    return params


def _template_header(p: Parser) -> tuple:
    p.take("template")
    p.take("<")
    params = []
    while not p.accept(">"):
        if p.is_("typename", "class"):
            p.i += 1
            p.accept("...")
            name = p.ident()
            default = p.targ() if p.accept("=") else None
            params.append(TParam("type", name, None, default))
        else:
            t = p.type()
            if p.is_("("):
                p.fail("a pointer-to-member template parameter", "not in the C++ subset the reader knows")
            if p.tok.kind != "id":      # template <REDUCE_TPL_PARAM>: a macro from a header not in the folder
                p.fail(f"template parameter {t.name.text()}", "a parameter without a name (a macro the kernel's "
                       "sources do not define?)")
            name = p.ident()
            default = p.expr(no_gt=True) if p.accept("=") else None
            params.append(TParam("value", name, t, default))
        p.accept(",")
    return tuple(params)


def _enum(p: Parser, at):
    p.take("enum")
    p.accept("class", "struct")
    name = p.ident()
    if p.accept(":"):
        p.type()
    p.take("{")
    items = []
    while not p.accept("}"):
        ident = p.ident()
        items.append((ident, p.expr() if p.accept("=") else None))
        p.accept(",")
    p.take(";")
    return Enum(name, tuple(items), at)


def _class(p: Parser, tparams, at) -> ClassDef:
    p.take("struct", "class")
    name = p.ident()
    spec = p.maybe_targs()
    if spec is None and p.accept("<"):          # struct IsBf16<bfloat16_t> : std::true_type: a specialization
        spec = []
        while not p.accept(">"):
            spec.append(p.targ())
            if p.is_("..."):
                p.fail("a pack expansion (...)", "variadic templates are not read")
            if not p.is_(">"):
                p.take(",")
        spec = tuple(spec)
    p.accept("final")
    bases = []
    if p.accept(":"):
        while True:
            p.accept("public", "private", "protected")
            bases.append(p.type())
            if not p.accept(","):
                break
    p.take("{")
    fields, methods, aliases = [], [], []
    while not p.accept("}"):
        if p.is_("public", "private", "protected") and p.peek().text == ":":
            p.i += 2
            continue
        if _is_constructor(p, name, "~"):
            _destructor(p, name)
            continue
        item = _item(p) if not _is_constructor(p, name) else _constructor(p, name)
        if isinstance(item, Function):
            methods.append(item)
        elif isinstance(item, Decl):
            fields.append(item)
        elif isinstance(item, Alias):
            aliases.append(item)
    p.take(";")
    return ClassDef(name, tparams, tuple(bases), tuple(fields), tuple(methods), tuple(aliases), at, spec)


def _is_constructor(p: Parser, cls: str, tilde: str = "") -> bool:
    """Whether a constructor (a destructor, with ``tilde`` "~") of ``cls`` starts at the cursor."""
    j = p.i
    while j + 2 < len(p.toks) and p.toks[j].text in ("__aicore__", "inline", "explicit", "constexpr", "virtual"):
        j += 1
    if tilde:
        if p.toks[j].text != tilde:
            return False
        j += 1
    return j + 1 < len(p.toks) and p.toks[j].text == cls and p.toks[j + 1].text == "("


def _destructor(p: Parser, cls: str):
    """``~Kernel() = default;`` or ``~Kernel() {}``: nothing runs when the object's scope ends (issue 43). A
    destructor with statements is refused: the reader does not run code at a scope's end."""
    at = p.at()
    while not p.accept("~"):
        p.i += 1
    p.ident()
    p.take("(")
    p.accept("void")
    p.take(")")
    while p.is_("override", "noexcept", "final"):
        p.i += 1
    if p.accept("="):
        p.take("default", "delete")
        p.take(";")
        return
    body = p.block()
    if body.stmts:
        raise KernelSourceError(at[0], at[1], f"destructor ~{cls} with statements",
                                "code run at the end of an object's scope is not read")
    p.accept(";")


def _constructor(p: Parser, cls: str) -> Function:
    at, specs = p.at(), []
    while not p.is_(cls):
        specs.append(p.ident())
    p.ident()
    params = _params(p)
    if p.accept("="):                      # = default / = delete
        p.ident()
        p.take(";")
        return Function(Name(((cls, None),), at), (), None, params, None, tuple(specs), at)
    if p.accept(":"):                      # a member initializer list: its members are set in Init anyway
        while True:
            p.ident()
            p.take("(", "{")
            depth = 1
            while depth:
                if p.tok.kind == "eof":
                    p.fail("a member initializer", "not closed")
                depth += p.tok.text in ("(", "{")
                depth -= p.tok.text in (")", "}")
                p.i += 1
            if not p.accept(","):
                break
    body = p.block() if p.is_("{") else p.take(";") and None
    return Function(Name(((cls, None),), at), (), None, params, body, tuple(specs), at)


def _params(p: Parser) -> tuple:
    p.take("(")
    params = []
    while not p.accept(")"):
        if p.is_("void") and p.peek().text == ")":       # f(void)
            p.i += 1
            continue
        p.skip_attributes()
        t = p.type()
        if p.is_("(") and p.peek().text == "&":      # const int64_t (&dims)[N]: a reference to an array
            p.i += 2
            t = Type(t.name, t.quals, t.ptr + "&", t.at)
            name = p.ident()
            p.take(")")
        else:
            name = p.ident() if p.tok.kind == "id" else ""
        array = "&" if t.ptr.endswith("&") else "*"     # (&dims)[N] stays a reference to the array
        while p.accept("["):                            # GM_ADDR inputs[N]: an array parameter (issue 43)
            if not p.is_("]"):
                p.expr()
            p.take("]")
            t = Type(t.name, t.quals, t.ptr + "*", t.at) if array == "*" else t
            array = "&"
        params.append(Param(t, name, p.expr() if p.accept("=") else None))
        p.accept(",")
    return tuple(params)


def _function_or_variable(p: Parser, tparams, at):
    t = p.type()
    if p.tok.kind == "id" and _declares_function(p):
        name = p.name()
        params = _params(p)
        while p.is_("const", "override", "noexcept"):
            p.i += 1
        if p.is_("{") and _launches_kernel(p):
            return None         # a host-launch stub (kernel<<<blocks, l2ctrl, stream>>>(...)): host code
        body = p.block() if p.is_("{") else None
        p.accept(";")
        return Function(name, tparams, t, params, body, t.quals, at)
    names, dims = [], []
    while True:
        ident, init = p.ident(), None
        bounds = []
        while p.accept("["):                 # an array field: uint64_t shape[8]; float c[] = {...}
            bounds.append(p.expr() if not p.is_("]") else None)
            p.take("]")
        dims.append(tuple(bounds))
        if p.accept("="):
            init = p.expr()
        elif p.is_("{"):
            init = p.primary()
        names.append((ident, init, None))
        if not p.accept(","):
            break
    p.take(";")
    return Decl(t, tuple(names), at, tparams, tuple(dims) if any(dims) else ())


def _declares_function(p: Parser) -> bool:
    """After a type: a (qualified) name then ``(`` declares a function."""
    start = p.i
    try:
        p.name()
        return p.is_("(")
    except TooDeep:
        raise
    except Exception:       # noqa: BLE001 (a failed look-ahead)
        return False
    finally:
        p.i = start


def _launches_kernel(p: Parser) -> bool:
    """Whether the body at ``p`` (its ``{``) launches a kernel (``<<<``); if so, the body is skipped."""
    depth, j, launch = 0, p.i, False
    while j < len(p.toks) and p.toks[j].kind != "eof":
        t = p.toks[j]
        if t.kind == "op":
            depth += t.text == "{"
            depth -= t.text == "}"
            launch = launch or t.text == "<<" and p.toks[j + 1].text == "<"
            if depth == 0:
                break
        j += 1
    if launch and depth == 0:
        p.i = j + 1
    return launch and depth == 0

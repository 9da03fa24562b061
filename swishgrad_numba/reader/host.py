"""An operator's ``op_host`` folder: the tiling struct it declares, the op definition, the attribute fields.

Read token by token (:mod:`.lexer`; the host's C++ is not parsed, its directives are skipped):

* the struct: ``BEGIN_TILING_DATA_DEF(Name)``, ``TILING_DATA_FIELD_DEF(type, name);`` ...,
  ``END_TILING_DATA_DEF;`` and ``REGISTER_TILING_DATA_CLASS(OpName, Name)``. It becomes a C struct of
  those fields in that order (what the kernel side's ``GET_TILING_DATA`` is given), laid out as the C
  compiler lays it out. An array field (``TILING_DATA_FIELD_DEF_ARR(type, N, name)``, N a literal or an
  op_host ``constexpr``) is N elements (:mod:`.tiling_arrays`); a struct field
  (``TILING_DATA_FIELD_DEF_STRUCT``) is refused: the kernel side does not read them yet.
* the op definition (``class AddCustom : public OpDef``): each ``this->Input("x")``,
  ``this->Output("z")`` with its ``ParamType`` and ``DataType({ge::DT_FLOAT, ...})``, and each
  ``this->Attr("alpha").AttrType(OPTIONAL).Float(1.0)`` with its kind and default.
* which tiling field carries which attribute: a ``tiling.set_<field>(v)`` (or ``*v``) where ``v`` was
  given by ``GetAttrPointer<T>(i)``, ``GetFloat(i)``, ``GetInt(i)`` or ``GetBool(i)`` of attribute ``i``.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from .errors import KernelSourceError
from .lexer import Token, tokenize
from .source import read_regular

__all__ = ["HostSide", "OpDefinition", "read_op_host", "struct_items", "GE_DTYPES"]

#: ``ge::DataType`` names -> the dtypes the package names (others are kept as written).
GE_DTYPES = {"DT_FLOAT": "float32", "DT_FLOAT16": "float16", "DT_BF16": "bfloat16"}
_SUFFIXES = (".h", ".hpp", ".cpp", ".cc")
_MAX_FILES = 64
_ATTR_GETTERS = ("GetAttrPointer", "GetFloat", "GetInt", "GetBool")


@dataclass(frozen=True)
class OpDefinition:
    """The op definition: ``name``; ``inputs`` and ``outputs`` as ((name, param type, dtypes), ...);
    ``attrs`` as ((name, kind, required, default), ...) (default None where required); ``at``."""

    name: str
    inputs: tuple = ()
    outputs: tuple = ()
    attrs: tuple = ()
    at: tuple = field(default=("", 0), compare=False)

    def dtypes(self) -> tuple:
        """The dtypes every input lists (in the first input's order), as the package names them."""
        lists = [d for _, _, d in self.inputs if d]
        # an input that is 1-byte in every combination (a uint8 mask: .byte_tensors) does not pick the dtype
        lists = [d for d in lists if not set(d) <= {"DT_UINT8", "DT_INT8", "DT_BOOL"}] or lists
        return tuple(d for d in lists[0] if all(d in other for other in lists)) if lists else ()


@dataclass(frozen=True)
class HostSide:
    """What ``op_host`` declares: ``structs`` name -> ((field, C type, (file, line)), ...) and the
    struct's (file, line); ``registered`` op name -> (struct, (file, line)); ``definition`` (or None);
    ``attr_fields`` tiling field -> attribute index, as the tiling function sets them."""

    folder: str
    structs: dict
    registered: dict
    definition: OpDefinition | None
    attr_fields: dict
    function: tuple = ()          # the tiling function's tokens (and an eof), () where none is found
    constants: tuple = ()         # the file-level constant declarations' tokens, each with an eof

    def tiling_function(self):
        """(the tiling function parsed, the symbols it sees: the structs and the file-level constants);
        None where op_host has none. KernelSourceError where it cannot be parsed, saying to pass tiling=."""
        if not self.function:
            return None
        from .declarations import parse_file
        from .host_eval import PASS_TILING
        from .symbols import Symbols
        from .syntax import Function

        symbols = Symbols()
        for name, (fields, at) in self.structs.items():
            symbols.add(struct_items(name, fields, at))
        for toks in self.constants:
            try:
                symbols.add(parse_file(list(toks)))
            except KernelSourceError:
                continue                # not a declaration the reader parses: left out
        try:
            items = parse_file(list(self.function))
        except KernelSourceError as exc:
            raise KernelSourceError(exc.file, exc.line, exc.construct,
                                    f"{exc.detail}; {PASS_TILING}" if exc.detail else PASS_TILING) from None
        fns = [f for f in items if isinstance(f, Function) and f.body is not None]
        if len(fns) != 1:
            t = self.function[0]
            raise KernelSourceError(t.file, t.line, "the host's tiling function", f"not a function; {PASS_TILING}")
        return fns[0], symbols

    def struct_for(self, kernel_name: str):
        """(struct name, (file, line)) registered for the kernel ``add_custom`` (op ``AddCustom``); the
        only one registered where there is one; else None."""
        op = "".join(w[:1].upper() + w[1:] for w in kernel_name.split("_"))
        for key in (op, kernel_name):
            if key in self.registered:
                return self.registered[key]
        names = {s for s, _ in self.registered.values()}
        if len(names) == 1:
            return next(iter(self.registered.values()))
        if not self.registered and len(self.structs) == 1:
            name, (_, at) = next(iter(self.structs.items()))
            return name, at
        return None


def _refuse(tok, construct, detail):
    raise KernelSourceError(tok.file, tok.line, construct, detail)


def read_op_host(folder, arch35: bool = False) -> HostSide:
    """Read the ``op_host`` folder's headers and sources (``.h``, ``.hpp``, ``.cpp``, ``.cc``; regular files
    only, at most 64), and with ``arch35`` (a 950 entry's host) those of ``op_host/arch35/`` too, where the
    950's tiling structs are declared; KernelSourceError, with file and line, for a struct it cannot lay out."""
    folder = Path(folder)
    files = sorted(p for p in folder.iterdir() if p.suffix in _SUFFIXES)
    sub = folder / "arch35"
    if arch35 and sub.is_dir() and not sub.is_symlink():
        files += sorted(p for p in sub.iterdir() if p.suffix in _SUFFIXES)
    if len(files) > _MAX_FILES:
        raise KernelSourceError(str(folder), 0, "the op_host folder", f"more than {_MAX_FILES} source files")
    structs, registered, definition, attr_fields, setting, texts = {}, {}, None, {}, "TilingFunc", []
    for path in files:
        toks = [t for t in tokenize(read_regular(path), str(path)) if t.kind != "pp"]
        texts.append(toks)
        i = 0
        while i < len(toks):
            t = toks[i]
            if t.kind == "id" and t.text == "BEGIN_TILING_DATA_DEF":
                name, i = _struct(toks, i, structs)
                continue
            if t.kind == "id" and t.text == "REGISTER_TILING_DATA_CLASS":
                args, i = _args(toks, i + 1, t)
                if len(args) != 2 or any(len(a) != 1 or a[0].kind != "id" for a in args):
                    _refuse(t, "REGISTER_TILING_DATA_CLASS", "expected (OpName, StructName)")
                registered[args[0][0].text] = (args[1][0].text, (t.file, t.line))
                continue
            if t.kind == "id" and t.text == "OpDef" and definition is None:
                definition = _definition(toks, i)
            if t.text == "SetTiling" and i + 1 < len(toks) and toks[i + 1].text == "(":
                args, _ = _args(toks, i + 1, t)
                if len(args) == 1 and args[0] and args[0][-1].kind == "id":
                    setting = args[0][-1].text
            if t.kind == "op" and t.text == "." and i + 1 < len(toks) and toks[i + 1].text.startswith("set_"):
                _setter(toks, i + 1, attr_fields)
            i += 1
    for op, (name, at) in registered.items():
        if name not in structs:
            raise KernelSourceError(*at, f"REGISTER_TILING_DATA_CLASS({op}, {name})",
                                    f"no BEGIN_TILING_DATA_DEF({name}) in {folder.name}")
    function, constants = (), []
    for toks in texts:
        constants += _constants(toks)
        function = function or _function(toks, setting)
    if definition is not None:
        attrs = tuple((n, k, r, _default(d, k, constants) if isinstance(d, tuple) else d)
                      for n, k, r, d in definition.attrs)
        definition = OpDefinition(definition.name, definition.inputs, definition.outputs, attrs, definition.at)
    return HostSide(str(folder), structs, registered, definition, attr_fields, function, tuple(constants))


def _default(tokens, kind, constants):
    """An attribute's default written as an expression (``1.0f / 6.0``, ``DEFAULT_ALPHA``), evaluated as C
    does over op_host's file-level constants; None (unknown: the attribute must then be given) where it
    cannot be."""
    from .declarations import parse_file
    from .machine import Machine
    from .symbols import Symbols
    from .values import CNum

    f, ln = tokens[0].file, tokens[0].line
    symbols = Symbols()
    for toks in constants:
        try:
            symbols.add(parse_file(list(toks)))
        except KernelSourceError:
            continue
    ctype = "double" if kind == "float" else "int64_t"
    head = [Token("id", "const", f, ln), Token("id", ctype, f, ln), Token("id", "attr_default_", f, ln),
            Token("op", "=", f, ln)]
    try:
        symbols.add(parse_file(head + list(tokens) + [Token("op", ";", f, ln), Token("eof", "", f, ln)]))
        value = Machine(symbols).constant(tokens[0], "attr_default_")
    except (KernelSourceError, RecursionError):
        return None
    if not isinstance(value, CNum):
        return None
    return float(value.value) if kind == "float" else int(value.value) if kind == "int" else bool(value.value)


def _function(toks, name) -> tuple:
    """The tokens of the definition of function ``name`` (from the start of its declaration to its
    closing brace, and an eof); () where ``toks`` define none."""
    for i, t in enumerate(toks):
        if t.text != name or i + 1 >= len(toks) or toks[i + 1].text != "(":
            continue
        _, j = _args(toks, i + 1, t)
        if j >= len(toks) or toks[j].text != "{":
            continue
        start = i
        while start > 0 and toks[start - 1].text not in (";", "}", "{"):
            start -= 1
        depth = 0
        for k in range(j, len(toks)):
            depth += (toks[k].text == "{") - (toks[k].text == "}")
            if depth == 0:
                end = toks[k]
                return tuple(toks[start:k + 1]) + (Token("eof", "", end.file, end.line),)
        _refuse(t, f"function {name}", "its body is not closed")
    return ()


def _constants(toks) -> list:
    """The ``const`` / ``constexpr`` declarations outside any function or class (inside namespaces)."""
    out, stack, i = [], [], 0
    while i < len(toks):
        t = toks[i]
        if t.text == "{":
            stack.append(toks[i - 2].text == "namespace" or toks[i - 1].text == "namespace" if i >= 2 else False)
        elif t.text == "}" and stack:
            stack.pop()
        elif t.text in ("const", "constexpr", "static") and all(stack) and \
                (i == 0 or toks[i - 1].text in (";", "}", "{")):
            j = i
            while j < len(toks) and toks[j].text not in (";", "{", "(") and toks[j].kind != "eof":
                j += 1
            if j < len(toks) and toks[j].text == ";":
                out.append(tuple(toks[i:j + 1]) + (Token("eof", "", t.file, t.line),))
                i = j
        i += 1
    return out


def _args(toks, i, at):
    """The comma-separated arguments of the parenthesised list at ``toks[i]`` (token lists), and the
    index after its ``)``."""
    if i >= len(toks) or toks[i].text != "(":
        _refuse(at, at.text, "expected its arguments in parentheses")
    depth, args, cur = 0, [], []
    for j in range(i, len(toks)):
        t = toks[j]
        if t.text in ("(", "{", "["):
            depth += 1
            if depth == 1:
                continue
        elif t.text in (")", "}", "]"):
            depth -= 1
            if depth == 0:
                args.append(cur)
                return [a for a in args if a], j + 1
        elif t.text == "," and depth == 1:
            args.append(cur)
            cur = []
            continue
        if t.kind == "eof":
            break
        cur.append(t)
    _refuse(at, at.text, "its arguments are not closed")


def _struct(toks, i, structs):
    begin = toks[i]
    args, i = _args(toks, i + 1, begin)
    if len(args) != 1 or len(args[0]) != 1 or args[0][0].kind != "id":
        _refuse(begin, "BEGIN_TILING_DATA_DEF", "expected one struct name")
    name, fields = args[0][0].text, []
    if name in structs:
        _refuse(begin, f"BEGIN_TILING_DATA_DEF({name})", "the struct is declared twice")
    while i < len(toks) and toks[i].text != "END_TILING_DATA_DEF":
        t = toks[i]
        if t.text == ";":
            i += 1
            continue
        if t.text == "TILING_DATA_FIELD_DEF_STRUCT":
            _refuse(t, f"{t.text} in {name}", "a struct field, which the kernel side does not read yet")
        if t.text == "TILING_DATA_FIELD_DEF_ARR":            # (type, N, name): N elements (.tiling_arrays)
            args, i = _args(toks, i + 1, t)
            if len(args) != 3 or len(args[2]) != 1 or args[2][0].kind != "id" or len(args[1]) != 1 or \
                    not all(a.kind == "id" for a in args[0]):
                _refuse(t, "TILING_DATA_FIELD_DEF_ARR", "expected (type, count, name)")
            n = _count(toks, args[1][0])
            fields.append((args[2][0].text, f"{' '.join(a.text for a in args[0])}[{n}]", (t.file, t.line)))
            continue
        if t.text != "TILING_DATA_FIELD_DEF":
            _refuse(t, f"{t.text!r} in BEGIN_TILING_DATA_DEF({name})", "expected TILING_DATA_FIELD_DEF or "
                    "END_TILING_DATA_DEF")
        args, i = _args(toks, i + 1, t)
        if len(args) != 2 or len(args[1]) != 1 or args[1][0].kind != "id" or \
                not all(a.kind == "id" for a in args[0]):
            _refuse(t, "TILING_DATA_FIELD_DEF", "expected (type, name)")
        fields.append((args[1][0].text, " ".join(a.text for a in args[0]), (t.file, t.line)))
    if i >= len(toks):
        _refuse(begin, f"BEGIN_TILING_DATA_DEF({name})", "no END_TILING_DATA_DEF")
    structs[name] = (tuple(fields), (begin.file, begin.line))
    return name, i + 1


def _count(toks, tok) -> int:
    """An array field's count: an integer literal, or a ``constexpr`` integer of op_host set to one."""
    from .values import number

    text = tok.text
    if tok.kind == "id":
        for j in range(len(toks) - 3):
            if toks[j].text == text and toks[j + 1].text == "=" and toks[j + 3].text == ";" and j > 0 and \
                    toks[j - 1].kind == "id" and toks[j + 2].kind == "num":
                text = toks[j + 2].text
                break
    try:
        n = number(text)
    except ValueError:
        n = None
    if n is None or n.ctype in ("float", "double") or not 0 < n.value <= 1 << 16:
        _refuse(tok, f"TILING_DATA_FIELD_DEF_ARR count {tok.text}", "not an integer literal from 1 to 65536, nor a "
                "constant of op_host set to one")
    return n.value


def struct_items(name: str, fields: tuple, at: tuple) -> tuple:
    """The struct as the C declarations the kernel side is given (``struct Name { type field; ... };``),
    parsed, each field at its ``TILING_DATA_FIELD_DEF`` line."""
    from .declarations import parse_file

    file, line = at
    toks = [Token("id", "struct", file, line), Token("id", name, file, line), Token("op", "{", file, line)]
    for fname, ctype, (f, ln) in fields:
        base, _, count = ctype.partition("[")          # an array field: type name[N];
        toks += [Token("id", w, f, ln) for w in base.split()] + [Token("id", fname, f, ln)]
        if count:
            toks += [Token("op", "[", f, ln), Token("num", count.rstrip("]"), f, ln), Token("op", "]", f, ln)]
        toks.append(Token("op", ";", f, ln))
    toks += [Token("op", "}", file, line), Token("op", ";", file, line), Token("eof", "", file, line)]
    return parse_file(toks)


def _chain(toks, i):
    """The ``.Method(args)`` calls chained after ``toks[i]`` (a closing parenthesis's next), up to ``;``."""
    calls = []
    while i + 1 < len(toks) and toks[i].text == "." and toks[i + 1].kind == "id":
        name = toks[i + 1]
        args, i = _args(toks, i + 2, name)
        calls.append((name.text, args))
    return calls


def _definition(toks, i):
    """The op definition around ``OpDef`` at ``toks[i]`` (``class Name : public OpDef``)."""
    name = toks[i - 3].text if i >= 3 and toks[i - 1].text == "public" and toks[i - 2].text == ":" else ""
    if not name:
        return None
    inputs, outputs, attrs = [], [], []
    depth, j = 0, i + 1
    while j < len(toks):
        t = toks[j]
        depth += t.text == "{"
        depth -= t.text == "}"
        if depth == 0 and t.text == "}":
            break
        if t.text in ("Input", "Output", "Attr") and toks[j - 1].text == "->" and toks[j - 2].text == "this":
            args, k = _args(toks, j + 1, t)
            if len(args) != 1 or len(args[0]) != 1 or args[0][0].kind != "str":
                _refuse(t, f"this->{t.text}(...)", "expected one name in quotes")
            pname, calls = args[0][0].text[1:-1], _chain(toks, k)
            if t.text == "Attr":
                attrs.append(_attr(t, pname, calls))
            else:
                kind = next(("".join(a.text for a in c[1][0]) for c in calls if c[0] == "ParamType" and c[1]),
                            "REQUIRED")
                types = next((tuple(GE_DTYPES.get(a.text, a.text) for arg in c[1] for a in arg
                                    if a.text.startswith("DT_")) for c in calls if c[0] == "DataType"), ())
                (inputs if t.text == "Input" else outputs).append((pname, kind, types))
        j += 1
    return OpDefinition(name, tuple(inputs), tuple(outputs), tuple(attrs), (toks[i].file, toks[i].line))


def _attr(t, name, calls):
    required = any(c == "AttrType" and args and args[0][-1].text == "REQUIRED" for c, args in calls)
    for c, args in calls:
        if c in ("Float", "Int", "Bool"):
            if not args:
                return name, c.lower(), True, None
            text = "".join(a.text for a in args[0]).rstrip("fF") if c == "Float" else "".join(
                a.text for a in args[0])
            try:
                value = {"Float": float, "Int": lambda s: int(s, 0)}[c](text) if c != "Bool" else \
                    {"true": True, "false": False}[text]
            except (ValueError, KeyError):
                value = tuple(args[0])      # an expression: evaluated over the file's constants, or unknown
            return name, c.lower(), required, None if required else value
    return name, "other", required, None


def _setter(toks, i, attr_fields):
    """``tiling.set_<field>(v)``: record the field where ``v`` (or ``*v``) is an attribute's variable."""
    args, _ = _args(toks, i + 1, toks[i]) if i + 1 < len(toks) and toks[i + 1].text == "(" else ([], i)
    names = [a for a in (args[0] if len(args) == 1 else ()) if a.kind == "id"]
    if len(names) != 1 or any(a.kind != "id" and a.text not in "*()" for a in args[0]):
        return
    var = names[0].text
    for j in range(i - 1, -1, -1):       # the variable's last assignment before the call
        if toks[j].text == var and j + 1 < len(toks) and toks[j + 1].text == "=":
            stmt = []
            for t in toks[j + 2:]:
                if t.text == ";":
                    break
                stmt.append(t)
            getter = [k for k, t in enumerate(stmt) if t.text in _ATTR_GETTERS]
            if getter:
                paren = next((k for k in range(getter[-1], len(stmt)) if stmt[k].text == "("), None)
                index = stmt[paren + 1].text.rstrip("uUlL") if paren is not None and paren + 1 < len(stmt) else ""
                if index.isdigit() and len(index) < 4:
                    attr_fields[toks[i].text[4:]] = int(index)
            return

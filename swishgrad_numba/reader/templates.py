"""File-level templates the kernels use as compile-time functions of a type (issue 43):

* a variable template, ``template <typename T> constexpr bool NEEDS_CAST = std::is_same_v<T, half>;``,
  read as ``NEEDS_CAST<T>``;
* an alias (template), ``using CT = float;`` or ``template <typename T> using CT = std::conditional_t<...>;``,
  read as ``CT`` or ``CT<T>`` where it names a scalar type.

Each is evaluated in the file's scope with its template parameters bound to the arguments written (or their
defaults), once per argument list. An argument missing with no default is refused at the use.
"""
from __future__ import annotations

from .abstract import refuse
from .errors import KernelSourceError
from .objects import GlobalT
from .parser import BUILTIN_TYPES
from .values import CNum, TypeVal, convert

__all__ = ["variable", "alias_type", "class_value", "bind_function", "write_back", "base_env", "specialization"]


def _bind(m, node, tparams, targs, what):
    if len(targs) > len(tparams):
        refuse(node, f"{what} with {len(targs)} template arguments", f"it takes {len(tparams)}")
    env = {}
    for i, tp in enumerate(tparams):
        if i < len(targs):
            env[tp.name] = m.type_or_value(targs[i])
        elif tp.default is not None:
            env[tp.name] = _in_scope(m, env, lambda tp=tp: m.type_or_value(tp.default))
        else:
            refuse(node, f"{what} without its template argument {tp.name}")
    return env


def _in_scope(m, env, thunk):
    """``thunk()`` in the file scope plus ``env`` (no object, no local names)."""
    saved = (m.scopes, m.this)
    m.scopes, m.this = [m.scopes[0], env], None
    try:
        return thunk()
    finally:
        m.scopes, m.this = saved


def _memo(m, node, key, thunk):
    memo = m.__dict__.setdefault("_templates", {})
    try:
        hash(key)
    except TypeError:
        return thunk()
    if memo.get(key, None) is _PENDING:
        refuse(node, f"template {key[1]}", "its definition reads itself")
    if key not in memo:
        memo[key] = _PENDING
        try:
            memo[key] = thunk()
        except BaseException:
            del memo[key]
            raise
    return memo[key]


_PENDING = object()


def variable(m, node, decl):
    """``NAME<args>`` of the variable template ``decl``: its initialiser's value, converted to its type."""
    name = node.last
    init = next(i for n, i, _ in decl.names if n == name)
    if init is None:
        refuse(node, f"variable template {name}", "no initialiser to read its value from")
    env = _bind(m, node, decl.tparams, node.targs, f"variable template {name}")

    def value():
        v = _in_scope(m, env, lambda: m.eval(init))
        if isinstance(v, CNum):
            try:
                v = convert(v, _in_scope(m, env, lambda: m.type_of(decl.type)).cname)
            except ValueError as exc:
                refuse(node, f"variable template {name}", str(exc))
        return v
    return _memo(m, node, ("var", name, tuple(env.items())), value)


def alias_type(m, node, alias):
    """The scalar type or the class of the sources ``alias`` names for ``node``'s template arguments; None
    where it names neither (a DAG's alias, a library class), which the caller reads as before."""
    targs = node.targs or ()
    if len(targs) > len(alias.tparams) or not alias.tparams and node.targs is not None:
        return None
    try:
        env = _bind(m, node, alias.tparams, targs, f"alias {alias.name}")
        t = _memo(m, node, ("alias", alias.name, tuple(env.items())),
                  lambda: _in_scope(m, env, lambda: m.type_of(alias.type)))
    except KernelSourceError:
        return None
    if isinstance(t, TypeVal) and t.cname in m.symbols.classes and not t.owner:
        return t        # a class of the sources (ops-nn selu_grad.h: SeluGradOneDimOp<T>, issue 43)
    return t if isinstance(t, TypeVal) and t.cname in BUILTIN_TYPES else None


def bind_function(m, node, fn, args, env) -> dict:
    """``env`` plus the template parameters of ``fn`` that it does not bind (a member template's own, a
    function template's): the explicit arguments of the call first (``F<half>(...)``), then those deduced
    from the arguments (a ``T``, ``LocalTensor<T>`` or ``GlobalTensor<T>`` parameter), then the defaults. One left unbound is
    refused at the call."""
    own = [tp for tp in fn.tparams if tp.name not in env]
    if not own:
        return env
    explicit = getattr(getattr(node, "fn", None), "targs", None) or ()
    env = dict(env)
    if len(explicit) > len(own):
        refuse(node, f"call {fn.name.last} with {len(explicit)} template arguments", f"it takes {len(own)}")
    for tp, a in zip(own, explicit):
        env[tp.name] = m.type_or_value(a)
    for p, a in zip(fn.params, args):
        _deduce(m, p.type, a, own, env)
    for tp in own:
        if tp.name not in env and tp.default is not None:
            env[tp.name] = _in_scope(m, env, lambda tp=tp: m.type_or_value(tp.default))
        if tp.name not in env:
            refuse(node, f"call {fn.name.last}", f"its template parameter {tp.name} is neither given nor deduced "
                   "from an argument the reader follows")
    return env


def _deduce(m, ptype, arg, own, env):
    """Bind what the parameter type ``ptype`` (a Type) names of ``own`` from the argument value ``arg``."""
    from .abstract import Tensor
    name = getattr(ptype, "name", None)
    if name is None or len(name.segs) != 1:
        return
    names = {tp.name for tp in own if tp.kind == "type"}
    if name.last in names and name.targs is None and name.last not in env:
        if isinstance(arg, CNum):
            env[name.last] = TypeVal(arg.ctype)
        elif isinstance(arg, Tensor):
            env[name.last] = TypeVal("LocalTensor", (_tensor_ctype(m, arg),))
        else:                        # an object (a queue, a buffer): its type names nothing the reader computes
            env[name.last] = TypeVal(type(arg).__name__)
        return
    targs = name.targs or ()
    element = _tensor_ctype(m, arg) if isinstance(arg, Tensor) and name.last == "LocalTensor" else \
        getattr(arg, "ctype", None) if isinstance(arg, GlobalT) and name.last == "GlobalTensor" else None
    if element is not None and len(targs) == 1:
        inner = getattr(targs[0], "name", targs[0])
        if getattr(inner, "segs", None) and len(inner.segs) == 1 and inner.last in names and inner.targs is None \
                and inner.last not in env:
            env[inner.last] = element


def _tensor_ctype(m, tensor) -> TypeVal:
    """The C element type of a local tensor (``uint16_t`` for one the kernel allocated as such)."""
    if tensor.dtype == "int16" and tensor.key in getattr(m, "unsigned16", ()):
        return TypeVal("uint16_t")
    names = {"float32": "float", "float16": "half", "bfloat16": "bfloat16_t", "uint8": "uint8_t",
             "int8": "int8_t", "int16": "int16_t", "int32": "int32_t"}
    return TypeVal(names.get(tensor.dtype, tensor.dtype))


def class_value(m, node, name, targs):
    """``X<args>::value`` of a class template of the sources (a type trait): the specialization whose
    arguments match ``args`` (a full one before a partial one), else the primary template; its ``static
    constexpr ... value`` or its base's (``std::true_type``, ``std::false_type``, ``std::integral_constant<bool,
    v>``, ``std::bool_constant<v>``, another such class of the sources)."""
    args = tuple(m.type_or_value(a) for a in targs)
    found = specialization(m, node, name, args, f"{name}<...>::value")
    if found:
        cls, env = found
    elif name not in m.symbols.classes:         # template <typename T> struct X; only specializations defined
        refuse(node, f"{name}<...>::value", "no specialization matches its arguments and the primary template "
               "is only declared")
    else:
        cls = m.symbols.classes[name]
        env = _bind(m, node, cls.tparams, targs, f"class {name}")
    return _memo(m, node, ("value", name, args), lambda: _in_scope(m, env, lambda: _value_of(m, node, cls)))


def specialization(m, node, name, args, what):
    """The specialization of the class template ``name`` whose arguments match ``args`` (values), a full one
    before a partial one, and its parameters' bindings; None where none matches (``what``: the refusal's
    construct where two match equally)."""
    found = []
    for spec in m.symbols.specializations.get(name, ()):
        env = _match(m, spec, args)
        if env is not None:
            found.append((len(spec.tparams), spec, env))
    found.sort(key=lambda f: f[0])
    if len(found) > 1 and found[0][0] == found[1][0]:
        refuse(node, what, "two specializations match its arguments equally")
    return (found[0][1], found[0][2]) if found else None


def _match(m, spec, args):
    """The bindings of ``spec``'s template parameters under which its arguments are ``args``, or None."""
    if len(spec.spec) != len(args):
        return None
    own, env = {tp.name for tp in spec.tparams}, {}
    for pattern, arg in zip(spec.spec, args):
        inner = getattr(pattern, "name", pattern) if not getattr(pattern, "ptr", "") else None
        if getattr(inner, "segs", None) and len(inner.segs) == 1 and inner.targs is None and inner.last in own:
            if env.setdefault(inner.last, arg) != arg:
                return None
            continue
        if _in_scope(m, env, lambda pattern=pattern: m.type_or_value(pattern)) != arg:
            return None
    return env if len(env) == len(own) else None


def _value_of(m, node, cls):
    for decl in cls.fields:
        for n, init, _ in decl.names:
            if n == "value" and init is not None:
                v = m.eval(init)
                return convert(v, "bool") if isinstance(v, CNum) else v
    for base in cls.bases:
        b = base.name
        if b.last in ("true_type", "false_type"):
            return CNum(int(b.last == "true_type"), "bool")
        if b.last in ("integral_constant", "bool_constant") and b.targs:
            return m.eval(b.targs[-1])
        if b.last in m.symbols.classes and b.targs is not None:
            return class_value(m, node, b.last, b.targs)
    refuse(node, f"{cls.name}<...>::value", "neither a static constexpr value nor a base the reader knows "
           "(std::true_type, std::false_type, std::integral_constant)")


def write_back(m, node, fn, params, args):
    """After a call, each non-const reference parameter (``int64_t& len``) the callee assigned is assigned to
    the caller's argument, as C++ passes it (a helper that sets a kernel's lengths through references);
    an argument that is not a name or member the reader can assign is refused at the call."""
    for i, p in enumerate(fn.params):
        if i >= len(args) or i >= len(getattr(node, "args", ())) or not p.type.ptr.endswith("&") \
                or "const" in p.type.quals or params.get(p.name, args[i]) is args[i]:
            continue
        m.assign(node.args[i], params[p.name], node)


def base_env(m, this, fn, env) -> dict:
    """``env`` for a method ``fn`` of ``this`` that a base class template defines (``class K : public
    Base<K<T>, float>``): the base's template parameters bound to the arguments the derived class gives it
    (evaluated in the derived class's bindings), over ``env``."""
    path = _owner_path(m.symbols, this.cls, fn, 0) if this is not None else None
    for base, cls in path or ():
        targs = base.name.targs or ()
        env = {**env, **_in_scope(m, env, lambda cls=cls, targs=targs: {
            tp.name: m.type_or_value(targs[i]) if i < len(targs) else m.type_or_value(tp.default)
            for i, tp in enumerate(cls.tparams) if i < len(targs) or tp.default is not None})}
    return env


def _owner_path(symbols, cls, fn, depth):
    """The (base type, base class) steps from ``cls`` to the class that defines ``fn``; [] for ``cls``'s own
    method, None where no base in the sources has it."""
    if any(x is fn for x in cls.methods) or symbols.methods.get((cls.name, fn.name.last)) is fn:
        return []
    for base in cls.bases if depth < 16 else ():
        if base.name.last in symbols.classes:
            sub = _owner_path(symbols, symbols.classes[base.name.last], fn, depth + 1)
            if sub is not None:
                return [(base, symbols.classes[base.name.last])] + sub
    return None

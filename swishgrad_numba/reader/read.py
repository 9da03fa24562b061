"""``read_source``: an op_kernel folder read into a :class:`.description.KernelDescription`.

The entry is followed once per dtype and per choice of its non-type template
arguments (``schMode``, ``dType``, ``attrWork``): each ``if constexpr`` on one
of them is taken both ways. Choices that give the same body are one body;
choices that compute differently are variants named by their conditions.
"""
from __future__ import annotations

from pathlib import Path

import re
from dataclasses import replace

from .assemble import assemble
from .bitviews import check_reads
from .byte_views import check_prologue
from .byte_tensors import BYTE_DTYPES, checked_uses
from .tiling_arrays import array_ctype
from .description import KernelDescription, TilingStruct
from .errors import KernelSourceError
from .limits import MAX_PATHS
from .dead_reads import drop as drop_dead_reads
from .launch_branch import located, refuse_empty_way
from .field_paths import neither
from .variant_ways import ways_of
from .local_copy import forward as forward_copies
from .machine import Symbolic
from .preprocess import AICORE_VALUES, DEVICE_GUARD, PLATFORM_DEFINES
from .source import load
from .values import TypeVal
from .split_loads import with_load_lines

__all__ = ["read_source", "DTYPE_CNAMES", "entry_symbols"]

#: The dtypes a kernel is read for, by the C type name the build passes as DTYPE_X.
DTYPE_CNAMES = {"float32": "float", "float16": "half", "bfloat16": "bfloat16_t"}


def read_source(folder, *, entry: str | None = None, name: str | None = None,
                defines: dict | None = None, host=None) -> KernelDescription:
    """Read the element-wise kernel in an op_kernel folder, without a compiler.

    Parameters
    ----------
    folder : path-like
        The op_kernel folder: the entry ``.cpp`` and the local headers it includes.
    entry : str, optional
        The entry file's name, where the folder holds several (``sigmoid.cpp``,
        ``sigmoid_apt.cpp``).
    name : str, optional
        The ``__global__`` function; by default the one named as the file
        (``_apt`` dropped), else the last.
    defines : dict, optional
        Macros for the preprocessor's conditions, name -> value (None: not defined), over
        :data:`.preprocess.DEVICE_DEFINES`: the A2's SoC macros (``__CCE_AICORE__`` 220, ...) unless
        one of them is given; a kernel whose conditions read them and that reads as the 950 DAG style
        (or not at all) with the A2's is read again with the 950's
        (:data:`.preprocess.PLATFORM_DEFINES`), and is the 950 kernel if it then reads as one. A kernel
        whose conditions test the dtype flags (``DTYPE_X``) is read once per dtype with them defined; where
        that build is refused, the build without them is read (ops-nn's 950 kernels keep a unit-test entry
        under ``#ifdef DTYPE_X`` and the device's template entry, its dtype a template argument, under
        ``#else``), and the first refusal stands if that is refused too.
    host : HostSide, optional
        The operator's ``op_host`` (:func:`.host.read_op_host`): its tiling structs are the kernel's
        where the kernel folder does not declare them, and the one registered for the kernel's op is
        what ``GET_TILING_DATA`` gives.

    Returns
    -------
    KernelDescription
        One body per dtype (float32, float16, bfloat16) the kernel computes, per
        tiling-key variant where the entry chooses between different Computes.

    Raises
    ------
    KernelSourceError
        For what the reader does not read faithfully, with its file, line and construct.
    """
    defines = _checked_defines(defines)
    try:
        return _read_for_platform(folder, entry, name, defines, host)
    except RecursionError:       # a last resort: the limits of .limits are meant to refuse first
        raise KernelSourceError(str(folder), 0, "the kernel's sources", "nested too deep for the reader") from None


def _read_for_platform(folder, entry, name, defines, host):
    consulted = set()
    try:
        d, err = _read(_with_host(load(folder, entry, defines, consulted, _root(folder, host)), host), name), None
    except KernelSourceError as exc:
        d, err = None, exc
    flags = sorted(n for n in consulted if _DTYPE_FLAG.fullmatch(n) and n not in defines)
    if flags:
        try:
            return _per_dtype(folder, entry, name, defines, host, flags)
        except KernelSourceError as exc:       # issue 43: the build without them (a 950 template entry's)
            build = {**defines, **dict.fromkeys(flags)}
            try:
                d = _read_for_platform(folder, entry, name, build, host)
            except KernelSourceError:
                raise exc from None
            return d if d.builds else replace(d, builds={b.dtype: build for b in d.bodies})   # the schedule's
    soc = set(PLATFORM_DEFINES["950"])
    if consulted & soc and not defines.keys() & soc and (err is not None or d.style == "dag"):
        try:        # a 950 kernel: its conditions read again with the 950's macros
            d950 = _read(_with_host(load(folder, entry, {**PLATFORM_DEFINES["950"], **defines}, None,
                                         _root(folder, host)), host), name)
        except KernelSourceError:
            d950 = None
        if d950 is not None and d950.style == "dag":
            return d950
        if err is None:
            raise KernelSourceError(d.entry, 0, DEVICE_GUARD, "the source reads as a 950 kernel with the A2's "
                                    f"{DEVICE_GUARD} {AICORE_VALUES['a2']} and not with the 950's "
                                    f"{AICORE_VALUES['950']}: pass defines={{'{DEVICE_GUARD}': value}}")
    if err is not None:
        raise err
    return d


#: The build's dtype flags: ``DTYPE_X`` (the C type of the tensor ``x``) and ``ORIG_DTYPE_X`` (its ``ge``
#: data type), one set per dtype the kernel is compiled for.
_DTYPE_FLAG = re.compile(r"(ORIG_)?DTYPE_\w+")
#: ``ge::DataType``'s values (graph/types.h), as a condition ``ORIG_DTYPE_X == DT_FLOAT`` reads them.
DT_CODES = {"DT_FLOAT": 0, "DT_FLOAT16": 1, "DT_INT8": 2, "DT_INT32": 3, "DT_UINT8": 4, "DT_INT16": 6,
            "DT_UINT16": 7, "DT_UINT32": 8, "DT_INT64": 9, "DT_UINT64": 10, "DT_DOUBLE": 11, "DT_BOOL": 12,
            "DT_BF16": 27}
_DT_OF = {"float32": "DT_FLOAT", "float16": "DT_FLOAT16", "bfloat16": "DT_BF16"}


def dtype_build(defines, flags, dtype) -> dict:
    """The macros of the build for ``dtype``: every flag of ``flags`` names it (``DTYPE_*`` its C type,
    ``ORIG_DTYPE_*`` its ``DT_*``, whose values are :data:`DT_CODES`), over ``defines``."""
    build = {**{k: v for k, v in DT_CODES.items() if k not in defines}, **defines}
    for flag in flags:
        build[flag] = _DT_OF[dtype] if flag.startswith("ORIG_") else DTYPE_CNAMES[dtype]
    return build


def _per_dtype(folder, entry, name, defines, host, flags):
    """A kernel whose conditions test the build's dtype flags, read once per dtype with that dtype's
    build (:func:`dtype_build`; every tensor of the one dtype); a dtype whose build computes nothing is
    left out."""
    first, bodies, builds, empty = None, [], {}, None
    for dtype in DTYPE_CNAMES:
        build = dtype_build(defines, flags, dtype)
        try:
            d = _read(_with_host(load(folder, entry, build, None, _root(folder, host)), host), name, only=dtype)
        except KernelSourceError as exc:
            if not exc.detail.startswith("no dtype's path computes anything"):
                raise
            empty = exc
            continue
        first = first or d
        bodies.extend(d.bodies)
        builds[dtype] = build
    if first is None:
        raise empty
    return replace(first, bodies=tuple(bodies), builds=builds)


def not_float_gm(body):
    """Why a path's body is not a float program: a GM tensor it reads or writes that is not a float tensor
    (ops-nn relu_grad_v4's uint8 mask input); None where each is one."""
    gm = dict((b, g) for g, b in body.inputs) | {body.output[1]: body.output[0]}
    bad = next(((gm[t], dt) for t, dt in body.tensors if t in gm and dt not in _DT_OF), None)
    return None if bad is None else f"its GM tensor {bad[0]} is {bad[1]}: the program form's inputs and output " \
        "are float32, float16 or bfloat16 tensors"


def _root(folder, host):
    """What ``#include``s may reach: the operator folder where it was given (``op_host`` read beside
    ``op_kernel``), else the kernel folder itself."""
    return Path(folder).parent if host is not None else None


def _checked_defines(defines) -> dict:
    if defines is None:
        return {}
    if not isinstance(defines, dict):
        raise TypeError(f"defines must be a dict of macro name -> value or None, got {type(defines).__name__}")
    for key, value in defines.items():
        if not isinstance(key, str) or not re.fullmatch(r"[A-Za-z_]\w*", key):
            raise ValueError(f"defines: {key!r} is not a macro name")
        if value is not None and not isinstance(value, (int, str)):
            raise TypeError(f"defines[{key!r}] must be an int, a str or None (not defined), "
                            f"got {type(value).__name__}")
    return dict(defines)


def _with_host(sources, host):
    """The op_host's tiling structs added to the sources' classes (the kernel folder's own come first)."""
    if host is not None:
        from .host import struct_items

        for sname, (fields, at) in host.structs.items():
            if sname not in sources.symbols.classes:
                sources.symbols.add(struct_items(sname, fields, at))
    sources.host = host
    return sources


def _read(sources, name, only=None):
    from .dag import DagMachine       # the class machine with the 950 schedulers

    fn = _entry_function(sources, name)
    host = getattr(sources, "host", None)
    sources.symbols.default_tiling = host.struct_for(fn.name.last) if host is not None else None
    sources.symbols.host_given = host is not None
    file = str(sources.entry)
    gm = tuple(p.name for p in fn.params if p.type.name.last == "GM_ADDR" and p.name not in ("workspace", "tiling"))
    bodies, style, struct, struct_vars, struct_at, odd = [], "a2", None, set(), None, None
    for dtype, cname in DTYPE_CNAMES.items():
        if only is not None and dtype != only:
            continue
        found, left_out = [], []
        try:
            for conds, m in _paths(sources.symbols, fn, cname, gm, DagMachine):
                if not m.events:
                    refuse_empty_way(m)          # an attribute's guard (.launch_branch)
                    continue
                style = "dag" if m.scheduled else style
                if struct is None and m.tiling_struct:
                    struct, struct_at = m.tiling_struct, m.tiling_struct_at
                struct_vars |= m.struct_vars
                try:
                    body = _body(file, dtype, m, gm, conds)
                except KernelSourceError as exc:
                    if not neither(conds, exc):      # a field none of the values it is compared with
                        raise located(m, exc) from None       # at the branch that chose the path
                    left_out.append(exc)
                    continue
                gm_dts = [dt for t, dt in body.tensors if t in {b for _, b in body.inputs + (body.output,)
                                                                   + body.outputs}]
                if dtype in gm_dts and all(dt in (dtype,) + BYTE_DTYPES for dt in gm_dts):   # (.byte_tensors)
                    checked_uses(body, file)
                    found.append(body)
                else:
                    odd = odd or not_float_gm(body)
        except KernelSourceError:
            declared = host.definition.dtypes() if host is not None and host.definition is not None else ()
            if not declared or dtype in declared:
                raise
            continue        # issue 43: a dtype op_host's definition does not list is not compiled: left out
        if left_out and not found:
            raise left_out[0]
        if len({(b.inputs, b.output, b.steps) for b in found}) == 1:
            found = [found[0].__class__(**{**found[0].__dict__, "variant": "", "ways": ()})]
        bodies.extend(found)
    if not bodies:
        raise KernelSourceError(file, fn.at[1], f"kernel {fn.name.last}", "no dtype's path computes anything"
                                + (f" ({odd})" if odd else ""))
    cls = sources.symbols.classes.get(struct) if struct else None
    if cls is not None:
        tiling = TilingStruct(cls.name, tuple((n, array_ctype(sources.symbols, d, k)) for d in cls.fields
                                              for k, (n, _, _) in enumerate(d.names)),
                              tuple(d.at for d in cls.fields for _ in d.names))
    elif struct:       # not in the folder: one of opbase's element-wise structs (the host lays it out or refuses)
        tiling = TilingStruct(struct, tuple((f"var{i}", "float") for i in sorted(struct_vars)), opbase=True,
                              named_at=tuple(struct_at or (file, fn.at[1])))
    elif style == "a2" and host is None and len(gm) == len(fn.params):    # issue 43: no tiling argument at all
        tiling = TilingStruct("", (), named_at=(file, fn.at[1]))
    else:
        tiling = None
    return KernelDescription(fn.name.last, style, file, gm, tiling, tuple(bodies))


def entry_symbols(folder, entry=None, defines=None, host=None, name=None) -> tuple:
    """``(symbols, entry function)`` of an A2 kernel as :func:`read_source` reads it (for the schedule,
    :mod:`.schedule`, which runs its scalar code again)."""
    sources = _with_host(load(folder, entry, _checked_defines(defines), None, _root(folder, host)), host)
    fn = _entry_function(sources, name)
    sources.symbols.default_tiling = host.struct_for(fn.name.last) if host is not None else None
    sources.symbols.host_given = host is not None
    return sources.symbols, fn


def _entry_function(sources, name):
    entries = [f for f in sources.symbols.entries() if str(f.at[0]) == str(sources.entry)]
    if name is not None:
        entries = [f for f in entries if f.name.last == name]
    if not entries:
        raise KernelSourceError(str(sources.entry), 0, "the entry", f"no __global__ function {name or ''}")
    stem = sources.entry.stem.removesuffix("_apt")
    named = [f for f in entries if f.name.last == stem]
    return (named or entries)[-1]


def _paths(symbols, fn, cname, gm, machine_class):
    """Follow the entry once per choice of its template arguments: (conditions, machine)."""
    pending, count = [()], 0
    while pending:
        count += 1
        if count > MAX_PATHS:
            raise KernelSourceError(str(fn.at[0]), fn.at[1], f"kernel {fn.name.last}", f"more than {MAX_PATHS} "
                                    "paths: choices of its template arguments and tiling-field conditions")
        prefix, conds = pending.pop(), []

        def decide(text, prefix=prefix, conds=conds):
            known = _known(text, conds)
            if known is not None:           # the same condition, or one its choices settle
                return known
            k = len(conds)
            if k < len(prefix):
                choice = prefix[k]
            else:
                choice = True
                pending.append(tuple(c for _, c in conds) + (False,))
            conds.append((text, choice))
            return choice

        decide.known = lambda text, conds=conds: _known(text, conds)     # asks without choosing (.block_guard)
        decide.state = lambda conds=conds: (len(conds), len(pending))     # a trial's choices undone (.launch_branch)
        decide.rewind = lambda at, conds=conds: (conds.__delitem__(slice(at[0], None)),
                                                 pending.__delitem__(slice(at[1], None)))
        m = machine_class(symbols, cname, gm, decide)
        tbind = {tp.name: (TypeVal(cname) if tp.kind == "type" else Symbolic(tp.name)) for tp in fn.tparams}
        m.run_entry(fn, tbind)
        yield conds, m


def _body(file, dtype, m, gm, conds):
    events = m.events
    if m.tile is not None:
        start, end = m.tile
        prologue, tile, tail = events[:start], events[start:end], events[end:]
        if tail and [e.step for e in tail if e.kind == "step"] != [e.step for e in tile if e.kind == "step"]:
            first = next((e.step for e in tail if e.kind == "step"), None)
            at = first.at if first else (file, 0)
            raise KernelSourceError(at[0], at[1], "a tail tile that computes differently",
                                    "the tiles after Process's loop must repeat its body")
    else:
        prologue, tile = [], events
    variant = _variant(conds)
    prologue, tile = forward_copies(file, prologue, tile, m.names)     # DataCopy between local tensors
    parts, bits = getattr(m, "views", {}), getattr(m, "bit_views", {})
    kept = drop_dead_reads(prologue, tile, set(parts) | {v[0] for v in parts.values()} | set(bits)
                           | set(bits.values()))
    called = tuple((e.step.op, tuple(e.step.at)) for e in prologue + tile if e.kind == "step") \
        if len(kept) != len(tile) else ()
    tile = kept
    check_prologue(file, prologue, getattr(m, "byte_views", {}), m.names)   # .byte_views
    if getattr(m, "bit_views", None):          # a view read only where it holds the bytes (.bitviews)
        check_reads(file, prologue + tile, m.bit_views, getattr(m, "views", {}), m.dtypes, m.names)
    body = assemble(file, dtype, prologue, tile, m.names, m.dtypes, gm, variant, m.buffer_num,
                    views=getattr(m, "bit_views", None))
    body = with_load_lines(body, m)        # a GM input read into two tensors (.split_loads)
    if m.scheduled:
        body = replace(body, dag_wide="float32" in m.node_dtypes)
    body = replace(body, ways=ways_of(m, conds)) if conds else body      # (.variant_ways)
    return replace(body, called=called) if called else body


def _variant(conds) -> str:
    """The conditions that chose a path, as written; ``!(p == a)`` is left out where ``p == b`` holds."""
    fixed = {m.group(1) for t, c in conds if c for m in [re.match(r"^(\w+) == ", t)] if m}
    kept = [(f"({t})" if "||" in t else t) if c else f"!({t})" for t, c in conds
            if c or not (re.match(r"^(\w+) == ", t) and re.match(r"^(\w+) == ", t).group(1) in fixed)]
    return " && ".join(kept)


_EQUALITY = re.compile(r"^(\w+) (==|!=) (\S+)$")


def _known(text, conds):
    """The value of condition ``text`` on a path that chose ``conds``, where they settle it."""
    for t, c in conds:
        if t == text:
            return c
    m = _EQUALITY.match(text)
    if m:
        for t, c in conds:
            n = _EQUALITY.match(t)
            if n and n.group(1) == m.group(1) and n.group(2) == "==" and c:     # name == value holds
                return (n.group(3) == m.group(3)) == (m.group(2) == "==")
    return None

"""One compiled copy of a machine, reached from every caller through an external symbol (issue 39).

Numba links a jitted callee's code into each caller and optimises and generates it again there, so a machine
called from four launch functions was compiled five times (and its code cached five times). A
:class:`Shared` machine is a jitted function compiled for one signature (``cache=True``: in the disk cache),
whose C entry point (the wrapper Numba makes for every jitted function) is registered with LLVM under a
symbol of its own. Its callers hold only a call of that symbol (an intrinsic whose code generation is
:meth:`Shared.lower_call`), which their own code neither inlines nor compiles.

A caller compiled, or read back from the disk cache, needs the symbol registered first: the call's lowering
does it at compile time and leaves a reload hook on the caller (Numba runs it before it reads the caller
back), and every Python entry point that launches a caller calls :meth:`Shared.ensure` first as well.
Numba keeps a function's reload hooks on its compile result alone: a library read back from the disk cache
starts with none, so a caller compiled later that links it (a launch compiled fresh over a pass read back)
inherited none and was cached without the hook, and a process that read that caller back before the symbol
was registered called address 0. The package's functions read back keep their hooks on their library
(:class:`HooksKeptImpl`), as a fresh compile leaves them.

Numba caches a function's object code with its bitcode, the latter only to link the function into a caller
later, and parses it whenever it reads the function back (the engine's machine: 276 KB, most of a fresh
process's read of it). Nothing links a :class:`Shared` machine (nor a launch called from Python alone,
:func:`cached_unlinked`), so its cache entry holds, in the bitcode's place,
a module that only names the symbols the object code defines (:func:`_symbols_only`): Numba reads them to know
which symbols the loaded code defines. A machine read back so refuses to be linked (a RuntimeError naming it).

Such an entry is also read back without Numba's registry refresh (:func:`_read_back_without_refresh`): Numba's
cache runs it before every load, and in a fresh process it imports and installs every typing and lowering
registry (about 150 ms, most of a kernel's first call), which only a compilation uses. The load initialises
Numba's runtime alone (whose symbols the object code may name); an entry whose object code names a symbol that
only the refresh registers (:data:`_REFRESH_SYMBOLS`) is read back after the full refresh, as Numba does.

The arguments cross as the machine's own values: an array as Numba's array structure (the same for every
layout and mutability of one dtype and rank; the typing asks for a C-contiguous one, which the machine's
loops assume), an integer or a bool cast to the machine's parameter type.
"""
from __future__ import annotations

import functools
import importlib

import llvmlite.binding as ll
from llvmlite import ir
from numba import types
from numba.core import caching, cgutils
from numba.core.runtime import rtsys

from .. import disk_cache, runtime

__all__ = ["HooksKeptImpl", "Shared", "cached_unlinked", "ensure_symbol"]

_LOCK = runtime.ChildRenewedLock()


class HooksKeptImpl(caching.CompileResultCacheImpl):
    """Numba's cache of compile results, whose read-back library keeps the result's reload hooks (the
    package's functions only: another's is read back as Numba reads it), so that a caller compiled later that
    links the library inherits them, as it would from a fresh compile."""

    def rebuild(self, target_context, payload):
        cres = super().rebuild(target_context, payload)
        if isinstance(self._locator, disk_cache.PackageCacheLocator):
            cres.library._reload_init.update(cres.reload_init or ())
        return cres


# Every cache made from here on (this module is imported before any jitted function that calls a machine).
caching.FunctionCache._impl_class = HooksKeptImpl


def ensure_symbol(module: str, name: str) -> None:
    """Register the symbol of the :class:`Shared` ``module.name`` (a caller's reload hook: picklable)."""
    getattr(importlib.import_module(module), name).ensure()


def _symbols_only(bitcode: bytes) -> bytes:
    """A module defining, as bytes, the symbols that ``bitcode`` defines (functions and globals), nothing else."""
    mod = ll.parse_bitcode(bitcode)
    stub = ir.Module()
    byte = ir.IntType(8)
    for values in (mod.functions, mod.global_variables):
        for v in values:
            if not v.is_declaration:
                ir.GlobalVariable(stub, byte, v.name).initializer = ir.Constant(byte, 0)
    return ll.parse_assembly(str(stub)).as_bitcode()


def _cached_without_linking_code(reduce):
    """A cache's ``reduce`` whose entry holds :func:`_symbols_only` of the linking bitcode beside the object code."""
    def reduced(cres):
        (name, kind, data), *rest = reduce(cres)
        if kind != "object":
            raise TypeError(f"{name}: an entry cached without linking code is object code, not {kind!r}")
        object_code, bitcode = data
        return ((name, kind, (object_code, _symbols_only(bitcode))), *rest)
    return reduced


#: Symbols that Numba registers only in its registry refresh (``numba.cpython.hashing``'s import: the hash
#: secret), as they appear in object code.
_REFRESH_SYMBOLS = (b"_numba_hashsecret_",)


def _read_back_without_refresh(cache) -> None:
    """Make ``cache`` (a dispatcher's Numba cache) read its entries back with Numba's runtime initialised but
    without the registry refresh that ``Cache.load_overload`` runs first (a compilation refreshes for
    itself). Left as it is unless it is Numba's own ``Cache`` with the methods this relies on."""
    if not (isinstance(cache, caching.Cache) and type(cache).load_overload is caching.Cache.load_overload
            and callable(getattr(cache, "_load_overload", None))
            and callable(getattr(cache, "_guard_against_spurious_io_errors", None))):
        return

    def load_overload(sig, target_context):
        rtsys.initialize(target_context)
        with cache._guard_against_spurious_io_errors():
            return cache._load_overload(sig, target_context)
    cache.load_overload = load_overload


def _names_refresh_symbol(payload) -> bool:
    """Whether a cache entry's object code (Numba's payload: ``(name, "object", (object code, ...))``
    first) names one of :data:`_REFRESH_SYMBOLS`; True where the payload is not of that form."""
    try:
        (_, kind, (object_code, _)), *_ = payload
    except (TypeError, ValueError):
        return True
    return kind != "object" or not isinstance(object_code, bytes) or any(s in object_code
                                                                          for s in _REFRESH_SYMBOLS)


def cached_unlinked(dispatcher, name: str) -> None:
    """Cache ``dispatcher`` (jitted, ``cache=True``, called from Python or by symbol only) without its linking
    code; read back, its library refuses to be linked into a jitted function (it holds no code to link: LLVM
    would otherwise end the process), a RuntimeError naming ``name``. It is read back without Numba's
    registry refresh (:func:`_read_back_without_refresh`) unless its object code needs it."""
    cache = getattr(dispatcher, "_cache", None)
    impl = getattr(cache, "_impl", None)
    if impl is None:   # not cached on disk (no cache, or Numba's jit disabled): nothing read back
        return
    rebuild = impl.rebuild

    def refuse():
        raise RuntimeError(f"{name}: {dispatcher.py_func.__qualname__} read from the disk cache cannot be linked "
                           "into a jitted function (it is called from Python or by its symbol)")

    def rebuilt(target_context, payload):
        if _names_refresh_symbol(payload):
            target_context.refresh()
        cres = rebuild(target_context, payload)
        cres.library._get_module_for_linking = refuse
        return cres
    impl.reduce, impl.rebuild = _cached_without_linking_code(impl.reduce), rebuilt
    _read_back_without_refresh(cache)


class Shared:
    """The jitted ``dispatcher`` compiled for ``signature`` alone and called by ``symbol``; ``home`` is
    ``(module, attribute)`` where this object lives (for the reload hook)."""

    def __init__(self, dispatcher, signature, symbol: str, home: tuple):
        self.dispatcher, self.signature, self.symbol, self.home = dispatcher, signature, symbol, tuple(home)
        self._address = None
        cached_unlinked(dispatcher, symbol)

    def ensure(self) -> int:
        """Compile the machine (or read it from the disk cache) and register its symbol, once per process;
        returns its address."""
        if self._address is None:
            with _LOCK:
                if self._address is None:
                    self.dispatcher.compile(self.signature.args)
                    cres = self.dispatcher.overloads[self.signature.args]
                    address = cres.library.get_pointer_to_function(cres.fndesc.llvm_cfunc_wrapper_name)
                    ll.add_symbol(self.symbol, address)
                    self._address = address
        return self._address

    def check_types(self, args) -> None:
        """A TypingError unless ``args`` (Numba types) fit the signature: arrays of its dtypes and ranks,
        C-contiguous; a tuple of arrays of exactly its type; integers or bools where it has scalars."""
        from numba.core.errors import TypingError

        params = self.signature.args
        if len(args) != len(params):
            raise TypingError(f"{self.symbol} takes {len(params)} arguments, got {len(args)}")
        for i, (ty, want) in enumerate(zip(args, params)):
            if isinstance(want, types.Array):
                if not (isinstance(ty, types.Array) and ty.ndim == want.ndim and ty.dtype == want.dtype
                        and ty.layout == "C"):
                    raise TypingError(f"{self.symbol}: argument {i} must be a C-contiguous {want.ndim}-d "
                                      f"{want.dtype} array, got {ty}")
            elif isinstance(want, types.UniTuple):     # a tuple of arrays: exactly its type
                if ty != want:
                    raise TypingError(f"{self.symbol}: argument {i} must be a {want}, got {ty}")
            elif not isinstance(ty, (types.Integer, types.Boolean)):
                raise TypingError(f"{self.symbol}: argument {i} must be an integer or a bool, got {ty}")

    def lower_call(self, context, builder, sig, args):
        """The call of the symbol with ``args`` (an intrinsic's code generation)."""
        self.ensure()
        context.active_code_library._reload_init.add(functools.partial(ensure_symbol, *self.home))
        params = self.signature.args
        values = [val if isinstance(want, (types.Array, types.UniTuple)) else context.cast(builder, val, ty, want)
                  for ty, val, want in zip(sig.args, args, params)]
        fnty = ir.FunctionType(context.get_value_type(self.signature.return_type),
                               [context.get_value_type(want) for want in params])
        for v, t in zip(values, fnty.args):
            if v.type != t:   # never: an array's structure depends on its dtype and rank alone
                raise TypeError(f"{self.symbol}: an argument of LLVM type {v.type} where {t} is expected")
        builder.call(cgutils.get_or_insert_function(builder.module, fnty, self.symbol), values)
        return context.get_dummy_value()

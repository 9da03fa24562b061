"""LLVM operations the kernels need and Numba does not expose.

Private. Each compiles to single instructions inside jitted code and keeps
the loops around it vectorisable:

- :func:`fma_f64`: binary64 ``a * b + c`` with one rounding (``llvm.fma``).
  Used only inside the binary64 evaluation of Exp, whose binary32 result is
  correctly rounded either way; the emulated binary32 instructions are never
  fused.
- :func:`fma_f32`: binary32 ``a * b + c`` with one rounding, the 950's
  ``MulDstAdd`` instruction.
- :func:`prefetch_read` / :func:`prefetch_write`: a hint that the cache line
  holding ``arr[index]`` will soon be read / written (``llvm.prefetch``).
  A prefetch never faults and changes no data; callers still pass only
  indices inside the array.
- :func:`half_bits_to_f32` / :func:`f32_to_half_bits`: LLVM's ``fpext`` /
  ``fptrunc`` between binary16 and binary32 (round to nearest even), on bit
  patterns. They compile to the CPU's conversion instructions only where the
  target has them (``dtypes.HARDWARE_F16`` decides; elsewhere they are never
  used). Exact for every non-NaN value; NaN payloads are the hardware's.
- :func:`vectorise_full_width`: lets LLVM vectorise the function that calls
  it with the CPU's widest registers (512-bit on AVX-512 CPUs, where LLVM
  otherwise prefers 256-bit). Changes the speed, not the results: each lane
  still does the same IEEE operations.
"""
from __future__ import annotations

from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

__all__ = ["f32_to_half_bits", "fma_f32", "fma_f64", "half_bits_to_f32", "prefetch_read", "prefetch_write"]

# llvm.prefetch arguments: locality 3 keeps the line in every cache level;
# cache type 1 is the data cache.
_PREFETCH_LOCALITY = 3
_DATA_CACHE = 1


@intrinsic
def fma_f64(typingctx, a, b, c):
    """``a * b + c`` in binary64, rounded once."""
    if not all(isinstance(arg, types.Float) for arg in (a, b, c)):
        return None
    sig = types.float64(types.float64, types.float64, types.float64)

    def codegen(context, builder, signature, args):
        return builder.fma(*args)

    return sig, codegen


def _prefetch_codegen(rw):
    def codegen(context, builder, signature, args):
        arrty, _ = signature.args
        ary = context.make_array(arrty)(context, builder, args[0])
        ptr = builder.gep(ary.data, [args[1]])
        i8p = ir.IntType(8).as_pointer()
        i32 = ir.IntType(32)
        fnty = ir.FunctionType(ir.VoidType(), [i8p, i32, i32, i32])
        fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.prefetch.p0")
        builder.call(fn, [builder.bitcast(ptr, i8p), ir.Constant(i32, rw),
                          ir.Constant(i32, _PREFETCH_LOCALITY), ir.Constant(i32, _DATA_CACHE)])
        return context.get_dummy_value()

    return codegen


def _prefetch_signature(arr, index):
    # Only 1-D C-contiguous arrays: the address is data + index * itemsize.
    if not (isinstance(arr, types.Array) and arr.ndim == 1 and arr.layout == "C"
            and isinstance(index, types.Integer)):
        return None
    return types.void(arr, types.intp)


@intrinsic
def prefetch_read(typingctx, arr, index):
    """Hint: the line holding ``arr[index]`` (1-D, contiguous) will be read."""
    sig = _prefetch_signature(arr, index)
    return None if sig is None else (sig, _prefetch_codegen(0))


@intrinsic
def prefetch_write(typingctx, arr, index):
    """Hint: the line holding ``arr[index]`` (1-D, contiguous) will be written."""
    sig = _prefetch_signature(arr, index)
    return None if sig is None else (sig, _prefetch_codegen(1))


@intrinsic
def half_bits_to_f32(typingctx, bits):
    """binary16 bits (uint16) -> float32, exactly (``fpext``)."""
    if bits != types.uint16:
        return None

    def codegen(context, builder, signature, args):
        return builder.fpext(builder.bitcast(args[0], ir.HalfType()), ir.FloatType())

    return types.float32(types.uint16), codegen


@intrinsic
def f32_to_half_bits(typingctx, value):
    """float32 -> binary16 bits (uint16), round to nearest even (``fptrunc``)."""
    if value != types.float32:
        return None

    def codegen(context, builder, signature, args):
        return builder.bitcast(builder.fptrunc(args[0], ir.HalfType()), ir.IntType(16))

    return types.uint16(types.float32), codegen


@intrinsic
def fma_f32(typingctx, a, b, c):
    """``a * b + c`` in binary32, rounded once (``llvm.fma.f32``).

    The Ascend 950's ``MulDstAdd`` instruction (model section 9): a fused
    multiply-add, one rounding to nearest even.
    """
    if not all(arg == types.float32 for arg in (a, b, c)):
        return None
    sig = types.float32(types.float32, types.float32, types.float32)

    def codegen(context, builder, signature, args):
        return builder.fma(*args)

    return sig, codegen


# LLVM's X86 backend reads this function attribute to choose the vector width
# (clang's -mprefer-vector-width=512). A CPU without 512-bit registers keeps
# its own widest width. llvmlite's attribute set only admits the attributes it
# knows by name, so this one is added to the underlying set directly; it is
# written into the IR as is.
_PREFER_512 = '"prefer-vector-width"="512"'


@intrinsic
def vectorise_full_width(typingctx):
    """Vectorise the calling function with the CPU's widest registers.

    Call it once in a kernel function; after Numba's inlining the attribute
    lands on the function that holds the loops (a ``prange`` body included).
    """
    def codegen(context, builder, signature, args):
        set.add(builder.function.attributes, _PREFER_512)
        return context.get_dummy_value()

    return types.void(), codegen

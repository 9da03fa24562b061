"""LLVM operations the kernels need and Numba does not expose.

Private. Each compiles to single instructions inside jitted code and keeps
the loops around it vectorisable:

- :func:`fma_f64`: binary64 ``a * b + c`` with one rounding (``llvm.fma``).
  Used only inside the binary64 evaluation of Exp, whose binary32 result is
  correctly rounded either way; the emulated binary32 instructions are never
  fused.
- :func:`fma_f32`: binary32 ``a * b + c`` with one rounding, the 950's
  ``MulDstAdd`` instruction.
- :func:`prefetch_write`: a hint that the cache line holding ``arr[index]``
  will soon be written (``llvm.prefetch``; the hot tier's output, :func:`.engine.hot.prefetch_lines`).
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
- :func:`gather_lanes`: 16 table entries at 16-bit indices in one vector
  gather (a table lookup LLVM leaves scalar); loads only, the same values.
  A uint16 table is read in 32-bit words, so it holds one entry more.
- :func:`pair_tree_sum_64` / :func:`pair_tree_sum_8`: the sum of 64 (8)
  float32 values as a tree of neighbouring pairs, each level one vector
  ``fadd`` of the even lanes and the odd ones (LLVM leaves the scalar tree
  unvectorised: 12 times slower). Each lane's ``fadd`` is the scalar one, so
  the bits are those of the plain tree.
"""
from __future__ import annotations

import sys

from llvmlite import ir
from llvmlite.ir.instructions import GEPInstr
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

__all__ = ["f32_to_half_bits", "fma_f32", "fma_f64", "gather_lanes", "GATHER_LANES", "half_bits_to_f32",
           "pair_tree_sum_8", "pair_tree_sum_64", "prefetch_write"]

# llvm.prefetch arguments: 1 a write (0 a read); locality 3 keeps the line in every cache level;
# cache type 1 is the data cache.
_WRITE = 1
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


@intrinsic
def prefetch_write(typingctx, arr, index):
    """Hint: the line holding ``arr[index]`` (1-D, contiguous) will be written."""
    # Only 1-D C-contiguous arrays: the address is data + index * itemsize.
    if not (isinstance(arr, types.Array) and arr.ndim == 1 and arr.layout == "C"
            and isinstance(index, types.Integer)):
        return None

    def codegen(context, builder, signature, args):
        arrty, _ = signature.args
        ary = context.make_array(arrty)(context, builder, args[0])
        ptr = builder.gep(ary.data, [args[1]])
        i8p = ir.IntType(8).as_pointer()
        i32 = ir.IntType(32)
        fnty = ir.FunctionType(ir.VoidType(), [i8p, i32, i32, i32])
        fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.prefetch.p0")
        builder.call(fn, [builder.bitcast(ptr, i8p), ir.Constant(i32, _WRITE),
                          ir.Constant(i32, _PREFETCH_LOCALITY), ir.Constant(i32, _DATA_CACHE)])
        return context.get_dummy_value()

    return types.void(arr, types.intp), codegen


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


#: Elements :func:`gather_lanes` reads and writes per call (one 512-bit gather of float32).
GATHER_LANES = 16


def _gather_signature(table, src, src_at, dst, dst_at):
    # 1-D C-contiguous arrays: uint16 indices; float32 entries into a float32 destination, or uint16 ones into
    # a uint16 one
    arrays = (table, src, dst)
    if not all(isinstance(a, types.Array) and a.ndim == 1 and a.layout == "C" for a in arrays):
        return None
    if src.dtype != types.uint16 or (table.dtype, dst.dtype) not in _GATHER_TYPES:
        return None
    if not (isinstance(src_at, types.Integer) and isinstance(dst_at, types.Integer)):
        return None
    return types.void(table, src, types.intp, dst, types.intp)


#: (table, destination) element types :func:`gather_lanes` takes.
_GATHER_TYPES = ((types.float32, types.float32), (types.uint16, types.uint16))


def _gathered(builder, base, entry, index, word, align: int, lanes: int):
    """``llvm.masked.gather`` (all lanes on) of ``word``-typed values at ``base`` (a pointer to ``entry``s)
    plus each lane's ``index`` entries."""
    # a vector GEP (llvmlite types a GEP's result from scalar indices only: the vector type is given)
    ptrs = GEPInstr(builder.block, base, [index], True, "", source_etype=entry)
    ptrs.type = ir.VectorType(entry.as_pointer(), lanes)
    builder._insert(ptrs)
    ptr_ty = ir.VectorType(word.as_pointer(), lanes)
    if entry != word:
        ptrs = builder.bitcast(ptrs, ptr_ty)
    vec = ir.VectorType(word, lanes)
    name = f"llvm.masked.gather.v{lanes}{_IR_SUFFIX[str(word)]}.v{lanes}p0{_IR_SUFFIX[str(word)]}"
    fnty = ir.FunctionType(vec, [ptr_ty, ir.IntType(32), ir.VectorType(ir.IntType(1), lanes), vec])
    fn = cgutils.get_or_insert_function(builder.module, fnty, name)
    on = ir.Constant(ir.VectorType(ir.IntType(1), lanes), [1] * lanes)
    return builder.call(fn, [ptrs, ir.Constant(ir.IntType(32), align), on, ir.Constant(vec, None)])


_IR_SUFFIX = {"float": "f32", "i32": "i32"}


@intrinsic
def gather_lanes(typingctx, table, src, src_at, dst, dst_at):
    """``dst[dst_at + i] = table[src[src_at + i]]`` for ``i < GATHER_LANES``, as one vector gather
    (``llvm.masked.gather``, all lanes on: AVX-512's ``vgatherdps``; a target without gathers gets the
    loads one by one). ``table`` and ``dst`` are both float32 or both uint16. A uint16 table: AVX-512 gathers
    32-bit words at the least, so each lane reads the 4 bytes from its entry (the entry and the next one) and
    keeps the entry's 2: the table must hold one entry past the largest index, 65,537 entries for any uint16
    index. The caller keeps every index inside its array: a uint16 index is always inside a 65,536-entry
    float32 table. LLVM does not vectorise a table lookup into a gather by itself here (its cost model), and
    a scalar lookup costs about 0.3 ns an element (issue 39)."""
    sig = _gather_signature(table, src, src_at, dst, dst_at)
    if sig is None:
        return None

    def codegen(context, builder, signature, args):
        tab_ty, src_ty, _, dst_ty, _ = signature.args
        tab = context.make_array(tab_ty)(context, builder, args[0])
        srca = context.make_array(src_ty)(context, builder, args[1])
        dsta = context.make_array(dst_ty)(context, builder, args[3])
        lanes = GATHER_LANES
        i32, i16 = ir.IntType(32), ir.IntType(16)
        at = builder.gep(srca.data, [args[2]])
        bits = builder.load(builder.bitcast(at, ir.VectorType(i16, lanes).as_pointer()), align=2)
        index = builder.zext(bits, ir.VectorType(i32, lanes))
        if tab_ty.dtype == types.uint16:
            # a 32-bit word from each entry's address (2-byte aligned): the entry is its first 2 bytes
            words = _gathered(builder, tab.data, i16, index, i32, 2, lanes)
            if sys.byteorder == "big":
                words = builder.lshr(words, ir.Constant(ir.VectorType(i32, lanes), [16] * lanes))
            got, align = builder.trunc(words, ir.VectorType(i16, lanes)), 2
        else:
            got, align = _gathered(builder, tab.data, ir.FloatType(), index, ir.FloatType(), 4, lanes), 4
        to = builder.gep(dsta.data, [args[4]])
        builder.store(got, builder.bitcast(to, got.type.as_pointer()), align=align)
        return context.get_dummy_value()

    return sig, codegen


def _pair_tree_sum(lanes: int):
    """An intrinsic ``(a, start) -> float32``: ``a[start:start + lanes]`` (a C-contiguous float32 array; the caller
    keeps the lanes inside it) summed as a tree of neighbouring pairs, every level rounded to binary32:
    ``(a0 + a1), (a2 + a3), ...``, then those pairwise, to one value."""
    @intrinsic
    def pair_tree_sum(typingctx, a, start):
        if not (isinstance(a, types.Array) and a.dtype == types.float32 and a.ndim == 1 and a.layout == "C"
                and isinstance(start, types.Integer)):
            return None

        def codegen(context, builder, signature, args):
            ary = context.make_array(signature.args[0])(context, builder, args[0])
            f32, i32 = ir.FloatType(), ir.IntType(32)
            at = builder.gep(ary.data, [args[1]])
            v = builder.load(builder.bitcast(at, ir.VectorType(f32, lanes).as_pointer()), align=4)
            n = lanes
            while n > 1:
                n //= 2
                even = ir.Constant(ir.VectorType(i32, n), [2 * i for i in range(n)])
                odd = ir.Constant(ir.VectorType(i32, n), [2 * i + 1 for i in range(n)])
                v = builder.fadd(builder.shuffle_vector(v, v, even), builder.shuffle_vector(v, v, odd))
            return builder.extract_element(v, ir.Constant(i32, 0))

        return types.float32(a, types.intp), codegen
    return pair_tree_sum


pair_tree_sum_64 = _pair_tree_sum(64)
pair_tree_sum_8 = _pair_tree_sum(8)

"""What Sigmoid and SigmoidGrad share: their structs, the 950 tiling key, the record's walk, the
validator's view of it and the launch.

docs/activation_tiling.md, "The first-tier activations", gives the sources of every fact here.
Both A2 structs are eight uint64 with SwishGrad's field names and order
(``sigmoid_tiling_data.h:17-26``, ``sigmoid_grad_tiling_data.h:18-27``); both 950 structs are
eight int64 (``sigmoid_tiling_arch35.h:25-34``, ``sigmoid_grad_tiling_arch35.h:27-36``), of
which the kernels read all but ``dim0``, and find their tail block as
``GetBlockIdx() == GetBlockNum() - 1`` (``sigmoid_f32.h:48-51``): the launch's last core.
"""
from __future__ import annotations

import functools

import numpy as np

from ... import kernel as kernel_pkg
from ...dtypes import FLOAT32, DTypeInfo, dtype_info
from ...platform import ARCH_950, ARCH_A2
from ...program import compiled
from ...spec import a2 as spec_a2
from ...spec import arch35 as spec_arch35
from ...tiling.findings import finding
from ...tiling.records import checked_record
from ..registry import OpTiling, WalkCheck

__all__ = ["A2_RECORD_DTYPE", "ARCH35_FIELDS", "ARCH35_RECORD_DTYPE", "A2_BLOCK_SIZE", "ARCH35_WORKSPACE_SIZE",
           "OP_KEYS", "arch35_tiling_key", "walk_fields", "a2_walk_check", "arch35_walk_check", "run_kernel"]

#: ``SigmoidTilingData`` / ``SigmoidGradTilingData`` (A2): eight uint64, 64 bytes.
A2_RECORD_DTYPE = np.dtype([(name, "<u8") for name in spec_a2.FIELDS])
#: The 950 structs: eight int64, 64 bytes.
ARCH35_FIELDS = ("dim0", "blockFormer", "ubFormer", "ubLoopOfFormerBlock", "ubLoopOfTailBlock",
                 "ubTailOfFormerBlock", "ubTailOfTailBlock", "elemNum")
ARCH35_RECORD_DTYPE = np.dtype([(name, "<i8") for name in ARCH35_FIELDS])
assert A2_RECORD_DTYPE.itemsize == 64 and ARCH35_RECORD_DTYPE.itemsize == 64

#: Both A2 hosts count in 32-byte blocks of their own constant (``#define BLOCK_SIZE 32U``).
A2_BLOCK_SIZE = 32
#: Both 950 hosts ask for 32 bytes of workspace (``sigmoid_tiling_arch35.cpp:34``, ``sigmoid_grad_...:26``).
ARCH35_WORKSPACE_SIZE = 32
#: The 950 hosts' opKey by dtype (``sigmoid_tiling_arch35.cpp:54-75``); key = opKey * 10^14 + 100.
OP_KEYS = {"float16": 1, "bfloat16": 2, "float32": 3}


def arch35_tiling_key(dtype_name: str) -> int:
    return OP_KEYS[dtype_name] * 10 ** 14 + 100


def arch35_host_tiling(op_name: str, kernel_name: str, numel: int, info: DTypeInfo, ub_size: int, core_num: int,
                       slots: int) -> OpTiling:
    """opbase ElewiseTiling of ``numel`` (>= 1) elements over ``slots`` buffers of the input's dtype: the 950
    record of operator ``op_name``, or a ValueError naming ``kernel_name`` where the UB cannot hold them."""
    accepted, block_dim, f = spec_arch35.host_tiling(numel, info.itemsize, ub_size, core_num, slots, info.itemsize)
    if not accepted:
        raise ValueError(f"platform.ub_size ({ub_size} bytes) is too small: the 950 {kernel_name} kernel needs "
                         f"{slots} buffers of at least {spec_arch35.UB_ALIGN_BYTES} bytes")
    data = checked_record(ARCH35_RECORD_DTYPE, {name: getattr(f, name) for name in ARCH35_FIELDS})
    return OpTiling(op_name, ARCH_950, data, int(block_dim), arch35_tiling_key(info.name), ARCH35_WORKSPACE_SIZE)


def walk_fields(tiling: OpTiling):
    """The record's walk as the generic walk reads it: SwishGrad's A2 fields, or on the 950 the
    ElewiseTiling fields with ``blockNum`` the launch's core count (the kernel's tail block is its
    last core) and ``coreNum`` the same (not in the struct). Python ints."""
    d = tiling.data
    return _walk_fields(tiling.architecture, tiling.block_dim, d.dtype, d.tobytes())


@functools.lru_cache(maxsize=256)
def _walk_fields(architecture: str, block_dim: int, dtype: np.dtype, data: bytes):
    """:func:`walk_fields` of a record given by its bytes, kept (a record's fields cost a microsecond each to
    read, and a call of a few thousand elements read them every time)."""
    d = np.frombuffer(data, dtype=dtype)[0]
    if architecture == ARCH_A2:
        return spec_a2.TilingFields(*(int(d[name]) for name in spec_a2.FIELDS))
    g = {name: int(d[name]) for name in ARCH35_FIELDS}
    return spec_arch35.TilingFields(g["dim0"], block_dim, g["ubFormer"], g["blockFormer"], block_dim,
                                    g["ubLoopOfFormerBlock"], g["ubLoopOfTailBlock"], g["ubTailOfFormerBlock"],
                                    g["ubTailOfTailBlock"], g["elemNum"], spec_arch35.SCHE_MODE)


def a2_walk_check(tiling: OpTiling, plan: tuple, findings: tuple = ()) -> WalkCheck:
    """An A2 record for the validator: SwishGrad's walk and whole-block ``DataCopy`` (both kernels'
    CopyIn/CopyOut), the kernel's UB ``plan``."""
    fields = walk_fields(tiling)
    return WalkCheck(fields, plan, fields.tileDataNum, findings)


def arch35_walk_check(tiling: OpTiling, info: DTypeInfo, slots: int) -> WalkCheck:
    """A 950 record for the validator: ``slots`` buffers of ``elemNum`` elements of the dtype (queues of
    two), its key and the fields a kernel divides by or sizes its buffers with."""
    plan = ((slots, info.itemsize),)
    elem = int(tiling["elemNum"])
    own = []
    expected = arch35_tiling_key(info.name)
    if tiling.tiling_key != expected:
        own.append(finding("TILING_KEY_MISMATCH", f"tiling key {tiling.tiling_key}; the host gives {expected} for "
                                                  f"{info.name} (opKey {OP_KEYS[info.name]} * 10^14 + 100)."))
    if elem < int(tiling["ubFormer"]):
        own.append(finding("FIELD_RANGE", f"elemNum={elem} < ubFormer={int(tiling['ubFormer'])}: the buffers hold "
                                          f"elemNum elements, a UB loop copies ubFormer."))
    bad = [name for name in ("blockFormer", "ubFormer") if int(tiling[name]) < 1]
    if bad:
        return WalkCheck(None, plan, max(elem, 0), tuple(own) + tuple(
            finding("FIELD_RANGE", f"{name}={int(tiling[name])}: the walk needs it >= 1.") for name in bad))
    return WalkCheck(walk_fields(tiling), plan, max(elem, 0), tuple(own))


def run_kernel(op_name: str, ins: tuple, out: np.ndarray, tiling: OpTiling, saturation: bool = False) -> None:
    """A checked record's launch over flat C-contiguous arrays of one dtype (``ins`` in the program's
    input order): the compiled program on the generic walk; ``saturation``: the A2 kernel in the
    saturation overflow mode (the 950 has none, :class:`~swishgrad_numba.Platform` refuses it)."""
    if saturation and tiling.architecture == ARCH_950:
        raise ValueError("overflow_mode 'saturation' is not supported by the Ascend 950 kernel (Inf/NaN mode only)")
    info = dtype_info(out.dtype, argname="out.dtype")
    if out.size == 0:
        return
    launch_plan = kernel_pkg.plan_launch(walk_fields(tiling), tiling.block_dim,
                                         kernel_pkg.arch_code(tiling.architecture), out.size)
    params = compiled(op_name, tiling.architecture, info.name, saturation=saturation).params()
    raw = (lambda a: a.reshape(-1)) if info is FLOAT32 else (lambda a: a.reshape(-1).view(np.uint16))

    def read_only(a):
        # one array type for every input (a tuple of writable and read-only arrays is not indexable when jitted)
        v = raw(a).view()
        v.flags.writeable = False
        return v

    kernel_pkg.run_walk(params, tuple(read_only(a) for a in ins), raw(out), launch_plan)


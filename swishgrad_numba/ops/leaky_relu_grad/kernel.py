"""The LeakyReluGrad kernel (aclnnLeakyReluBackward), the Ascend 950's only: its data for :mod:`.description`.

docs/model.md, "LeakyRelu, LeakyReluBackward (950 only)", gives the sources (ops-nn
``activation/leaky_relu_grad``, arch35):

- host ``leaky_relu_grad_tiling.cpp``: gradients, features and backprops of one dtype; opbase's
  ``BroadcastBaseTiling`` of ``LeakyReluGradDag<T>`` and the slope by ``SetScalar<float>``; key
  ``GET_TPL_TILING_KEY(GetSchMode(), dType)``;
- kernel ``leaky_relu_grad_dag.h:31-47`` on ``BroadcastSch`` (``CopyInBrc`` of both inputs, so they may
  broadcast): ``pos = Compare<GT>(x, Duplicate(0))`` in x's own dtype, ``dm = Muls(widen(dy), slope)``,
  ``z = Select(pos, widen(dy), dm)`` (mode 2), narrowed ``CAST_RINT``. The program compares the widened
  x: the widening is exact and keeps the sign, zeros and NaN, so ``x > 0`` is the same bit either way
  (the program form's Compare computes on float32).

No public A2 kernel registers LeakyReluGrad (``experimental/activation/leaky_relu_grad_v2`` is
LeakyReluGradV2), so an A2 platform is refused. float64 runs on an AICPU kernel (modelled in :mod:`.description`).
"""
from __future__ import annotations

import functools

import numpy as np

from ... import runtime
from ...dtypes import DTypeInfo, dtype_info
from ...platform import ARCH_950, Platform
from ...program import Program, Tensor, compiled
from ...program.form import V
from ...tiling.findings import finding
from ..gelu_grad import ARCH35_BUFFER_BITS
from ..leaky_relu.kernel import DEFAULT_SLOPE, SLOPE
from ..registry import Kernel, OpTiling, WalkCheck
from ..silu_grad.arch35 import ARCH35_TILING_DTYPE, broadcast_tiling, run_record
from ..silu_grad.arch35 import arch35_walk_check as silu_arch35_walk_check

__all__ = ["NAME", "RECORD_DTYPE", "NO_A2_KERNEL", "DTYPE_TEMPLATE", "host_tiling", "cached_tiling", "tiling_key",
           "programs", "launch", "run", "shaped_tiling", "shaped_launch", "KERNELS"]

NAME = "leaky_relu_grad"

NO_A2_KERNEL = ("ops-nn registers its op type for the Ascend 950 only (activation/leaky_relu_grad: ascend950; "
                "experimental/activation/leaky_relu_grad_v2 registers another op type, LeakyReluGradV2), and the "
                "kernel a real A2 runs ships with CANN unpublished: it is not emulated; use an Ascend 950 platform")

#: The 950 record: opbase's broadcast tiling fields in SiluGrad's layout (as GeluGrad's: the class's own
#: struct was not traced), then the float slope of its ``scalarData``.
RECORD_DTYPE = np.dtype(ARCH35_TILING_DTYPE.descr + [("negativeSlope", "<f4")], align=True)
#: ``LEAKY_RELU_GRAD_TPL_*`` (``leaky_relu_grad_struct.h:19-21``).
DTYPE_TEMPLATE = {"float16": 1, "bfloat16": 2, "float32": 3}
#: ``BRC_TEMP_SCH_MODE_KEY_DECL``: schMode takes 16 bits of the key (opbase ``broadcast_base_struct.h:151``).
_SCH_MODE_BITS = 16


def tiling_key(schedule_form: int, dtype: str) -> int:
    """The schedule part as GeluGrad's model has it (0 or 1; opbase's ``GetSchMode`` was not traced), the
    dType template above its 16 bits."""
    return schedule_form | (DTYPE_TEMPLATE[dtype] << _SCH_MODE_BITS)


def host_tiling(dy_shape, x_shape, info: DTypeInfo, slope32, platform: Platform) -> OpTiling:
    """opbase's broadcast split with this DAG's divisor (GeluGrad's: BufferNum 6 / 9, derived the same way;
    not traced), the slope in the record."""
    if platform.architecture != ARCH_950:
        raise ValueError(f"platform (soc_version {platform.soc_version!r}) cannot run {NAME}: {NO_A2_KERNEL}")
    record, block_dim, schedule_key, _ = broadcast_tiling(dy_shape, x_shape, 8 * info.itemsize, 0,
                                                          ARCH35_BUFFER_BITS[info.itemsize], platform)
    data = np.zeros((), dtype=RECORD_DTYPE)
    for name in ARCH35_TILING_DTYPE.names:
        data[name] = record[name]
    data["negativeSlope"] = np.float32(DEFAULT_SLOPE if slope32 is None else slope32)
    return OpTiling(NAME, ARCH_950, data[()], int(block_dim), tiling_key(int(schedule_key != 100), info.name),
                    16 * 1024 * 1024)


@functools.lru_cache(maxsize=256)
def _cached(dy_shape, x_shape, info: DTypeInfo, slope_bits: int, platform: Platform) -> OpTiling:
    return host_tiling(dy_shape, x_shape, info, np.uint32(slope_bits).view(np.float32), platform)


def cached_tiling(dy_shape, x_shape, info: DTypeInfo, slope32, platform: Platform) -> OpTiling:
    """:func:`host_tiling`, cached per shapes, dtype, slope bits and platform (the record is read-only)."""
    return _cached(tuple(dy_shape), tuple(x_shape), info, int(np.float32(slope32).view(np.uint32)), platform)

# ---------------------------------------------------------------- the program (inputs dy, x)

#: ``leaky_relu_grad_dag.h:31-42``, float32 ``dy``, ``x`` -> ``y``.
_BODY = (V.Duplicate("zero", 0.0), V.Muls("dm", "dy", SLOPE), V.Compare("pos", "x", "zero", "GT"),
         V.Select("y", "dy", "dm", "pos"))


def _renamed(body, names):
    return tuple(type(i)(i.op, tuple(names.get(a, a) if isinstance(a, str) else a for a in i.args)) for i in body)


def programs(dtype: str, variant: str = "main") -> Program:
    """The Compute for ``dtype``: 16-bit dy (and x, see the module's note) widened, the result narrowed
    with CAST_RINT (``CastModeFp32ToBf16`` = 1 for every 16-bit dtype)."""
    if variant != "main":
        raise ValueError(f"no LeakyReluGrad variant {variant!r}")
    local = (Tensor("zero"), Tensor("dm"), Tensor("pos", "uint8"))
    if dtype == "float32":
        return Program("LeakyReluGrad", (Tensor("dy"), Tensor("x")), Tensor("out"), local,
                       _renamed(_BODY, {"y": "out"}), (SLOPE.name,))
    return Program("LeakyReluGradCast", (Tensor("dy", dtype), Tensor("x", dtype)), Tensor("out", dtype),
                   local + (Tensor("dyf"), Tensor("xf"), Tensor("y")),
                   (V.Cast("dyf", "dy", "CAST_NONE"), V.Cast("xf", "x", "CAST_NONE"))
                   + _renamed(_BODY, {"dy": "dyf", "x": "xf"}) + (V.Cast("out", "y", "CAST_RINT"),), (SLOPE.name,))

# ---------------------------------------------------------------- launch, check, run



def launch(dy, x, out, tiling: OpTiling, info: DTypeInfo) -> None:
    """C-contiguous ``dy``, ``x`` (their own shapes, as tiled) and ``out`` (the broadcast shape)."""
    r = tiling.data
    params = compiled(NAME, ARCH_950, info.name).params(negative_slope=np.float32(r["negativeSlope"]))
    with runtime.launch_guard():
        run_record(params, info.flat_bits(dy), info.flat_bits(x), info.flat_bits(out), tiling.block_dim, r)


def run(grad, x: np.ndarray, out: np.ndarray, tiling: OpTiling) -> None:
    """The registry's launch: flat contiguous arrays of one dtype and size."""
    if grad is None:
        raise ValueError(f"grad must be an array for {NAME} (its gradOutput)")
    launch(grad, x, out, tiling, dtype_info(out.dtype, argname="out.dtype"))


def _walk_check(tiling: OpTiling, numel: int, info: DTypeInfo, platform: Platform) -> WalkCheck:
    """SiluGrad's broadcast-record checks (the same fields), with this DAG's buffers and key."""
    check = silu_arch35_walk_check(tiling, numel, info, platform)
    own = tuple(f for f in check.findings if f.code != "TILING_KEY_MISMATCH")
    keys = tuple(tiling_key(form, info.name) for form in (0, 1))
    if tiling.tiling_key not in keys:
        own += (finding("TILING_KEY_MISMATCH", f"tiling key {tiling.tiling_key}; LeakyReluGrad's for {info.name} "
                                               f"are {keys}."),)
    return WalkCheck(None, ((ARCH35_BUFFER_BITS[info.itemsize] // 32, 4),), check.pass_len, own)


def _device_instructions(tiling: OpTiling, itemsize: int) -> tuple:
    return programs("float32" if itemsize == 4 else "float16").instructions()


def shaped_tiling(shapes, info: DTypeInfo, slope32, platform: Platform) -> OpTiling:
    """The broadcast walk's tiling of inputs of ``shapes`` (``(dy_shape, x_shape)``), cached (``slope32`` None:
    the default slope)."""
    return cached_tiling(*shapes, info, DEFAULT_SLOPE if slope32 is None else slope32, platform)


def shaped_launch(arrays, out: np.ndarray, tiling: OpTiling, info: DTypeInfo) -> None:
    """The broadcast walk over C-contiguous ``(dy, x)`` of their own shapes into ``out`` (the broadcast shape)."""
    launch(*arrays, out, tiling, info)


#: The kernels by architecture (the 950's only).
KERNELS = {ARCH_950: Kernel(ARCH_950, "activation/leaky_relu_grad (arch35)", "BroadcastBaseTiling (SiluGrad's layout)",
                            RECORD_DTYPE, "CAST_RINT", _walk_check, run, _device_instructions, programs=programs,
                            walk="broadcast")}

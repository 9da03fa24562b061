"""A read 950 ``BroadcastSch`` kernel (issue 43) on the package's broadcast walk.

``BroadcastSch<schMode, OpDag> sch(tiling); sch.Process(in0, in1, out)`` (ops-nn
``activation/relu_grad/op_kernel/relu_grad_apt.cpp:32-38``, ``leaky_relu_grad_apt.cpp:29-31``) runs its DAG
(read as the element-wise scheduler's, :mod:`.dag`; ``Vec::CopyInBrc`` copies an input in with its own
broadcast strides) over opbase's ``BroadcastBaseTiling`` record. That record is laid out here as the
package's broadcast kernels lay it out (SiluGrad's fields, :data:`..ops.silu_grad.arch35.ARCH35_TILING_DTYPE`,
then the DAG's float ``Placeholder::Var`` scalars, which the host sets by ``SetScalar<float>`` in index
order: ``leaky_relu_grad_tiling.cpp:71``, as the package's LeakyReluGrad record), and the host is opbase's
``BroadcastTiling`` of :func:`..ops.silu_grad.arch35.broadcast_tiling`, with the DAG's buffers as the
divisor (the element-wise DAG rule of :mod:`.host_tiling`). A read kernel's inputs have one shape
(:meth:`.operator.ReadOperator.run`), so the record is the walk of equal shapes; the pass runs on
:func:`swishgrad_numba.kernel.broadcast.run_blocks`, the walk of the package's 950 GeluGrad and LeakyReluGrad.
"""
from __future__ import annotations

import numpy as np

from ..platform import ARCH_950, ASCEND950_PLATFORM
from .errors import KernelSourceError

__all__ = ["BROADCAST_STRUCT", "is_broadcast", "record_dtype", "host_tiling", "launch", "walk_check"]

#: The name a BroadcastSch kernel's tiling struct is read under (opbase's host class that fills it).
BROADCAST_STRUCT = "BroadcastBaseTiling"
_WORKSPACE = 16 * 1024 * 1024          # the package's GeluGrad / LeakyReluGrad 950 request
#: Elements per pass where a kernel of other than two inputs runs its equal shapes on the flat walk (issue 43).
FLAT_PASS = 8192


def is_broadcast(dtype) -> bool:
    return (getattr(dtype, "metadata", None) or {}).get("opbase") == BROADCAST_STRUCT


def record_dtype(struct) -> np.dtype:
    """SiluGrad's broadcast record, then the DAG's float ``var0``, ``var1``, ... (KernelSourceError at the
    line naming the struct where they are not in order)."""
    from ..ops.silu_grad.arch35 import ARCH35_TILING_DTYPE

    names = [n for n, _ in struct.fields]
    if names != [f"var{i}" for i in range(len(names))] or any(t != "float" for _, t in struct.fields):
        file, line = struct.named_at
        raise KernelSourceError(file, line, f"tiling struct {struct.name}", f"the DAG's Placeholder::Var "
                                f"scalars {names} are not float var0, var1, ... in order")
    return np.dtype(ARCH35_TILING_DTYPE.descr + [(n, "<f4") for n in names], align=True,
                    metadata={"opbase": BROADCAST_STRUCT})


def host_tiling(op_name, dtype, numel, info, platform, attrs, buffers):
    """opbase's BroadcastTiling of two inputs of ``numel`` elements; ``buffers`` the DAG's
    ``(BufferNum, MaxDtypeBytes)``."""
    from ..ops.silu_grad.arch35 import ARCH35_TILING_DTYPE, broadcast_tiling
    from .host_tiling import ReadTiling

    if platform.architecture != ARCH_950:
        raise ValueError(f"platform (soc_version {platform.soc_version!r}) does not run the 950 BroadcastSch "
                         f"kernel {op_name}; give an Ascend 950 platform")
    bufs, widest = buffers
    record, block_num, schedule_key, _ = broadcast_tiling((numel,), (numel,), 8 * info.itemsize, 0,
                                                          8 * bufs * widest, platform)
    data = np.zeros((), dtype=dtype)
    for name in ARCH35_TILING_DTYPE.names:
        data[name] = record[name]
    for name, value in attrs.items():
        data[name] = value
    return ReadTiling(op_name, ARCH_950, data[()], int(block_num), int(schedule_key != 100), _WORKSPACE)


def launch(op, ins, out, tiling, info, variant, saturation) -> bool:
    """Run ``op`` on the broadcast walk where its record is a broadcast one (False where it is not)."""
    from .. import runtime
    from ..kernel import broadcast
    from .launch_scalars import attribute_values

    if not is_broadcast(tiling.data.dtype):
        return False
    if len(ins) != 2:           # (.operator runs other counts' equal shapes on the flat walk: FLAT_PASS)
        raise ValueError(f"{op.name} reads {len(ins)} inputs; the broadcast walk runs two")
    program = op.program(info, variant=variant)
    r = tiling.data
    params = op.compiled(info, variant, saturation).params(**attribute_values(op.description, program.attrs, r))
    bits = [a.reshape(-1).view(info.bits_dtype) for a in (*ins, out)]
    with runtime.launch_guard():
        broadcast.run_blocks(params, *bits, tiling.block_dim, int(r["blockFormer"]), int(r["blockTail"]),
                             int(r["ubFormer"]), int(r["ubOuter"]), int(r["ubTail"]), int(r["shapeLen"]),
                             int(r["ubSplitAxis"]), int(r["dimProductBeforeUbInner"]), int(r["elemNum"]),
                             np.array(r["outputDims"]), np.array(r["outputStrides"]), np.array(r["input0Strides"]),
                             np.array(r["input1Strides"]))
    return True


def walk_check(tiling, numel, info, platform, buffers):
    """SiluGrad's broadcast-record checks (the same fields), with the DAG's buffers; its tiling key is not
    checked (opbase's ``GetSchMode`` was not traced)."""
    from ..ops.registry import WalkCheck
    from ..ops.silu_grad.arch35 import arch35_walk_check

    check = arch35_walk_check(tiling, numel, info, platform or ASCEND950_PLATFORM)
    own = tuple(f for f in check.findings if f.code != "TILING_KEY_MISMATCH")
    return WalkCheck(None, (buffers,), check.pass_len, own)

# ---
# jupyter:
#   jupytext:
#     formats: ipynb,py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#       jupytext_version: 1.19.6
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Quick start: the Ascend SwishGrad kernel on a CPU
#
# `swishgrad_numba` emulates the NPU operator SwishGrad bit for bit:
#
#     s'(x)     = sigmoid(beta*x) * (1 + beta*x * (1 - sigmoid(beta*x)))
#     gradInput = gradOutput * s'(x)
#
# This notebook runs the operator's seed example three ways: through the Python
# entry point `swish_backward`, through the two-phase `aclnn` API exactly as a C
# program calls it, and against a float64 evaluation of the formula. On the way
# it shows the 72-byte tiling struct the host hands to the kernel.

# %%
# %matplotlib inline
import os

import numpy as np
import matplotlib.pyplot as plt

import swishgrad_numba as sg

# SWISHGRAD_NB_SMALL=1 selects tiny sizes (the test suite runs the notebooks that way).
SMALL = os.environ.get("SWISHGRAD_NB_SMALL", "") not in ("", "0")

# %% [markdown]
# ## 1. `swish_backward`: the seed example
#
# The seed example (docs/model.md section 1): float32, `beta = 1.1`, `gradOutput` six ones, `self` = 1..6.
# The result is the device's bits (every vector instruction of the kernel, in its
# order, with float32 rounding).

# %%
grad = np.ones(6, dtype=np.float32)
x = np.arange(1, 7, dtype=np.float32)
beta = 1.1

out32 = sg.swish_backward(grad, x, beta=beta)
spec_values = np.array([0.95636696, 1.0978101, 1.0776381, 1.0405896, 1.0182244, 1.0075958], dtype=np.float32)
print(out32)
print("equal to the model's seed values:", np.array_equal(out32, spec_values))

# %% [markdown]
# The same call works for float16 and bfloat16 (`sg.bfloat16` is `ml_dtypes.bfloat16`):
# the kernel widens the inputs to float32 exactly, runs the same float32
# instructions and rounds the result back to nearest even. Any shape and strides
# are accepted; here a transposed view gives the same values element by element.

# %%
outputs = {}
for name, dt in sg.SUPPORTED_DTYPES.items():
    outputs[name] = sg.swish_backward(grad.astype(dt), x.astype(dt), beta=beta)
    print(f"{name:>8}: {outputs[name]}")

xt = x.reshape(2, 3).T  # a non-contiguous (3, 2) view
print("transposed view:", sg.swish_backward(np.ones_like(xt), xt, beta=beta).ravel(), "(element order of the view)")

# %% [markdown]
# ## 2. The two-phase aclnn API, as C code calls it
#
# `swishgrad_numba.aclnn` keeps the C names and argument order; out-pointers become
# return values and `nullptr` is `None` (see `docs/aclnn.md`). Phase one
# (`aclnnSwishBackwardGetWorkspaceSize`) checks the arguments, computes the tiling and
# says how much workspace to allocate; phase two (`aclnnSwishBackward`) queues the
# launch on a stream. Results are defined after `aclrtSynchronizeStream`.

# %%
from swishgrad_numba import aclnn as acl
from swishgrad_numba.aclnn import ACL_SUCCESS


def CHECK_RET(ret, what):
    # the C sample's CHECK_RET: stop at the first failure, with the reason
    if ret != ACL_SUCCESS:
        raise RuntimeError(f"{what} failed. ERROR: {ret}: {acl.aclGetRecentErrMsg()}")


def create_acl_tensor(host, shape, data_type):
    # aclrtMalloc + aclrtMemcpy (host -> device) + aclCreateTensor, contiguous ND
    ret, device = acl.aclrtMalloc(host.nbytes, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    CHECK_RET(ret, "aclrtMalloc")
    CHECK_RET(acl.aclrtMemcpy(device, host.nbytes, host, host.nbytes, acl.ACL_MEMCPY_HOST_TO_DEVICE), "aclrtMemcpy")
    strides = [int(np.prod(shape[i + 1:])) for i in range(len(shape))]
    return device, acl.aclCreateTensor(shape, data_type, strides, 0, acl.ACL_FORMAT_ND, shape, device)


CHECK_RET(acl.aclInit(None), "aclInit")
CHECK_RET(acl.aclrtSetDevice(0), "aclrtSetDevice")
ret, stream = acl.aclrtCreateStream()
CHECK_RET(ret, "aclrtCreateStream")

shape = [2, 3]
grad_output_dev, grad_output = create_acl_tensor(grad, shape, acl.ACL_FLOAT)
self_dev, self_ = create_acl_tensor(x, shape, acl.ACL_FLOAT)
grad_input_dev, grad_input = create_acl_tensor(np.zeros(6, dtype=np.float32), shape, acl.ACL_FLOAT)
beta_optional = acl.aclCreateScalar(np.float32(beta), acl.ACL_FLOAT)

# phase one: checks, host tiling, workspace size
ret, workspace_size, executor = acl.aclnnSwishBackwardGetWorkspaceSize(grad_output, self_, beta_optional, grad_input)
CHECK_RET(ret, "aclnnSwishBackwardGetWorkspaceSize")
workspace = None
if workspace_size > 0:
    ret, workspace = acl.aclrtMalloc(workspace_size, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    CHECK_RET(ret, "aclrtMalloc")
# phase two: queue the launch, then wait for the stream
CHECK_RET(acl.aclnnSwishBackward(workspace, workspace_size, executor, stream), "aclnnSwishBackward")
CHECK_RET(acl.aclrtSynchronizeStream(stream), "aclrtSynchronizeStream")

result = np.zeros(6, dtype=np.float32)
CHECK_RET(acl.aclrtMemcpy(result, result.nbytes, grad_input_dev, result.nbytes, acl.ACL_MEMCPY_DEVICE_TO_HOST),
          "aclrtMemcpy")
print("workspace size :", workspace_size, "bytes")
print("aclnn result   :", result)
print("same bits as swish_backward:", np.array_equal(result.view(np.uint32), out32.view(np.uint32)))

# %% [markdown]
# A failed check is a status code plus a message, never an exception; here a null
# `self`:

# %%
ret, _, _ = acl.aclnnSwishBackwardGetWorkspaceSize(grad_output, None, beta_optional, grad_input)
print(ret, "=", "ACLNN_ERR_PARAM_NULLPTR" if ret == acl.ACLNN_ERR_PARAM_NULLPTR else "?", "|", acl.aclGetRecentErrMsg())

# release, as the C sample does
for tensor in (grad_output, self_, grad_input):
    acl.aclDestroyTensor(tensor)
acl.aclDestroyScalar(beta_optional)
for buffer in (grad_output_dev, self_dev, grad_input_dev, workspace):
    if buffer is not None:
        acl.aclrtFree(buffer)
acl.aclrtDestroyStream(stream)
acl.aclrtResetDevice(0)
acl.aclFinalize();


# %% [markdown]
# ## 3. The tiling struct
#
# Phase one computed the host tiling (model section 3) the device launch would get:
# eight `uint64` fields and the float32 `sconf` (beta), 72 bytes with the C layout
# (4 bytes of tail padding), plus the block dimension (cores launched) and the tiling
# key. Six float32 elements fit in one tile on one core; the 32-byte DataCopy
# granule makes the core move 8 elements (`smallCoreDataNum`).

# %%
def show_tiling(tiling):
    record = tiling.data
    print(f"{'field':>18}  {'C type':8} {'offset':>6}  value")
    for name in sg.TILING_FIELDS:
        dtype, offset = sg.TILING_DTYPE.fields[name][:2]
        ctype = "uint64_t" if dtype.kind == "u" else "float"
        print(f"{name:>18}  {ctype:8} {offset:>6}  {record[name]}")
    print(f"blockDim = {tiling.block_dim}, tilingKey = {tiling.tiling_key}, workspace = {tiling.workspace_size} bytes")
    raw = tiling.tobytes()
    print(f"{len(raw)} bytes, little-endian:", raw.hex(" ", 8))


show_tiling(executor.tiling)

# %% [markdown]
# A tensor of 2^20 float16 elements on the reference platform (48 cores, 192 KiB
# unified buffer): 48 cores, 16 of them "big" (one 32-byte block more), 3 tiles of
# up to 8192 elements each. The second notebook draws such tilings.

# %%
show_tiling(sg.compute_tiling(1 << 20, "float16", scale=beta))

# %% [markdown]
# ## 4. Outputs against float64
#
# The exact value of the formula, evaluated in float64 from the inputs the kernel
# sees (beta rounded to float32), shows how much each dtype loses. The relative
# error is `|out - exact| / |exact|`; the dashed lines are the operator's MERE
# thresholds (model section 7: 2^-13, 2^-10, 2^-7). `precision.compare` gives the ULP
# distance to the correctly rounded value and the verdict: float32 is within 2 ULP
# (a few 1e-7); float16 and bfloat16 are correctly rounded here (0 ULP), their error
# is only the rounding to 11 or 8 significant bits.

# %%
# The formula in float64 from the values the kernel sees (inputs in their dtype,
# beta as float32): the package's one float64 truth.
from swishgrad_numba.golden import float64_truth

from swishgrad_numba.precision import THRESHOLDS, compare

exact = float64_truth(grad, x, beta)
fig, ax = plt.subplots(figsize=(9, 4))
width = 0.27
for k, (name, out) in enumerate(outputs.items()):
    rel = np.abs(out.astype(np.float64) - exact) / np.abs(exact)
    exact_mask = rel == 0
    shown = np.where(exact_mask, 1e-10, rel)  # log scale: exact results drawn at the floor
    ax.bar(np.arange(6) + (k - 1) * width, shown, width, color=f"C{k}", label=name)
    ax.axhline(THRESHOLDS[name], color=f"C{k}", ls="--", lw=1)
    report = compare(out, exact)
    print(f"{name:>8}: max ULP {report.max_ulp}, MARE {report.mare:.2e}, verdict {'PASS' if report.passed else 'FAIL'}")
ax.set_yscale("log")
ax.set_ylim(1e-10, 1)
ax.set_xticks(np.arange(6), [f"x = {v:g}" for v in x])
ax.set_ylabel("relative error vs float64 (exact drawn at 1e-10)")
ax.set_title("Seed example, beta = 1.1: relative error of each dtype (dashed: the MERE threshold)")
ax.legend(title="dtype")
plt.show()

"""The operator's aclnnSwishBackward sample, translated line by line to swishgrad_numba.aclnn.

The C sample (ops-nn ``activation/swish_grad/examples``) runs the seed
example: float32, gradOutput = six ones, self = 1..6 of shape (2, 3), beta =
1.1 as an ACL_FLOAT scalar. Each C call keeps its name; out-pointer
arguments become return values and ``nullptr`` becomes ``None``.

Run: ``python docs/aclnn_sample.py``. The one deliberate change: C prints
``%f`` (six decimals), this prints each float32 in its shortest round-trip
form, so the printed text gives back the exact bits. Like the C sample on a
device, it runs on the platform selected (``aclnn.set_platform``; the A2
reference by default): call ``main()`` after selecting
``swishgrad_numba.ASCEND950_PLATFORM`` to see the Ascend 950's values.
"""
import sys

import numpy as np

from swishgrad_numba.aclnn import (
    ACL_FLOAT,
    ACL_FORMAT_ND,
    ACL_MEM_MALLOC_HUGE_FIRST,
    ACL_MEMCPY_DEVICE_TO_HOST,
    ACL_MEMCPY_HOST_TO_DEVICE,
    ACL_SUCCESS,
    aclCreateScalar,
    aclCreateTensor,
    aclDestroyScalar,
    aclDestroyTensor,
    aclFinalize,
    aclInit,
    aclnnSwishBackward,
    aclnnSwishBackwardGetWorkspaceSize,
    aclrtCreateStream,
    aclrtDestroyStream,
    aclrtFree,
    aclrtMalloc,
    aclrtMemcpy,
    aclrtResetDevice,
    aclrtSetDevice,
    aclrtSynchronizeStream,
)


def LOG_PRINT(message):
    print(message, end="")


def GetShapeSize(shape):
    shape_size = 1
    for i in shape:
        shape_size *= i
    return shape_size


def Init(device_id):
    # fixed code: resource initialisation
    ret = aclInit(None)
    if ret != ACL_SUCCESS:
        LOG_PRINT(f"aclInit failed. ERROR: {ret}\n")
        return ret, None
    ret = aclrtSetDevice(device_id)
    if ret != ACL_SUCCESS:
        LOG_PRINT(f"aclrtSetDevice failed. ERROR: {ret}\n")
        return ret, None
    ret, stream = aclrtCreateStream()
    if ret != ACL_SUCCESS:
        LOG_PRINT(f"aclrtCreateStream failed. ERROR: {ret}\n")
        return ret, None
    return 0, stream


def CreateAclTensor(host_data, shape, data_type):
    size = GetShapeSize(shape) * host_data.itemsize
    # aclrtMalloc: device memory
    ret, device_addr = aclrtMalloc(size, ACL_MEM_MALLOC_HUGE_FIRST)
    if ret != ACL_SUCCESS:
        LOG_PRINT(f"aclrtMalloc failed. ERROR: {ret}\n")
        return ret, None, None
    # aclrtMemcpy: host data -> device memory
    ret = aclrtMemcpy(device_addr, size, host_data, size, ACL_MEMCPY_HOST_TO_DEVICE)
    if ret != ACL_SUCCESS:
        LOG_PRINT(f"aclrtMemcpy failed. ERROR: {ret}\n")
        return ret, None, None

    # strides of a contiguous tensor
    strides = [1] * len(shape)
    for i in range(len(shape) - 2, -1, -1):
        strides[i] = shape[i + 1] * strides[i + 1]

    # aclCreateTensor
    tensor = aclCreateTensor(shape, data_type, strides, 0, ACL_FORMAT_ND, shape, device_addr)
    return 0, device_addr, tensor


def main():
    # 1. device / stream initialisation
    device_id = 0
    ret, stream = Init(device_id)
    if ret != ACL_SUCCESS:
        LOG_PRINT(f"Init acl failed. ERROR: {ret}\n")
        return ret

    # 2. inputs and outputs
    grad_output_shape = [2, 3]
    self_shape = [2, 3]
    grad_input_shape = [2, 3]
    grad_out_host_data = np.array([1, 1, 1, 1, 1, 1], dtype=np.float32)
    self_host_data = np.array([1, 2, 3, 4, 5, 6], dtype=np.float32)
    grad_input_host_data = np.array([0, 0, 0, 0, 0, 0], dtype=np.float32)
    beta_value = np.float32(1.1)

    # gradOut aclTensor
    ret, grad_out_device_addr, grad_out = CreateAclTensor(grad_out_host_data, grad_output_shape, ACL_FLOAT)
    if ret != ACL_SUCCESS:
        return ret

    # self aclTensor
    ret, self_device_addr, self_ = CreateAclTensor(self_host_data, self_shape, ACL_FLOAT)
    if ret != ACL_SUCCESS:
        return ret

    # betaOptional aclScalar
    beta_optional = aclCreateScalar(beta_value, ACL_FLOAT)
    if beta_optional is None:
        return ret

    # gradInput aclTensor
    ret, grad_input_device_addr, grad_input = CreateAclTensor(grad_input_host_data, grad_input_shape, ACL_FLOAT)
    if ret != ACL_SUCCESS:
        return ret

    # 3. call the operator: phase one
    ret, workspace_size, executor = aclnnSwishBackwardGetWorkspaceSize(grad_out, self_, beta_optional, grad_input)
    if ret != ACL_SUCCESS:
        LOG_PRINT(f"aclnnSwishBackwardGetWorkspaceSize failed. ERROR: {ret}\n")
        return ret
    # workspace of the size phase one asked for
    workspace_addr = None
    if workspace_size > 0:
        ret, workspace_addr = aclrtMalloc(workspace_size, ACL_MEM_MALLOC_HUGE_FIRST)
        if ret != ACL_SUCCESS:
            LOG_PRINT(f"allocate workspace failed. ERROR: {ret}\n")
            return ret
    # phase two
    ret = aclnnSwishBackward(workspace_addr, workspace_size, executor, stream)
    if ret != ACL_SUCCESS:
        LOG_PRINT(f"aclnnSwishBackward failed. ERROR: {ret}\n")
        return ret

    # 4. wait for the stream
    ret = aclrtSynchronizeStream(stream)
    if ret != ACL_SUCCESS:
        LOG_PRINT(f"aclrtSynchronizeStream failed. ERROR: {ret}\n")
        return ret

    # 5. copy the result from device to host and print it
    size = GetShapeSize(grad_input_shape)
    out_data = np.zeros(size, dtype=np.float32)
    ret = aclrtMemcpy(out_data, out_data.size * out_data.itemsize, grad_input_device_addr,
                      size * out_data.itemsize, ACL_MEMCPY_DEVICE_TO_HOST)
    if ret != ACL_SUCCESS:
        LOG_PRINT(f"copy result from device to host failed. ERROR: {ret}\n")
        return ret
    for i in range(size):
        LOG_PRINT(f"out result[{i}] is: {out_data[i]!s}\n")

    # 6. release aclTensor and aclScalar
    aclDestroyTensor(grad_out)
    aclDestroyTensor(self_)
    aclDestroyScalar(beta_optional)
    aclDestroyTensor(grad_input)

    # 7. release device resources
    aclrtFree(grad_out_device_addr)
    aclrtFree(self_device_addr)
    aclrtFree(grad_input_device_addr)
    if workspace_size > 0:
        aclrtFree(workspace_addr)
    aclrtDestroyStream(stream)
    aclrtResetDevice(device_id)
    aclFinalize()
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Private storage formats in the generated aclnn pairs (issue 40): a description's ``storage_formats``.

An operator whose op definition lists a private format beside ``ACL_FORMAT_ND`` (aclnnSwishBackward's A2 kernel:
NC1HWC0 and FRACTAL_NZ) runs the element-wise kernel over the storage of tensors that all share that format and
one storage shape: its padding included, as the device does. The rules, in the op_api's order:

- phase one's emulator checks (:func:`check_storage`): the inputs and the output in one storage format (or
  all ND-type, whose checks are :func:`~.tensor.check_emulator_storage`'s), views NumPy can address inside
  their storage, equal storage shapes, a writable output (161002);
- a non-empty launch (:func:`kernel_format_refusal`): the platform's kernel takes the format (an empty one
  chooses no kernel), else 161002; the host tiling counts the storage's elements (:func:`tiled_numel`);
- phase two (:func:`flat_arrays`): the kernel runs over the flat storages.
"""
from __future__ import annotations

import numpy as np

from ..platform import ARCH_950
from .enums import ACLNN_ERR_PARAM_INVALID, PLAIN_FORMATS, format_name
from .tensor import check_addressable, check_emulator_storage, check_tensor_geometry
from .twophase import tensor_view

__all__ = ["check_storage", "kernel_format_refusal", "tiled_numel", "flat_arrays", "is_private"]

#: The kernels' names in the messages, by architecture.
_KERNEL_NAMES = {ARCH_950: "Ascend 950"}


def is_private(tensor) -> bool:
    """Whether ``tensor`` is stored in a private format (not ND, NCHW or NHWC, which store as ND does)."""
    return tensor.format not in PLAIN_FORMATS


def _listed(names) -> str:
    names = list(names)
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def check_storage(desc, named, out, out_name: str):
    """None, or ``(161002, message)``: the emulator's checks of a launch's tensors (``named``: ``(name,
    tensor)`` pairs, the output among them), where ``desc.storage_formats`` takes private formats."""
    named = tuple(named)
    if not desc.storage_formats or not any(is_private(t) for _, t in named):
        return check_emulator_storage(named, out, out_name)
    taken = {f for formats in desc.storage_formats.values() for f in formats}
    fmts = {format_name(t.format) for _, t in named}
    if len(fmts) != 1 or next(iter(fmts)) not in taken:
        return ACLNN_ERR_PARAM_INVALID, (f"{_listed(n for n, _ in named)} must share one storage format, got "
                                         f"{', '.join(format_name(t.format) for _, t in named)}")
    for name, tensor in named:
        message = check_addressable(tensor, name) or check_tensor_geometry(tensor, name)
        if message:
            return ACLNN_ERR_PARAM_INVALID, message
    if len({tuple(t.storage_shape) for _, t in named}) != 1:
        return ACLNN_ERR_PARAM_INVALID, ("storage shapes must be equal, got "
                                         + ", ".join(f"{n} {t.storage_shape}" for n, t in named))
    if not out.storage.flags.writeable:
        return ACLNN_ERR_PARAM_INVALID, f"{out_name}'s data is read-only"
    return None


def kernel_format_refusal(desc, named, platform):
    """None, or the message (161002) where the tensors' private format is not one the platform's kernel takes."""
    first = named[0][1]
    if not is_private(first) or format_name(first.format) in desc.storage_formats.get(platform.architecture, ()):
        return None
    kernel = _KERNEL_NAMES.get(platform.architecture, platform.architecture)
    takes = desc.storage_formats.get(platform.architecture, ())
    return (f"{_listed(n for n, _ in named)} are in {format_name(first.format)}; the {kernel} kernel (platform "
            f"soc_version {platform.soc_version!r}) takes ACL_FORMAT_ND storage "
            + (f"or {', '.join(takes)}" if takes else "only") + " (or NCHW / NHWC, stored as ND)")


def tiled_numel(out) -> int:
    """The elements the host tiling counts: the view's (made contiguous), or a private format's storage's."""
    return out.storage.size if is_private(out) else out.numel


def flat_arrays(inputs, out):
    """``(input arrays, output array)`` of a launch: the views (the inputs made contiguous), or for a private
    format the storages, flat."""
    if is_private(out):
        return [t.storage.reshape(-1) for _, t in inputs], out.storage.reshape(-1)
    return [np.ascontiguousarray(tensor_view(t)) for _, t in inputs], tensor_view(out)

"""A tiling's launch as the validator and the checked walk see it.

:func:`launch_of` normalises a tiling once per call: the record (either
layout) through :func:`~swishgrad_numba.tiling.io.as_tiling_record`, its
fields as the architecture's ``TilingFields`` of Python ints (read by name
from then on), the dtype, and the platform (by default the one of the
record's kernel). :func:`walk_classes` describes the launched cores as
classes that share one walk shape, from the model's own core arithmetic
(:func:`~swishgrad_numba.kernel.plan.classes_of`, i.e.
:func:`spec.a2.core_classes` and :func:`spec.arch35.block_classes`).
"""
from __future__ import annotations

from typing import NamedTuple

from .. import kernel
from ..dtypes import DTypeInfo, dtype_info
from ..kernel.plan import FIELD_CAP, classes_of
from ..platform import ARCH_950, ARCH_A2, ASCEND950_PLATFORM, REFERENCE_PLATFORM, Platform
from ..spec import a2 as spec_a2
from ..spec import arch35 as spec_arch35
from ..spec.arith import CoreClass
from .io import as_tiling_record
from .records import RecordLayout, layout_of, tiling_fields

__all__ = ["FIELD_CAP", "KERNEL_NAMES", "Launch", "WalkClass", "launch_of", "negative_fields", "negative_masks",
           "negative_walk_fields", "padded_numel", "padded_slots", "platform_for", "walk_classes"]

# FIELD_CAP (kernel.plan's): fields, core counts and offsets beyond any
# tensor are clamped to it (2**61) wherever they enter int64 arithmetic: sums
# of two clamped values still fit in int64, and every offset at or past it
# lies far beyond any tensor the validator accepts, so the clamp changes no
# verdict.

#: The kernels by architecture, for messages.
KERNEL_NAMES = {ARCH_A2: "Atlas A2 kernel", ARCH_950: "Ascend 950 kernel"}

# The walk classes in the order classes_of gives them: A2 big then small
# cores (model section 4); 950 former blocks, the tail block, and blocks
# launched past blockNum (which run the former blocks' loops).
_CLASS_NAMES = {ARCH_A2: ("big", "small"), ARCH_950: ("former", "tail", "extra")}



class Launch(NamedTuple):
    """One tiling, normalised: everything after :func:`launch_of` reads this."""

    layout: RecordLayout
    fields: tuple          # the architecture's TilingFields, Python ints
    beta: float            # the struct's sconf / scale
    block_dim: int
    key: int | None        # tiling key, None when not given (a bare 950 record)
    info: DTypeInfo
    platform: Platform

    @property
    def architecture(self) -> str:
        return self.layout.architecture

    def fields_dict(self) -> dict:
        """The fields and beta under their struct names, for output."""
        out = self.fields._asdict()
        out[self.layout.beta_field] = self.beta
        return out


class WalkClass(NamedTuple("WalkClass", [("name", str), *CoreClass.__annotations__.items()])):
    """A :class:`~swishgrad_numba.spec.arith.CoreClass` with the name the
    findings give its cores (``big``, ``former``, ...): cores ``first ..
    first + cores - 1``, core ``first + k`` starting at ``base + count * k``.
    Python ints, exact."""

    __slots__ = ()
    length = CoreClass.length
    start = CoreClass.start

    def pass_of(self, core: int, element: int) -> int:
        """The pass of ``core`` holding ``element`` (its last pass when past it)."""
        off = element - self.start(core)
        if self.pass_len == 0 or off < 0:
            return max(self.passes - 1, 0)
        return min(off // self.pass_len, self.passes - 1)

    def span(self, first: int | None = None, cores: int | None = None) -> str:
        """``"core 3 (big)"`` or ``"cores 3..7 (big)"``: some of the class's cores, by default all."""
        first = self.first if first is None else first
        cores = self.cores if cores is None else cores
        if cores == 1:
            return f"core {first} ({self.name})"
        return f"cores {first}..{first + cores - 1} ({self.name})"


def walk_classes(launch: Launch) -> tuple:
    """The launch's cores as :class:`WalkClass` es, in core order."""
    classes = classes_of(launch.fields, launch.block_dim, kernel.arch_code(launch.architecture))
    return tuple(WalkClass(name, *c) for name, c in zip(_CLASS_NAMES[launch.architecture], classes))


def platform_for(platform, layout: RecordLayout) -> Platform:
    """The platform a tiling is checked on: the given one, or its kernel's default.

    Raises
    ------
    TypeError
        ``platform`` is not a Platform.
    ValueError
        The platform's SoC runs the other kernel than the record's layout.
    """
    if platform is None:
        return ASCEND950_PLATFORM if layout.architecture == ARCH_950 else REFERENCE_PLATFORM
    if not isinstance(platform, Platform):
        raise TypeError(f"platform must be a Platform, got {type(platform).__name__}")
    if platform.architecture != layout.architecture:
        raise ValueError(
            f"platform (soc_version {platform.soc_version!r}) runs the {KERNEL_NAMES[platform.architecture]}, "
            f"but the tiling is a record of the {KERNEL_NAMES[layout.architecture]} ({layout.nbytes}-byte struct); "
            f"give a platform of the record's kernel, or None")
    return platform


def launch_of(tiling, dtype, platform, block_dim) -> Launch:
    """Normalise a tiling, its dtype and platform (the checks each raise a TypeError/ValueError)."""
    record, block_dim, key = as_tiling_record(tiling, block_dim)
    layout = layout_of(record)
    info = dtype_info(dtype, argname="dtype")
    platform = platform_for(platform, layout)
    return Launch(layout, tiling_fields(record), float(record[layout.beta_field]), block_dim, key, info, platform)


def padded_numel(launch: Launch, numel: int) -> int:
    """Element slots a launch may touch without leaving the allocation.

    A2: ``numel`` rounded up to whole blocks (model section 4); 950: ``numel``
    (its DMA moves exact ranges, there is no padding to land in).
    """
    return padded_slots(launch.platform, launch.info.itemsize, numel)


def padded_slots(platform: Platform, itemsize: int, numel: int) -> int:
    """:func:`padded_numel` of a tensor of ``numel`` elements of ``itemsize`` bytes on ``platform``."""
    if platform.architecture == ARCH_950:
        return numel
    return spec_a2.padded_numel(numel, itemsize, platform.block_size)


def negative_fields(architecture: str, fields, classes) -> tuple:
    """``(read, unread)``: the names of the 950 walk fields that are negative,
    split by whether a launched block reads them (``classes``: the launch's,
    from :func:`~swishgrad_numba.kernel.plan.classes_of`). A2 fields are
    unsigned: ``([], [])``."""
    if architecture != ARCH_950:
        return [], []
    masks = negative_masks(fields, classes)
    return [name for name, (read, _) in masks.items() if read], [name for name, (_, unread) in masks.items() if unread]


def negative_masks(fields, classes) -> dict:
    """For each 950 walk field, ``(negative and read by a launched block,
    negative and read by none)``: bools for Python ints, bool arrays for
    arrays (the sweep's verdict)."""
    out = {}
    for name in dict.fromkeys(n for names in spec_arch35.CLASS_FIELDS for n in names):
        read = False
        for c, names in zip(classes, spec_arch35.CLASS_FIELDS):
            if name in names:
                read = read | (c.cores > 0)
        negative = getattr(fields, name) < 0
        out[name] = (negative & read, negative & (read == 0))
    return out


def negative_walk_fields(launch: Launch) -> list:
    """Names of the 950 fields a launched block reads that are negative: its walk is not one."""
    return negative_fields(launch.architecture, launch.fields, walk_classes(launch))[0]

"""What the validator says about a tiling: finding codes, findings, the report."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..platform import Platform
from .launch import KERNEL_NAMES

__all__ = ["CODES", "MAX_FINDINGS_PER_CODE", "Finding", "ValidationReport", "add_capped", "finding"]

#: Every finding code, its severity and what it means. The codes are stable.
#: Codes marked "A2" or "950" apply to that kernel's tilings only.
CODES = {
    "BLOCK_DIM_RANGE": ("error", "block dim (cores launched) is 0 or exceeds the platform's core count"),
    "UB_OVERFLOW": ("error", "the kernel's buffers, each rounded up to 32 bytes by InitBuffer, do not fit the "
                             "unified buffer (A2: its buffer plan of tileDataNum elements; 950: six slots of "
                             "ubFormer elements)"),
    "TILE_COUNT_MISMATCH": ("error", "(passes - 1) * pass length + last pass differs from a core's length (A2: "
                                     "tiles of tileDataNum and coreDataNum; 950: UB loops of ubFormer and "
                                     "blockFormer, or dim0 - (blockNum - 1) * blockFormer for the tail block), or "
                                     "a 950 block has no UB loop"),
    "TAIL_RANGE": ("error", "the last pass's length is not in [1, pass length] (A2: tileDataNum; 950: ubFormer)"),
    "TRANSFER_NOT_BLOCK_ALIGNED": ("error", "A2: a tile transfer is not a whole number of blocks"),
    "COVERAGE_GAP": ("error", "elements of the tensor that no core computes"),
    "COVERAGE_OVERLAP": ("error", "elements of the tensor computed more than once"),
    "OVERRUN_PADDING": ("warning", "A2: reads/writes past the tensor end, inside the block padding"),
    "OVERRUN_BEYOND_PADDING": ("error", "reads/writes past the tensor end and beyond its block padding (950: any "
                                        "transfer past the end; its DMA is exact, there is no padding)"),
    "IDLE_CORE": ("warning", "A2: a launched core runs no tile"),
    "SCONF_NONFINITE": ("warning", "beta (sconf, 950: scale) is NaN or infinite"),
    "TILING_KEY_UNKNOWN": ("warning", "A2: SwishGrad has one kernel variant, tiling key 0"),
    "ANALYSIS_TRUNCATED": ("warning", "a class has too many cores to analyse one by one: the first and the last "
                                      "two are; those between, when they abut, as one range (the coverage stays "
                                      "exact), else no gap past the first is reported; the balance figures are "
                                      "partial"),
    "CHECKED_RUN_DISAGREES": ("error", "the instrumented run contradicts the analytic coverage (a bug)"),
    "FIELD_NEGATIVE": ("error", "950: a length or count a launched block reads (blockFormer, ubFormer, a UB loop "
                                "count or tail) is negative; the walk is not analysed"),
    "FIELD_NEGATIVE_UNREAD": ("warning", "950: a UB loop count or tail of a kind of block that is not launched "
                                         "is negative (no block reads it)"),
    "UB_FORMER_NOT_BLOCK_ALIGNED": ("error", "950: ubFormer * itemsize is not a multiple of 32 bytes: the six UB "
                                             "slots lie back to back, so slots start off the 32-byte alignment "
                                             "of UB addresses, and each copy-in's 32-byte padding spills into "
                                             "the next slot"),
    "UB_FORMER_NOT_REGISTER_ALIGNED": ("warning", "950: ubFormer is not a multiple of 256 bytes (one vector "
                                                  "register) of the dtype, as the host rounds it; the kernel "
                                                  "masks a pass's last register, so it computes correctly"),
    "BLOCK_FORMER_NOT_ALIGNED": ("warning", "950: blockFormer is not a multiple of 512 elements, as the host "
                                            "rounds it; the exact DMA copies from any offset"),
    "BLOCK_NUM_MISMATCH": ("error", "950: block dim differs from blockNum; the kernel takes block blockNum - 1 "
                                    "as its tail block and every other as a former block"),
    "DIM0_MISMATCH": ("warning", "950: dim0 differs from numel (the kernel does not read dim0; the coverage "
                                 "findings say what the walk does)"),
    "CORE_NUM_RANGE": ("warning", "950: coreNum is not in [blockNum, the platform's core count] (the kernel "
                                  "does not read it; block dim is what launches)"),
    "ELEM_NUM_MISMATCH": ("warning", "950: elemNum differs from ubFormer (the kernel does not read it)"),
    "SCHE_MODE_UNKNOWN": ("warning", "950: scheMode is not 1, the only schedule mode ElewiseBaseTiling sets"),
    "TILING_KEY_MISMATCH": ("error", "950: the tiling key is not the host's for this dtype (float16 3, bfloat16 "
                                     "5, float32 7); another operator's record: the key is not one its host gives "
                                     "for the record (its beta class, schMode or dtypes): the launch runs another "
                                     "kernel variant"),
    "FIELD_RANGE": ("error", "another operator's record: a field is outside the range its kernel can run with "
                             "(a zero length the walk divides by or steps with, an axis or length out of range)"),
}

#: Findings listed per code before the rest are summarised in one more.
MAX_FINDINGS_PER_CODE = 8


@dataclass(frozen=True)
class Finding:
    """One problem (or remark) about a tiling.

    Attributes
    ----------
    code : str
        Stable identifier, a key of :data:`CODES`.
    severity : str
        ``"error"`` (the launch computes a wrong result or breaks a
        constraint) or ``"warning"``.
    message : str
        A sentence for a person.
    core : int or None
        The core (950: block) concerned, None when not one core.
    tile : int or None
        The pass (A2: tile; 950: UB loop; 0-based, within ``core``)
        concerned, None when not applicable.
    """

    code: str
    severity: str
    message: str
    core: int | None = None
    tile: int | None = None

    def __str__(self) -> str:
        where = ""
        if self.core is not None:
            where = f" [core {self.core}" + (f", tile {self.tile}]" if self.tile is not None else "]")
        return f"{self.severity.upper()} {self.code}{where}: {self.message}"


def finding(code: str, message: str, core: int | None = None, tile: int | None = None) -> Finding:
    """A :class:`Finding` with the severity :data:`CODES` gives its code."""
    return Finding(code, CODES[code][0], message, core, tile)


def add_capped(findings: list, new: list, total: int, code: str, what: str) -> None:
    """Add the first findings of one code (``new``, at most :data:`MAX_FINDINGS_PER_CODE`
    of ``total``) and one more that counts the rest."""
    findings.extend(new[:MAX_FINDINGS_PER_CODE])
    if total > MAX_FINDINGS_PER_CODE:
        findings.append(finding(code, f"... and {total - MAX_FINDINGS_PER_CODE} more {what}."))


@dataclass(frozen=True)
class ValidationReport:
    """Outcome of :func:`~swishgrad_numba.tiling.validate_tiling`.

    ``ok`` is True when no finding is an error (warnings allowed);
    ``fields`` are the record's fields by name (for output); ``buffers`` is
    the A2 unified-buffer plan the check used (empty for a 950 tiling);
    ``balance`` is None when the walk could not be analysed.
    """

    numel: int
    dtype: np.dtype
    platform: Platform
    block_dim: int
    fields: dict
    findings: tuple
    balance: object | None
    buffers: tuple = ()

    @property
    def architecture(self) -> str:
        """The kernel the tiling is for: ``"a2"`` or ``"arch35"``."""
        return self.platform.architecture

    @property
    def ok(self) -> bool:
        return not any(f.severity == "error" for f in self.findings)

    @property
    def errors(self) -> list:
        return [f for f in self.findings if f.severity == "error"]

    @property
    def warnings(self) -> list:
        return [f for f in self.findings if f.severity == "warning"]

    def codes(self, severity: str | None = None) -> set:
        """The set of finding codes (optionally of one severity)."""
        return {f.code for f in self.findings if severity is None or f.severity == severity}

    def format(self) -> str:
        """A human-readable report."""
        head = (f"tiling for numel={self.numel} {self.dtype.name}, block_dim={self.block_dim} "
                f"({KERNEL_NAMES[self.architecture]}): " + ("OK" if self.ok else "INVALID")
                + f" ({len(self.errors)} error(s), {len(self.warnings)} warning(s))")
        return "\n".join([head] + ["  " + str(f) for f in self.findings])

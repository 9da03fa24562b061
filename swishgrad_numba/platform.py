"""The hardware a tiling is computed for."""
from __future__ import annotations

import numbers
from dataclasses import dataclass

__all__ = ["Platform", "REFERENCE_PLATFORM", "BF16_SOC_VERSIONS"]

#: SoC versions on which the operator accepts bfloat16 (ASCEND910B..ASCEND910E).
BF16_SOC_VERSIONS = ("ascend910b", "ascend910c", "ascend910d", "ascend910e")


@dataclass(frozen=True)
class Platform:
    """An Ascend AI-core platform as the host tiling sees it.

    Parameters
    ----------
    ub_size : int
        Unified-buffer (local memory) size of one AI core, in bytes.
    core_num : int
        Number of AI cores the launch may use.
    block_size : int
        DataCopy granule in bytes; every transfer is a whole number of blocks.
    soc_version : str
        SoC family name, e.g. ``"ascend910b"``; decides whether bfloat16 is
        accepted by the aclnn layer.
    lib_workspace_size : int
        Library workspace the aclnn layer reports for a launch, in bytes.
    """

    ub_size: int = 196608
    core_num: int = 48
    block_size: int = 32
    soc_version: str = "ascend910b"
    lib_workspace_size: int = 16 * 1024 * 1024

    def __post_init__(self):
        for name in ("ub_size", "core_num", "block_size", "lib_workspace_size"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, numbers.Integral):
                raise TypeError(f"Platform.{name} must be an integer, got {type(value).__name__}")
            if value <= 0:
                raise ValueError(f"Platform.{name} must be > 0, got {value}")
            object.__setattr__(self, name, int(value))
        if not isinstance(self.soc_version, str) or not self.soc_version:
            raise ValueError("Platform.soc_version must be a non-empty string")

    @property
    def supports_bfloat16(self) -> bool:
        """Whether the SoC is in the ASCEND910B..ASCEND910E range."""
        return self.soc_version.lower().replace("_", "") in BF16_SOC_VERSIONS


#: The operator's tiling unit-test platform (SPEC section 3).
REFERENCE_PLATFORM = Platform()

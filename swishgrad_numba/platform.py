"""The hardware a tiling is computed for, and the SoC families of CANN (SPEC section 8)."""
from __future__ import annotations

import numbers
import re
from dataclasses import dataclass

__all__ = ["Platform", "REFERENCE_PLATFORM", "BF16_SOC_VERSIONS", "SOC_VERSIONS", "soc_family_of"]

#: CANN's ``op::SocVersion`` enum (opbase ``include/nnopbase/opdev/platform.h``) as family names, in enum order:
#: a family's index here is its enum value. ASCEND910_95 is another name of ASCEND950 (the same value).
SOC_VERSIONS = (
    "ascend910", "ascend910b", "ascend910_93", "ascend950", "ascend910e", "ascend310", "ascend310p",
    "ascend310b", "ascend310c", "ascend610lite", "kirinx90", "kirin9030", "ascend350",
)

# Other names of a family (lower case).
_FAMILY_ALIASES = {"ascend910_95": "ascend950"}

# Chip names (CANN's ``SoC_version``, e.g. ``Ascend910B3``) -> family (its ``Short_SoC_version``), matched in
# full against the lower-cased name. A family name itself always means the family: ``Ascend910B`` is the
# ASCEND910B family, as in opbase's conversion table.
_CHIP_RULES = tuple((re.compile(pattern), family) for pattern, family in (
    (r"ascend910(a|pro[a-z]|premium[a-z])", "ascend910"),      # Ascend910A, Ascend910ProA/ProB, ...PremiumA
    (r"ascend910b[0-9][0-9a-z-]*", "ascend910b"),              # Ascend910B1..B4, B2C, B4-1 (Atlas A2)
    (r"ascend910_93[0-9a-z]+", "ascend910_93"),                # Ascend910_9391/9392/9381/9382/9372/9362 (A3)
    (r"ascend910_95[0-9a-z]+", "ascend950"),                   # Ascend910_9579, Ascend910_950z, ...
    (r"ascend950(pr|dt)_[0-9a-z]+", "ascend950"),              # Ascend950PR_9599, Ascend950DT_95A1, ...
    (r"ascend310p[0-9]+", "ascend310p"),                       # Ascend310P1, P3, P5, P7
    (r"ascend310b[0-9]+", "ascend310b"),                       # Ascend310B1..B4
))

# The op_api accepts bfloat16 when ASCEND910B <= soc <= ASCEND910E in enum order.
_BF16_FIRST, _BF16_LAST = SOC_VERSIONS.index("ascend910b"), SOC_VERSIONS.index("ascend910e")

#: SoC families on which the operator accepts bfloat16: the ASCEND910B..ASCEND910E range of :data:`SOC_VERSIONS`.
BF16_SOC_VERSIONS = SOC_VERSIONS[_BF16_FIRST:_BF16_LAST + 1]


def soc_family_of(soc_version: str) -> str | None:
    """The SoC family of a family or chip name, or ``None`` when the name is unknown.

    Parameters
    ----------
    soc_version : str
        A family name of :data:`SOC_VERSIONS` (or the alias ``ascend910_95``), or a chip name CANN reports,
        such as ``Ascend910B3``, ``Ascend910_9391`` or ``Ascend950PR_9599``; case does not matter.

    Returns
    -------
    str or None
        The family's name as spelt in :data:`SOC_VERSIONS`.
    """
    if not isinstance(soc_version, str):
        return None
    name = soc_version.lower()
    if name in SOC_VERSIONS:
        return name
    if name in _FAMILY_ALIASES:
        return _FAMILY_ALIASES[name]
    for pattern, family in _CHIP_RULES:
        if pattern.fullmatch(name):
            return family
    return None


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
        SoC family or chip name, e.g. ``"ascend910b"``, ``"Ascend910_9391"`` (see :func:`soc_family_of`);
        its family decides whether bfloat16 is accepted by the aclnn layer. Kept as given.
    lib_workspace_size : int
        Library workspace the aclnn layer reports for a launch, in bytes.

    Raises
    ------
    TypeError, ValueError
        For a size that is not a positive integer, or a ``soc_version`` that is not a known family or chip name.
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
        if not isinstance(self.soc_version, str):
            raise TypeError(f"Platform.soc_version must be a string, got {type(self.soc_version).__name__}")
        if soc_family_of(self.soc_version) is None:
            raise ValueError(f"Platform.soc_version {self.soc_version!r} is not a known SoC family or chip name; "
                             f"families: {', '.join(SOC_VERSIONS)} (or a chip name such as Ascend910B3, "
                             f"Ascend910_9391, Ascend310P3, Ascend950PR_9599)")

    @property
    def soc_family(self) -> str:
        """The SoC family of ``soc_version``, as spelt in :data:`SOC_VERSIONS` (e.g. ``"ascend910_93"``)."""
        return soc_family_of(self.soc_version)

    @property
    def supports_bfloat16(self) -> bool:
        """Whether the SoC family is in the ASCEND910B..ASCEND910E range of CANN's enum."""
        return _BF16_FIRST <= SOC_VERSIONS.index(self.soc_family) <= _BF16_LAST


#: The operator's tiling unit-test platform (SPEC section 3).
REFERENCE_PLATFORM = Platform()

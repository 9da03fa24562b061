"""The hardware a tiling is computed for, and the SoC families of CANN (model section 8)."""
from __future__ import annotations

import numbers
import re
from dataclasses import dataclass

__all__ = ["Platform", "unmodelled_soc", "modelled_platform", "REFERENCE_PLATFORM", "ASCEND950_PLATFORM", "BF16_SOC_VERSIONS", "SOC_VERSIONS",
           "ARCH_A2", "ARCH_950", "OVERFLOW_MODES", "AXPY_ROUNDINGS", "soc_family_of",
           "CAST_OVERFLOWS", "CAST_INT_OVERFLOWS"]

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


#: The two kernels, by the name of the architecture they were written for.
ARCH_A2 = "a2"
ARCH_950 = "arch35"

# CANN picks SwishGrad's kernel by SoC: the Ascend 950 runs the mainline
# arch35 kernel, every other family the Atlas A2 one.
_ARCH_OF_FAMILY = {"ascend950": ARCH_950}

# Each architecture's platform defaults (model sections 3 and 9): the A2's from
# the operator's tiling unit test; the 950's UB is its usable 248 KiB and its
# core count the vector cores (32 AI cores x 2), which the elementwise tiling
# spreads over.
_DEFAULTS = {
    ARCH_A2: {"ub_size": 196608, "core_num": 48, "block_size": 32, "lib_workspace_size": 16 * 1024 * 1024},
    ARCH_950: {"ub_size": 253952, "core_num": 64, "block_size": 32, "lib_workspace_size": 16 * 1024 * 1024},
}


#: The device's float overflow modes (CANN's ``aclrtFloatOverflowMode``, model section 2): ``"infnan"``
#: (IEEE 754, the default on the A2, the A3 and the 950) and ``"saturation"`` (inf -> the largest finite
#: value, NaN -> 0; for compatibility, not on the 950).
OVERFLOW_MODES = ("infnan", "saturation")


#: How the 950's ``Axpy`` (``dst = src * scalar + dst``) rounds, which is not public (docs/model.md, "Gelu",
#: "Axpy"): ``"fused"`` once (the default), ``"unfused"`` the product, then the sum.
AXPY_ROUNDINGS = ("fused", "unfused")

#: What a directed Cast (CAST_FLOOR, CAST_CEIL, CAST_TRUNC, CAST_ODD) to a 16-bit dtype gives on overflow, which
#: is not public (docs/model.md, "Directed narrowings"): ``"ieee"`` IEEE 754's rule (the largest finite where
#: the mode rounds toward zero, inf where away; the default), ``"inf"`` inf always, as CAST_RINT.
CAST_OVERFLOWS = ("ieee", "inf")

#: What a Cast from a float to an integer dtype gives past the integer's range (docs/model.md, "Casts between float
#: and integer dtypes"): ``"saturate"`` the bound (the A2 Cast page's default), ``"wrap"`` the rounded whole
#: number's low bits (the 950's documented non-saturating rule; whether an A2 runs so is not public).
CAST_INT_OVERFLOWS = ("saturate", "wrap")


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
    if soc_version in _FAMILY_OF:   # a name met before (a pure function of the name)
        return _FAMILY_OF[soc_version]
    family = _soc_family_of(soc_version)
    if len(_FAMILY_OF) < 256:   # bounded: any string may be asked about
        _FAMILY_OF[soc_version] = family
    return family


_FAMILY_OF: dict = {}


def _soc_family_of(soc_version: str) -> str | None:
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

    The SoC decides the kernel, as CANN does: an Ascend 950 family runs the
    mainline arch35 kernel (model section 9), every other family the Atlas A2
    one (sections 2-4). Sizes left out take the architecture's defaults.

    Parameters
    ----------
    ub_size : int
        Unified-buffer (local memory) size of one AI core (950: one vector
        core), in bytes. Default 196,608 (A2) or 253,952 (950).
    core_num : int
        Number of AI cores the launch may use (950: vector cores). Default 48
        (A2) or 64 (950).
    block_size : int
        DataCopy granule in bytes; every transfer is a whole number of blocks.
    soc_version : str
        SoC family or chip name, e.g. ``"ascend910b"``, ``"Ascend910_9391"`` (see :func:`soc_family_of`);
        its family decides whether bfloat16 is accepted by the aclnn layer. Kept as given.
    lib_workspace_size : int
        Library workspace the A2 host tiling asks for (``GetLibApiWorkSpaceSize``), in
        bytes; the 950's tiling always asks for 16 MiB.
    overflow_mode : str
        The device's float overflow mode (:data:`OVERFLOW_MODES`): ``"infnan"`` (IEEE 754, the default)
        or ``"saturation"``, where every instruction's infinite result becomes the largest finite
        value of its sign and a NaN result becomes 0. The Ascend 950 supports ``"infnan"`` only.
    axpy_rounding : str
        How the Ascend 950's ``Axpy`` instruction rounds (:data:`AXPY_ROUNDINGS`), which CANN does not
        document: ``"fused"`` (one rounding, the default; docs/model.md says why) or ``"unfused"`` (the
        product rounded to float32, then the sum). It changes the 950 Gelu and GeluBackward only.
    cast_overflow : str
        What a directed ``Cast`` (CAST_FLOOR, CAST_CEIL, CAST_TRUNC, CAST_ODD) to float16 gives past the largest
        finite (:data:`CAST_OVERFLOWS`), which CANN does not document: ``"ieee"`` (IEEE 754's directed rounding,
        the default: the largest finite where the mode rounds toward zero) or ``"inf"`` (inf, as CAST_RINT).
        It changes kernels read from source (``read_kernel``) that cast so.
    cast_int_overflow : str
        What a ``Cast`` from a float to an integer dtype gives past the integer's range
        (:data:`CAST_INT_OVERFLOWS`): ``"saturate"`` (the bound, the default) or ``"wrap"`` (the low bits).
        It changes kernels read from source that cast so.

    Raises
    ------
    TypeError, ValueError
        For a size that is not a positive integer, a ``soc_version`` that is not a known family or chip name,
        or an ``overflow_mode`` that is not one of :data:`OVERFLOW_MODES` (or ``"saturation"`` on a 950),
        or an ``axpy_rounding`` that is not one of :data:`AXPY_ROUNDINGS`, or a ``cast_overflow`` not one of
        :data:`CAST_OVERFLOWS`, or a ``cast_int_overflow`` not one of :data:`CAST_INT_OVERFLOWS`.
    """

    ub_size: int = None
    core_num: int = None
    block_size: int = None
    soc_version: str = "ascend910b"
    lib_workspace_size: int = None
    overflow_mode: str = "infnan"
    axpy_rounding: str = "fused"
    cast_overflow: str = "ieee"
    cast_int_overflow: str = "saturate"

    def __post_init__(self):
        family = self._check_soc_version()
        for name, choices in (("cast_overflow", CAST_OVERFLOWS), ("cast_int_overflow", CAST_INT_OVERFLOWS)):
            value = getattr(self, name)
            if not isinstance(value, str) or value not in choices:
                raise ValueError(f"Platform.{name} must be one of {', '.join(map(repr, choices))}, got {value!r}")
        if not isinstance(self.axpy_rounding, str) or self.axpy_rounding not in AXPY_ROUNDINGS:
            raise ValueError(f"Platform.axpy_rounding must be one of {', '.join(map(repr, AXPY_ROUNDINGS))}, "
                             f"got {self.axpy_rounding!r}")
        if not isinstance(self.overflow_mode, str) or self.overflow_mode not in OVERFLOW_MODES:
            raise ValueError(f"Platform.overflow_mode must be one of {', '.join(map(repr, OVERFLOW_MODES))}, "
                             f"got {self.overflow_mode!r}")
        if self.overflow_mode == "saturation" and _ARCH_OF_FAMILY.get(family) == ARCH_950:
            raise ValueError(f"Platform.overflow_mode 'saturation' is not supported on the Ascend 950 "
                             f"(soc_version {self.soc_version!r}): it has the Inf/NaN mode only")
        defaults = _DEFAULTS[_ARCH_OF_FAMILY.get(family, ARCH_A2)]
        for name in ("ub_size", "core_num", "block_size", "lib_workspace_size"):
            value = getattr(self, name)
            if value is None:
                value = defaults[name]
            if isinstance(value, bool) or not isinstance(value, numbers.Integral):
                raise TypeError(f"Platform.{name} must be an integer, got {type(value).__name__}")
            if value <= 0:
                raise ValueError(f"Platform.{name} must be > 0, got {value}")
            object.__setattr__(self, name, int(value))

    def _check_soc_version(self) -> str:
        if not isinstance(self.soc_version, str):
            raise TypeError(f"Platform.soc_version must be a string, got {type(self.soc_version).__name__}")
        if soc_family_of(self.soc_version) is None:
            raise ValueError(f"Platform.soc_version {self.soc_version!r} is not a known SoC family or chip name; "
                             f"families: {', '.join(SOC_VERSIONS)} (or a chip name such as Ascend910B3, "
                             f"Ascend910_9391, Ascend310P3, Ascend950PR_9599)")
        return soc_family_of(self.soc_version)

    @property
    def cast_rules(self) -> tuple:
        """The Cast options a program is compiled with (``(name, value)`` pairs, the keywords of
        :func:`swishgrad_numba.program.passes.compile_program`)."""
        return (("cast_overflow", self.cast_overflow), ("cast_int_overflow", self.cast_int_overflow))

    @property
    def soc_family(self) -> str:
        """The SoC family of ``soc_version``, as spelt in :data:`SOC_VERSIONS` (e.g. ``"ascend910_93"``)."""
        return soc_family_of(self.soc_version)

    @property
    def architecture(self) -> str:
        """The kernel this SoC runs: :data:`ARCH_950` (``"arch35"``) or :data:`ARCH_A2` (``"a2"``)."""
        return _ARCH_OF_FAMILY.get(self.soc_family, ARCH_A2)

    @property
    def saturation(self) -> bool:
        """Whether the device runs in the saturation overflow mode."""
        return self.overflow_mode == "saturation"

    @property
    def supports_bfloat16(self) -> bool:
        """Whether the SoC family is in the ASCEND910B..ASCEND910E range of CANN's enum."""
        return _BF16_FIRST <= SOC_VERSIONS.index(self.soc_family) <= _BF16_LAST


#: The operator's tiling unit-test platform (model section 3): an Atlas A2.
REFERENCE_PLATFORM = Platform()

#: An Ascend 950: 64 vector cores with 253,952 usable bytes of UB each (model section 9).
ASCEND950_PLATFORM = Platform(soc_version="ascend950")


def unmodelled_soc(platform: Platform, kernel: str, socs) -> str | None:
    """Why ``kernel`` (an operator's kernel modelled on the SoC families ``socs`` only) is not modelled on
    ``platform``, or None."""
    if platform.soc_family not in socs:
        return (f"the {kernel} kernel of SoC {platform.soc_family!r} is not modelled (modelled: "
                f"{', '.join(socs)})")
    return None


def modelled_platform(platform, name: str, kernel: str, socs) -> Platform:
    """``platform`` (the default when None) checked for a function ``name`` whose ``kernel`` is modelled on
    ``socs`` and in the Inf/NaN overflow mode only."""
    if platform is None:
        return Platform()
    if not isinstance(platform, Platform):
        raise TypeError(f"platform must be a Platform, got {type(platform).__name__}")
    why = unmodelled_soc(platform, kernel, socs)
    if why:
        raise NotImplementedError(f"{name}: {why}")
    if platform.overflow_mode != "infnan":
        raise NotImplementedError(f"{name}: only the Inf/NaN overflow mode is modelled")
    return platform

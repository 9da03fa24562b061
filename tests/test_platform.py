"""Tests of swishgrad_numba.platform: the Platform record, SoC families and chip names, the bfloat16 gate.

The enum order and the bfloat16 range are written here from model section 8, independently of the package.
"""
import dataclasses

import pytest

from swishgrad_numba import REFERENCE_PLATFORM, Platform
from swishgrad_numba.platform import BF16_SOC_VERSIONS, SOC_VERSIONS, soc_family_of

# model section 8: CANN's SocVersion enum, in order (ASCEND950 is also called ASCEND910_95).
SPEC_ENUM = ["ASCEND910", "ASCEND910B", "ASCEND910_93", "ASCEND950", "ASCEND910E", "ASCEND310", "ASCEND310P",
             "ASCEND310B", "ASCEND310C", "ASCEND610LITE", "KIRINX90", "KIRIN9030", "ASCEND350"]
# bfloat16 when ASCEND910B <= soc <= ASCEND910E.
SPEC_BF16 = SPEC_ENUM[SPEC_ENUM.index("ASCEND910B"):SPEC_ENUM.index("ASCEND910E") + 1]

# Chip names as CANN reports them (SoC_version) and the family (Short_SoC_version) each belongs to.
CHIPS = [
    ("Ascend910A", "ASCEND910"), ("Ascend910ProA", "ASCEND910"), ("Ascend910ProB", "ASCEND910"),
    ("Ascend910PremiumA", "ASCEND910"),
    ("Ascend910B1", "ASCEND910B"), ("Ascend910B2", "ASCEND910B"), ("Ascend910B2C", "ASCEND910B"),
    ("Ascend910B3", "ASCEND910B"), ("Ascend910B4", "ASCEND910B"), ("Ascend910B4-1", "ASCEND910B"),
    ("Ascend910_9391", "ASCEND910_93"), ("Ascend910_9392", "ASCEND910_93"), ("Ascend910_9381", "ASCEND910_93"),
    ("Ascend910_9382", "ASCEND910_93"), ("Ascend910_9372", "ASCEND910_93"), ("Ascend910_9362", "ASCEND910_93"),
    ("Ascend910_9579", "ASCEND950"), ("Ascend910_950z", "ASCEND950"), ("Ascend950PR_9599", "ASCEND950"),
    ("Ascend950PR_950z", "ASCEND950"), ("Ascend950DT_95A1", "ASCEND950"), ("Ascend950DT_9591", "ASCEND950"),
    ("Ascend310P1", "ASCEND310P"), ("Ascend310P3", "ASCEND310P"), ("Ascend310P7", "ASCEND310P"),
    ("Ascend310B1", "ASCEND310B"), ("Ascend310B4", "ASCEND310B"),
    ("Ascend610Lite", "ASCEND610LITE"), ("KirinX90", "KIRINX90"), ("Kirin9030", "KIRIN9030"),
]

UNKNOWN = ["ascend910c", "ascend910d", "ascend", "", "ascend910b ", " ascend910b", "ascend_910b", "ascend91093",
           "ascend910-93", "ascend910_93_", "ascend910_9", "ascend950pr", "ascend910pro", "ascend310p_3",
           "ascend910b\n", "tesla", "ascend310pp3"]


@pytest.mark.parametrize("family", SPEC_ENUM)
def test_every_family_in_enum_order(family):
    assert SOC_VERSIONS.index(family.lower()) == SPEC_ENUM.index(family)
    for spelling in (family, family.lower(), family.capitalize()):
        p = Platform(soc_version=spelling)
        assert p.soc_version == spelling                      # kept as given
        assert p.soc_family == family.lower()
        assert p.supports_bfloat16 == (family in SPEC_BF16)
        assert soc_family_of(spelling) == family.lower()


def test_enum_table_is_the_spec_order():
    assert list(SOC_VERSIONS) == [f.lower() for f in SPEC_ENUM]


def test_bf16_soc_versions_is_the_enum_range():
    assert BF16_SOC_VERSIONS == ("ascend910b", "ascend910_93", "ascend950", "ascend910e")


@pytest.mark.parametrize("alias", ["ascend910_95", "ASCEND910_95", "Ascend910_95"])
def test_ascend910_95_is_ascend950(alias):
    p = Platform(soc_version=alias)
    assert p.soc_family == "ascend950" and p.supports_bfloat16


@pytest.mark.parametrize("chip,family", CHIPS, ids=[c for c, _ in CHIPS])
def test_chip_names_belong_to_their_family(chip, family):
    for spelling in (chip, chip.lower(), chip.upper()):
        p = Platform(soc_version=spelling)
        assert p.soc_family == family.lower()
        assert p.supports_bfloat16 == (family in SPEC_BF16)


def test_atlas_a3_accepts_bfloat16():
    for name in ("ascend910_93", "Ascend910_9391", "ascend910_9362"):
        assert Platform(soc_version=name).supports_bfloat16


@pytest.mark.parametrize("name", UNKNOWN, ids=repr)
def test_unknown_soc_is_a_value_error_listing_the_families(name):
    assert soc_family_of(name) is None
    with pytest.raises(ValueError, match="Platform.soc_version") as info:
        Platform(soc_version=name)
    message = str(info.value)
    assert repr(name) in message
    for family in SPEC_ENUM:
        assert family.lower() in message


@pytest.mark.parametrize("value", [None, 910, b"ascend910b", ["ascend910b"]], ids=repr)
def test_non_string_soc_is_a_type_error(value):
    assert soc_family_of(value) is None
    with pytest.raises(TypeError, match="Platform.soc_version must be a string"):
        Platform(soc_version=value)


def test_defaults_and_fields_unchanged():
    p = Platform()
    assert (p.ub_size, p.core_num, p.block_size, p.soc_version, p.lib_workspace_size, p.overflow_mode) == \
        (196608, 48, 32, "ascend910b", 16 * 1024 * 1024, "infnan")
    assert [f.name for f in dataclasses.fields(Platform)] == \
        ["ub_size", "core_num", "block_size", "soc_version", "lib_workspace_size", "overflow_mode", "axpy_rounding",
         "cast_overflow", "cast_int_overflow"]
    assert p.axpy_rounding == "fused" and p.cast_overflow == "ieee"
    # soc_family is computed, not stored: vars() (the CLI's JSON) holds the fields only
    assert sorted(vars(p)) == sorted(f.name for f in dataclasses.fields(Platform))
    assert REFERENCE_PLATFORM == p and REFERENCE_PLATFORM.soc_family == "ascend910b"
    assert REFERENCE_PLATFORM.supports_bfloat16


def test_soc_family_is_read_only():
    p = Platform(soc_version="Ascend910_9391")
    with pytest.raises(AttributeError):
        p.soc_family = "ascend910"
    with pytest.raises(dataclasses.FrozenInstanceError):
        p.soc_version = "ascend310p"


@pytest.mark.parametrize("soc", ["ascend910b", "Ascend910B3", "ascend910_93"])
def test_saturation_mode_on_a2_and_a3(soc):
    p = Platform(soc_version=soc, overflow_mode="saturation")
    assert p.saturation and p.overflow_mode == "saturation" and p != Platform(soc_version=soc)
    assert not Platform(soc_version=soc).saturation


@pytest.mark.parametrize("soc", ["ascend950", "Ascend950PR_9599", "ascend910_95"])
def test_saturation_mode_refused_on_950(soc):
    with pytest.raises(ValueError, match="overflow_mode 'saturation' is not supported on the Ascend 950"):
        Platform(soc_version=soc, overflow_mode="saturation")
    assert Platform(soc_version=soc, overflow_mode="infnan").overflow_mode == "infnan"


@pytest.mark.parametrize("mode", ["Saturation", "inf_nan", "", None, 0, True])
def test_bad_overflow_mode(mode):
    with pytest.raises(ValueError, match="Platform.overflow_mode must be one of 'infnan', 'saturation'"):
        Platform(overflow_mode=mode)


@pytest.mark.parametrize("bad", ["once", "FUSED", None, 1])
def test_axpy_rounding_is_one_of_the_two_models(bad):
    assert Platform(axpy_rounding="unfused").axpy_rounding == "unfused"
    with pytest.raises(ValueError, match="axpy_rounding must be one of 'fused', 'unfused'"):
        Platform(soc_version="ascend950", axpy_rounding=bad)

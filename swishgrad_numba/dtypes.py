"""The supported dtypes, one row each, and the checks that turn user input into them.

:data:`DTYPES` is the one table of dtype facts: the kernel's selector code,
names and aliases, the aclDataType enum value, the PyTorch dtype's name, the
Ascend 950 kernel's dtype template value, and the precision standard's
threshold and floor (model section 7). Everything that needs such a fact
reads it here; the tests parametrise over this table. Adding a dtype is one
row plus its casts in :mod:`swishgrad_numba.casts`.

Also here: :func:`dtype_info` / :func:`canonical_dtype` (dtype-like ->
row / NumPy dtype, or a clear error) and :func:`to_float32` / :func:`beta_argument`
(beta, rounded to float32 once).
"""
from __future__ import annotations

import math
import numbers
from dataclasses import dataclass

import ml_dtypes
import numpy as np

__all__ = [
    "DTypeInfo",
    "DTYPES",
    "FLOAT32",
    "FLOAT16",
    "BFLOAT16",
    "SUPPORTED_DTYPES",
    "bfloat16",
    "beta_argument",
    "canonical_dtype",
    "dtype_info",
    "round_ratio",
    "to_float32",
]

bfloat16 = np.dtype(ml_dtypes.bfloat16)


@dataclass(frozen=True)
class DTypeInfo:
    """Every fact the package keeps about one supported dtype.

    Attributes
    ----------
    name : str
        Canonical name (``"float32"``), also PyTorch's attribute name
        (``torch.float32``).
    numpy : numpy.dtype
        The NumPy dtype (``ml_dtypes.bfloat16`` for bfloat16).
    code : int
        Selector passed to the kernels.
    aliases : tuple of str
        Other accepted spellings (lower case).
    acl_data_type : int
        The ``aclDataType`` enum value (``ACL_FLOAT`` = 0, ...).
    acl_name : str
        The enum's name.
    arch35_template : int
        The Ascend 950 kernel's dtype template value (``TPL_FP16`` = 1,
        ``TPL_BF16`` = 2, ``TPL_FP32`` = 3); sets its tiling key.
    threshold : float
        model section 7: MERE must be below this, MARE below ten times it.
    tiny : float
        Smallest positive normal number: the relative error's floor.
    """

    name: str
    numpy: np.dtype
    code: int
    aliases: tuple
    acl_data_type: int
    acl_name: str
    arch35_template: int
    threshold: float
    tiny: float

    @property
    def itemsize(self) -> int:
        return self.numpy.itemsize

    @property
    def bits_dtype(self) -> np.dtype:
        """How kernels see the elements: float32 values, or 16-bit patterns as uint16."""
        return np.dtype(np.float32) if self.itemsize == 4 else np.dtype(np.uint16)

    def flat_bits(self, a: np.ndarray) -> np.ndarray:
        """C-contiguous ``a`` of this dtype, flat, as kernels see its elements (:attr:`bits_dtype`): ``a``
        itself where it is flat already and of that dtype (a float32 tensor; no views made per call)."""
        flat = a if a.ndim == 1 else a.reshape(-1)
        bits = _FLOAT32_BITS if self.itemsize == 4 else _UINT16_BITS
        return flat if flat.dtype == bits else flat.view(bits)

    @property
    def torch_name(self) -> str:
        return self.name

    def __repr__(self) -> str:
        return f"DTypeInfo({self.name})"


_FLOAT32_BITS, _UINT16_BITS = np.dtype(np.float32), np.dtype(np.uint16)
FLOAT32 = DTypeInfo("float32", np.dtype(np.float32), 0, ("fp32", "float"), 0, "ACL_FLOAT", 3,
                    2.0 ** -13, float(np.finfo(np.float32).smallest_normal))
FLOAT16 = DTypeInfo("float16", np.dtype(np.float16), 1, ("fp16", "half"), 1, "ACL_FLOAT16", 1,
                    2.0 ** -10, float(np.finfo(np.float16).smallest_normal))
# bfloat16 shares float32's exponent range, so its smallest normal too.
BFLOAT16 = DTypeInfo("bfloat16", bfloat16, 2, ("bf16",), 27, "ACL_BF16", 2,
                     2.0 ** -7, float(np.finfo(np.float32).smallest_normal))

#: The table: every supported dtype, by canonical name.
DTYPES = {info.name: info for info in (FLOAT32, FLOAT16, BFLOAT16)}

#: The supported NumPy dtypes by canonical name (a view of :data:`DTYPES`).
SUPPORTED_DTYPES = {name: info.numpy for name, info in DTYPES.items()}

_BY_NUMPY = {info.numpy: info for info in DTYPES.values()}
_BY_SPELLING = {spelling: info for info in DTYPES.values() for spelling in (info.name, *info.aliases)}
_NAMES = ", ".join(DTYPES)


def dtype_info(dtype, argname: str = "dtype") -> DTypeInfo:
    """The :class:`DTypeInfo` row of a dtype-like, or a TypeError/ValueError naming ``argname``.

    Accepts NumPy dtypes and types, ``ml_dtypes.bfloat16``, a row itself,
    and the names of :data:`DTYPES` or their aliases (any case).
    """
    if isinstance(dtype, DTypeInfo):
        return dtype
    if isinstance(dtype, np.dtype):   # the common case: a hash lookup (equal dtypes hash alike; a miss goes on)
        info = _BY_NUMPY.get(dtype)
        if info is not None:
            return info
    if isinstance(dtype, str):
        info = _BY_SPELLING.get(dtype.lower())
        if info is None:
            raise ValueError(f"{argname} must be one of {_NAMES}; got {dtype!r}")
        return info
    try:
        dt = np.dtype(dtype)
    except TypeError:
        raise TypeError(f"{argname} must be a dtype ({_NAMES}), got {dtype!r}") from None
    for info in DTYPES.values():
        if dt == info.numpy:
            return info
    if not dt.isnative and dt.newbyteorder("=") in SUPPORTED_DTYPES.values():
        order = "big" if dt.byteorder == ">" else "little"
        raise ValueError(f"{argname} must be in the machine's byte order; got {order}-endian {dt.name} "
                         f"(convert with .astype(arr.dtype.newbyteorder('=')))")
    raise ValueError(f"{argname} must be one of {_NAMES}; got {dt.name}")


def promoted_float_dtype(*dtypes) -> np.dtype:
    """The floating dtype PyTorch's promotion gives inputs of these NumPy dtypes (what a backward's
    ``gradInput`` is made of): the one floating dtype where they agree, float64 where any is, else
    float32 (float16 with bfloat16 too); float32 where none is floating (integers, bool)."""
    floats = {np.dtype(d) for d in dtypes if np.dtype(d).kind == "f" or np.dtype(d) == BFLOAT16.numpy}
    if len(floats) == 1:
        return floats.pop()
    return np.dtype(np.float64) if np.dtype(np.float64) in floats else np.dtype(np.float32)


def canonical_dtype(dtype, argname: str = "dtype") -> np.dtype:
    """The NumPy dtype of a supported dtype-like (see :func:`dtype_info`)."""
    return dtype_info(dtype, argname).numpy


def to_float32(value, argname: str = "beta") -> np.float32:
    """Convert a real scalar to float32 with one round-to-nearest-even rounding.

    Every value is rounded once, exactly from its value: integers of any size
    (``np.int64`` and ``np.uint64`` included) and :class:`fractions.Fraction`
    do not pass through float64 first. Values beyond float32's range become
    +-inf, as a C cast would; ``bool`` (``numpy.bool_`` too) converts as a C
    cast does (1.0 / 0.0), as torch's ``F.softplus``/``F.elu``/``F.leaky_relu``
    take it and as aclnn's scalars may be ACL_BOOL. This is the one rule for
    every operator's float attribute (beta, alpha, scale, input_scale,
    negative_slope, threshold, a read kernel's attributes), in every API.
    """
    if type(value) is float and -3.4e38 < value < 3.4e38:  # fast path: cannot overflow
        return np.float32(value)
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value[()]
    if isinstance(value, (complex, np.complexfloating)):
        raise TypeError(f"{argname} must be a real number, got complex {value!r}")
    if isinstance(value, (np.timedelta64, np.datetime64)):
        # NumPy files timedelta64 under np.signedinteger, but a duration is no number.
        raise TypeError(f"{argname} must be a real number, got {type(value).__name__} {value!r}")
    if isinstance(value, np.generic) and value.dtype == bfloat16:
        return np.float32(value)
    if not isinstance(value, (numbers.Real, np.number, np.bool_)):
        raise TypeError(f"{argname} must be a real number, got {type(value).__name__}")
    if isinstance(value, (numbers.Integral, np.integer, np.bool_)):
        return _round_ratio_to_float32(int(value), 1)
    if isinstance(value, numbers.Rational):  # Fraction: exact, not through float64
        return _round_ratio_to_float32(int(value.numerator), int(value.denominator))
    # Binary floats: float64 (and narrower) casts are one hardware rounding; a
    # longer one (long double) is rounded exactly from its value.
    if isinstance(value, np.floating) and value.dtype.itemsize > 8 and np.isfinite(value):
        return _round_ratio_to_float32(*value.as_integer_ratio())
    with np.errstate(over="ignore"):
        return np.array(value).astype(np.float32)[()]


def round_ratio(num: int, den: int, dtype) -> np.generic:
    """The value of ``dtype`` (a binary float: float16, bfloat16, float32, float64) nearest
    ``num / den`` (``den > 0``), ties to even, computed in exact integer arithmetic: one rounding.
    Past the format's largest finite it is +-inf, as a C cast."""
    dtype = np.dtype(dtype)
    fi = ml_dtypes.finfo(dtype)
    if num == 0:
        return np.zeros((), dtype)[()]
    sign, num = (-1.0 if num < 0 else 1.0), abs(num)
    # e = floor(log2(num / den)): start from the bit lengths, correct by one.
    e = num.bit_length() - den.bit_length()
    if (num << max(-e, 0)) < (den << max(e, 0)):
        e -= 1
    # The unit in the last place at that binade (the subnormals share the smallest binade's).
    ulp = max(e, fi.minexp) - fi.nmant
    # q = num / den / 2**ulp, rounded to the nearest integer, ties to even.
    scaled_num, scaled_den = (num, den << ulp) if ulp >= 0 else (num << -ulp, den)
    q, rem = divmod(scaled_num, scaled_den)
    if 2 * rem > scaled_den or (2 * rem == scaled_den and q & 1):
        q += 1
    if q.bit_length() + ulp > fi.maxexp:   # q * 2**ulp >= 2**maxexp: overflow
        return np.array(sign * np.inf, dtype)[()]
    # q has at most nmant + 2 bits and q * 2**ulp lies in the format's range: exact in float64, so in dtype.
    return np.array(sign * math.ldexp(q, ulp)).astype(dtype)[()]


def _round_ratio_to_float32(num: int, den: int) -> np.float32:
    return round_ratio(num, den, np.float32)


#: Other names of beta: the A2 struct field (``sconf``) and the 950 attribute (``scale``).
BETA_ALIASES = ("scale", "sconf")


def beta_argument(beta, aliases: dict, default=1.0) -> np.float32:
    """Beta as float32 from a call that may name it ``beta``, ``scale`` or ``sconf``.

    ``aliases`` holds the alias keyword arguments the caller received (only
    :data:`BETA_ALIASES` are allowed). At most one spelling may be given;
    ``beta=None`` and no alias means ``default``.
    """
    unknown = sorted(set(aliases) - set(BETA_ALIASES))
    if unknown:
        raise TypeError(f"unexpected keyword argument(s) {unknown}")
    given = {name: value for name, value in aliases.items() if value is not None}
    if beta is not None:
        given = {"beta": beta, **given}
    if len(given) > 1:
        raise TypeError(f"beta was given more than once (as {', '.join(given)}); use beta")
    name, value = next(iter(given.items())) if given else ("beta", default)
    return to_float32(value, argname=name)

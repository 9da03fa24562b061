"""The device-time model's parameters: every number with its source, per SoC, overridable from Python and TOML.

Sources (details and links in ``docs/devicetime.md``):

- ``[runtime]``: CANN's platform configuration files, hicann/runtime
  ``src/platform/platform_config/cann/<SoC>.ini`` (clock ``cube_freq``,
  ``vector_core_cnt``, ``ub_size``, ``ddr_rate``, ``ub_to_ddr_rate``). The
  unit of the rates is not documented; bytes per cycle per core is an
  assumption.
- ``[pypto]``: hicann/pypto ``framework/src/interface/operation/cycles.{h,cpp}``:
  an instruction costs ``latency + (repeats - 1) * cycles_per_repeat``,
  ``cycles_per_repeat = max(1, elements_per_repeat / parallelism)``, one
  repeat 256 bytes; UB copy latency 50 cycles.
- ``[pto-isa]``: the pto-isa cost model (as collected in the project's notes,
  not re-checked at its source): ``startup + completion + repeats *
  per_repeat + (repeats - 1) * 18``.
- ``calibrated``: fitted by ``bench/fit_devicetime.py`` on public copy-only
  launches and empty-kernel heads (hicann/asc-devkit examples): the GM
  bandwidth, the DataCopy and burst costs, the head; and on one-core launches
  of an Add (issue 38): the transfer latency (:data:`CALIBRATED`).
- ``stated``: the vector rates Ascend's examples state per SoC
  (:data:`VECTOR_BYTES_PER_CYCLE`).
- ``assumed``: no public figure (the A2's head for one block, scalar
  bookkeeping per tile, costs of Cast, Duplicate, Neg, MulDstAdd in the
  pto-isa table, the calibration of chips that were not measured).
"""
from __future__ import annotations

import dataclasses
import math
import numbers
import sys
from dataclasses import dataclass

from ..platform import ARCH_950, Platform, soc_family_of

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

__all__ = ["Params", "COST_MODELS", "INSTRUCTION_COSTS", "SOC_FIGURES", "FREE_PARAMETERS", "FITTABLE_PARAMETERS",
           "CALIBRATED", "VECTOR_BYTES_PER_CYCLE", "chip_family", "default_params",
           "load_params", "save_params", "instruction_names", "VIEW_INSTRUCTIONS"]

#: The two public instruction cost models; the choice is ``Params.cost_model``.
COST_MODELS = ("pypto", "pto-isa")

# pypto: (latency, parallelism for float32, parallelism for 16-bit) per instruction; pypto's own default for an
# operation missing from its tables is latency 10, parallelism 128 (cycles.cpp DEFAULT_LATENCY,
# DEFAULT_MAX_PARALLELISM): used for Cast, Duplicate, Neg, MulDstAdd, Abs, Relu (marked "pypto default").
_PYPTO = {
    "Add": (6, 64, 128), "Sub": (6, 64, 128), "Adds": (6, 64, 128), "Mul": (7, 64, 128), "Muls": (7, 64, 128),
    "Div": (13, 64, 128), "Exp": (12, 32, 32), "Sqrt": (13, 32, 32), "Rsqrt": (5, 64, 128),
    "Reciprocal": (5, 64, 128), "Max": (4, 64, 128), "Min": (4, 64, 128),
    "Cast": (10, 128, 128), "Duplicate": (10, 128, 128), "Neg": (10, 128, 128), "MulDstAdd": (10, 128, 128),
    "Abs": (10, 128, 128), "Relu": (10, 128, 128),
    # the program form's other instructions (assumed, docs/devicetime.md): Maxs/Mins as Max/Min, Ln as Exp,
    # Compare, CompareScalar, Select and Axpy the pypto default
    "Maxs": (4, 64, 128), "Mins": (4, 64, 128), "Ln": (12, 32, 32),
    "Compare": (10, 128, 128), "CompareScalar": (10, 128, 128), "Select": (10, 128, 128), "Axpy": (10, 128, 128),
    "FusedMulDstAdd": (10, 128, 128), "And": (10, 128, 128), "Or": (10, 128, 128), "ShiftRight": (10, 128, 128),
    "Not": (10, 128, 128),
}
# pto-isa: (startup, completion, cycles per repeat float32, cycles per repeat 16-bit). Figures not in the notes
# (marked assumed in the docs): Sqrt/Rsqrt/Reciprocal/Max/Min/Abs/Relu/Neg/Cast/Duplicate/MulDstAdd take the
# add- or mul-like row.
_PTO_ISA = {
    "Add": (14, 19, 2, 2), "Sub": (14, 19, 2, 2), "Adds": (14, 19, 1, 1), "Mul": (14, 20, 2, 2),
    "Muls": (14, 20, 1, 1), "Div": (14, 20, 2, 2), "Exp": (13, 26, 2, 4), "Sqrt": (13, 26, 2, 4),
    "Rsqrt": (13, 26, 2, 4), "Reciprocal": (14, 20, 2, 2), "Max": (14, 19, 2, 2), "Min": (14, 19, 2, 2),
    "Cast": (14, 19, 2, 2), "Duplicate": (14, 19, 1, 1), "Neg": (14, 20, 1, 1), "MulDstAdd": (14, 20, 2, 2),
    "Abs": (14, 19, 1, 1), "Relu": (14, 19, 1, 1),
    # assumed: the scalar forms as Adds, tensor compares and selects as Add, Axpy as Mul, Ln as Exp
    "Maxs": (14, 19, 1, 1), "Mins": (14, 19, 1, 1), "Ln": (13, 26, 2, 4),
    "Compare": (14, 19, 2, 2), "CompareScalar": (14, 19, 1, 1), "Select": (14, 19, 2, 2), "Axpy": (14, 20, 2, 2),
    "FusedMulDstAdd": (14, 20, 2, 2), "And": (14, 19, 2, 2), "Or": (14, 19, 2, 2), "ShiftRight": (14, 19, 1, 1),
    "Not": (14, 19, 1, 1),
}
#: Extra cycles the pto-isa model charges between repeats.
PTO_ISA_REPEAT_GAP = 18

#: Per instruction and cost model, the table row (see the module docstring).
INSTRUCTION_COSTS = {"pypto": _PYPTO, "pto-isa": _PTO_ISA}
#: The program form's instructions that issue nothing on the device: a ReinterpretCast (issue 43) is a view of
#: the same UB bytes. They cost no cycle in either model (:func:`.stages.instruction_cycles`).
VIEW_INSTRUCTIONS = frozenset({"Reinterpret"})


def instruction_names() -> tuple:
    """The instruction names the cost tables know (both tables hold the same names)."""
    return tuple(sorted(_PYPTO))


# Per SoC: (clock MHz, vector cores, UB bytes, core read B/cycle (ddr_rate), core write B/cycle (ub_to_ddr_rate)),
# from hicann/runtime's .ini files (the 950's: [VectorCoreMemoryRates]); which rows were re-read at the source and
# which come from the project's notes: docs/devicetime.md.
SOC_FIGURES = {
    "Ascend910B1": (1850, 48, 196608, 32, 64),
    "Ascend910B2": (1800, 48, 196608, 32, 64),
    "Ascend910B3": (1800, 40, 196608, 32, 64),
    "Ascend910B4": (1500, 40, 196608, 32, 64),
    "Ascend950PR_9579": (1650, 56, 253952, 16, 40),
    "Ascend950PR_9599": (1800, 72, 253952, 16, 40),
    "Ascend950DT_9581": (1650, 64, 253952, 40, 40),
}

#: The values fitted to the public copy-only launches and empty-kernel heads, and (the transfer latency) to the
#: one-core Add of two float16 [8192, 8192] tensors with tiles of 4096 and one buffer: 8,924 us on the 950, and on
#: the A2 5,096.1 / 0.74 us (issue 38 states it as the model's 0.74x) (docs/devicetime.md, "Checked against"), per
#: SoC family: written by ``python bench/fit_devicetime.py`` (rerun it to reproduce them). Every chip of a family
#: takes its family's values; only the 48-core A2/A3 and the 64-core 950 were measured.
CALIBRATED = {
    "ascend910b": {"aggregate_gbps": 1499.0, "datacopy_cycles": 12.52, "burst_cycles": 0.5313, "head_us": 2.6,
                   "head_per_block_us": 0.2218, "unaligned_burst_cycles": 39.13,
                   "transfer_latency_cycles": 202.2},
    "ascend950": {"aggregate_gbps": 1632.0, "datacopy_cycles": 30.71, "burst_cycles": 0.4807, "head_us": 1.172,
                  "head_per_block_us": 0.01493, "unaligned_burst_cycles": 39.13,
                  "transfer_latency_cycles": 389.6},
}
#: Stated vector rates, bytes per cycle of one vector core, where a SoC family's documentation gives them (the
#: cost model's cycles per repeat are raised to ``repeat_bytes / rate`` when slower): the 950 runs Exp and Div
#: float32 at a quarter of Add and Mul (asc-devkit examples, "stated rates" in docs/devicetime.md); the A2's
#: stated 128 half per cycle (256 B) is what the pypto table already charges.
VECTOR_BYTES_PER_CYCLE = {
    "ascend950": {"Add": 256.0, "Adds": 256.0, "Mul": 256.0, "Muls": 256.0, "Exp": 64.0, "Div": 64.0},
}
#: Bookkeeping cycles per tile on the SCALAR pipe [assumed; it must stay below the 20-cycle period per tile that the
#: A2 copy of 128-byte tiles shows, or it would bound that launch].
SCALAR_CYCLES_PER_TILE = 10.0
# Bounds on every number (cycles, microseconds, bytes per cycle, GB/s, MHz): wider ones overflow the model's
# float times (e.g. a DataCopy of 1e308 cycles would write Infinity into a trace).
_MAX_VALUE = 1e12
_BLOCK_BYTES = 32
# The chip a family name stands for: the one whose vector core count matches the package's default platform.
_FAMILY_CHIP = {"ascend950": "Ascend950DT_9581"}
_DEFAULT_CHIP = "Ascend910B1"
_A2 = CALIBRATED["ascend910b"]

#: The parameters :func:`swishgrad_numba.devicetime.fit` fits by default.
FREE_PARAMETERS = ("core_read_bytes_per_cycle", "core_write_bytes_per_cycle", "aggregate_gbps",
                   "datacopy_cycles", "issue_cycles", "head_us", "head_per_block_us")
#: The parameters ``fit`` can fit: also ``burst_cycles``, which only launches of strided (multi-burst) copies fix.
FITTABLE_PARAMETERS = FREE_PARAMETERS + ("burst_cycles", "unaligned_burst_cycles", "scalar_cycles_per_tile",
                                         "transfer_latency_cycles")


def chip_family(soc: str) -> str:
    """``"ascend950"`` for a 950 chip, else ``"ascend910b"`` (the families :data:`CALIBRATED` knows)."""
    return "ascend950" if soc.lower().startswith(("ascend950", "ascend910_95")) else "ascend910b"


@dataclass(frozen=True)
class Params:
    """The numbers of the device-time model (sources in the module docstring and ``docs/devicetime.md``).

    The defaults are the Ascend910B1's (:data:`SOC_FIGURES`) with the A2 family's calibration (:data:`CALIBRATED`).

    Attributes
    ----------
    soc : str
        The chip the figures are for; its family picks the stated vector rates (:data:`VECTOR_BYTES_PER_CYCLE`).
    clock_mhz : float
        AI core clock [runtime ``cube_freq``]; the A2 files give no separate vector clock.
    core_read_bytes_per_cycle : float
        The most one core's GM -> UB transfer (MTE2) moves per cycle [runtime ``ddr_rate``, unit assumed; with
        the transfer latency it sets one core's speed alone, as the one-core Adds measure it].
    core_write_bytes_per_cycle : float
        The most one core's UB -> GM transfer (MTE3) moves per cycle [runtime ``ub_to_ddr_rate``, unit assumed].
    aggregate_gbps : float
        GM bandwidth every transfer shares, reads and writes together, GB/s (1e9 bytes/s) [calibrated].
    datacopy_cycles : float
        Fixed cycles of one DataCopy, during which it holds its pipe but moves no bytes [calibrated].
    burst_cycles : float
        Fixed cycles per contiguous piece (burst) of a DataCopy; the template's copies are one burst each
        [calibrated on the strided copies of the public measurements].
    unaligned_burst_cycles : float
        Extra fixed cycles per burst whose GM address is not 32-byte aligned (``estimate_custom(gm_aligned=False)``;
        the template's copies are aligned) [calibrated on the A2's unaligned copy; the 950 has no such figure and
        takes the A2's, assumed].
    transfer_latency_cycles : float
        Cycles from a transfer's end on its pipe to its data landing in UB or GM (the DMA's completion latency:
        the pipe issues the next DataCopy meanwhile). Compute waits for its CopyIn to land and for the CopyOut
        that frees its output buffer; a core ends when its last CopyOut lands [calibrated on the one-core Adds;
        about 109 ns on the A2, 236 ns on the 950; no public figure found].
    issue_cycles : float
        Extra fixed cycles per vector instruction call on top of the cost model (0: the model's figures alone;
        a measured claim on the 910B4 is about 35 cycles per instruction) [fit].
    scalar_cycles_per_tile : float
        SCALAR pipe cycles per tile for the loop and queue bookkeeping [assumed].
    head_us : float
        Launch head for the first block, microseconds [calibrated].
    head_per_block_us : float
        Launch head added by each block launched, microseconds [calibrated].
    cost_model : str
        ``"pypto"`` or ``"pto-isa"`` (they disagree; see :data:`COST_MODELS`).
    repeat_bytes : int
        Bytes one vector repeat covers [Ascend C: 8 blocks of 32 B].
    max_repeat : int
        Repeats one instruction call can take [Ascend C: repeatTimes <= 255]; longer tiles take more calls.
    """

    soc: str = _DEFAULT_CHIP
    clock_mhz: float = 1850.0
    core_read_bytes_per_cycle: float = 32.0
    core_write_bytes_per_cycle: float = 64.0
    aggregate_gbps: float = _A2["aggregate_gbps"]
    datacopy_cycles: float = _A2["datacopy_cycles"]
    burst_cycles: float = _A2["burst_cycles"]
    unaligned_burst_cycles: float = _A2["unaligned_burst_cycles"]
    transfer_latency_cycles: float = _A2["transfer_latency_cycles"]
    issue_cycles: float = 0.0
    scalar_cycles_per_tile: float = SCALAR_CYCLES_PER_TILE
    head_us: float = _A2["head_us"]
    head_per_block_us: float = _A2["head_per_block_us"]
    cost_model: str = "pypto"
    repeat_bytes: int = 256
    max_repeat: int = 255

    def __post_init__(self):
        if not isinstance(self.soc, str):
            raise TypeError(f"params.soc must be a string, got {type(self.soc).__name__}")
        if self.cost_model not in COST_MODELS:
            raise ValueError(f"params.cost_model must be one of {COST_MODELS}, got {self.cost_model!r}")
        positive = ("clock_mhz", "core_read_bytes_per_cycle", "core_write_bytes_per_cycle", "aggregate_gbps")
        for field in dataclasses.fields(self):
            name, value = field.name, getattr(self, field.name)
            if name in ("soc", "cost_model"):
                continue
            if isinstance(value, bool) or not isinstance(value, numbers.Real):
                raise TypeError(f"params.{name} must be a number, got {type(value).__name__}")
            if not math.isfinite(value):
                raise ValueError(f"params.{name} must be finite, got {value}")
            if name in ("repeat_bytes", "max_repeat"):
                if int(value) != value or value < 1 or value > _MAX_VALUE:
                    raise ValueError(f"params.{name} must be a positive integer up to {_MAX_VALUE:g}, got {value}")
                if name == "repeat_bytes" and value % _BLOCK_BYTES:
                    # a repeat is whole 32-byte blocks; smaller would hold less than an element of some dtypes
                    raise ValueError(f"params.repeat_bytes must be a multiple of {_BLOCK_BYTES}, got {value}")
                object.__setattr__(self, name, int(value))
                continue
            if value < 0 or (name in positive and value == 0):
                raise ValueError(f"params.{name} must be {'> 0' if name in positive else '>= 0'}, got {value}")
            if value > _MAX_VALUE or (name in positive and value < 1 / _MAX_VALUE):
                raise ValueError(f"params.{name} must lie in [{1 / _MAX_VALUE:g}, {_MAX_VALUE:g}] (times and rates "
                                 f"past that overflow the model), got {value}")
            object.__setattr__(self, name, float(value))

    def replace(self, **changes) -> "Params":
        """A copy with some values changed (a ValueError names an unknown one)."""
        names = {f.name for f in dataclasses.fields(self)}
        unknown = sorted(set(changes) - names)
        if unknown:
            raise ValueError(f"params: unknown parameter(s) {unknown}; known: {sorted(names)}")
        return dataclasses.replace(self, **changes)

    def as_dict(self) -> dict:
        return dataclasses.asdict(self)

    @property
    def cycles_per_us(self) -> float:
        return self.clock_mhz


def default_params(platform: Platform | None = None) -> Params:
    """The public figures and calibration for a platform's SoC (a family name stands for a chip; see
    ``docs/devicetime.md``)."""
    soc = "ascend910b" if platform is None else platform.soc_version
    family = soc_family_of(soc)
    chip = next((name for name in SOC_FIGURES if name.lower() == soc.lower()), None)
    if chip is None:
        chip = _FAMILY_CHIP.get(family, _DEFAULT_CHIP)
        if platform is not None and platform.architecture == ARCH_950:
            chip = _FAMILY_CHIP["ascend950"]
    clock, _cores, _ub, read, write = SOC_FIGURES[chip]
    return Params(soc=chip, clock_mhz=clock, core_read_bytes_per_cycle=read, core_write_bytes_per_cycle=write,
                  **CALIBRATED[chip_family(chip)])


def load_params(path, base: Params | None = None) -> Params:
    """Read parameters from a TOML file (keys of :class:`Params`, all at the top level or all under
    ``[devicetime]``).

    Values not in the file keep those of ``base`` (default :func:`default_params`).

    Raises
    ------
    ValueError
        The file cannot be read, is not UTF-8 TOML, mixes top-level keys with a ``[devicetime]`` table, or names
        an unknown parameter or a bad value (the message names the path).
    """
    where = f"params file {str(path)!r}"
    try:
        with open(path, "rb") as fh:
            data = tomllib.load(fh)
    except OSError as exc:
        raise ValueError(f"{where}: cannot read it: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise ValueError(f"{where}: not UTF-8 text (TOML files are UTF-8)") from None
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"{where}: not valid TOML: {exc}") from None
    if "devicetime" in data:
        if not isinstance(data["devicetime"], dict):
            raise ValueError(f"{where}: devicetime must be a table ([devicetime] with the parameters under it), "
                             f"got {type(data['devicetime']).__name__}")
        outside = sorted(set(data) - {"devicetime"})
        if outside:
            raise ValueError(f"{where}: key(s) {outside} outside the [devicetime] table would be ignored; put every "
                             f"parameter under [devicetime], or all at the top level")
        data = data["devicetime"]
    base = default_params() if base is None else base
    try:
        return base.replace(**data)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{where}: {exc}") from None


def _toml_string(text: str) -> str:
    """``text`` as a TOML basic string: quotes, backslashes and control characters escaped."""
    out = []
    for ch in text:
        if ch in ('"', "\\"):
            out.append("\\" + ch)
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def save_params(params: Params, path) -> None:
    """Write ``params`` as a TOML file that :func:`load_params` reads back exactly."""
    lines = ["# swishgrad device-time model parameters (docs/devicetime.md)", "[devicetime]"]
    for key, value in params.as_dict().items():
        lines.append(f"{key} = {_toml_string(value) if isinstance(value, str) else repr(value)}")
    with open(path, "w", encoding="utf-8") as fh:
        fh.write("\n".join(lines) + "\n")

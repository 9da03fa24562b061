"""Precision: the metrics and pass/fail standard of model section 7 (:mod:`.metrics`: :func:`compare`,
:class:`PrecisionReport`, ULP distances) and the device's error envelope of model section 10
(:mod:`.envelope`: :func:`envelope`, :func:`operator_envelope`)."""
from .envelope import ENVELOPE_PRESETS, MAX_ENVELOPE_ULP, Envelope, envelope, operator_envelope
from .metrics import THRESHOLDS, PrecisionReport, compare, ordered_int, threshold_for, tiny_for, ulp_distance

__all__ = ["ENVELOPE_PRESETS", "Envelope", "MAX_ENVELOPE_ULP", "THRESHOLDS", "PrecisionReport", "compare", "envelope",
           "operator_envelope", "threshold_for", "tiny_for", "ulp_distance", "ordered_int"]

"""The model's integer arithmetic (docs/model.md sections 3, 4, 9), written once.

Each function here is plain integer arithmetic that runs unchanged on three
kinds of number:

- Python ints: exact at any size (:func:`~swishgrad_numba.compute_tiling`,
  the validator);
- NumPy int64 arrays: one evaluation per element (the validator's sweep over
  millions of sizes and platforms checks the real host code this way);
- jitted code: the helpers of :mod:`.arith` and :func:`.a2.padded_numel`
  are ``register_jitable``, so jitted code can call them too.

So conditionals are written as arithmetic (:func:`select`, :func:`minimum`)
rather than ``if``. Callers check their inputs; these functions only
compute.

- :mod:`.a2`: the Atlas A2 kernel (model sections 3 and 4): host tiling, core
  classes, block padding, the unified-buffer plan.
- :mod:`.arch35`: the Ascend 950 kernel (model section 9): the atvoss
  ElewiseTiling, block classes, its unified-buffer use.

Both kernels' launches are described by one type, :class:`CoreClass`: runs
of cores that share a walk shape.
"""
from .arith import CoreClass, ceil_div, maximum, minimum, pad_to, select

__all__ = ["CoreClass", "ceil_div", "maximum", "minimum", "pad_to", "select"]

"""The faces of the operators in the described form (:mod:`swishgrad_numba.ops.description`), generated:

- :mod:`.functional`: the public function (``swishgrad_numba.leaky_relu``);
- :mod:`.torch`: the torch module and its autograd row (``swishgrad_numba.torch.LeakyReLU``);
- the aclnn pairs: :mod:`swishgrad_numba.aclnn.described`; the Dask function:
  :func:`swishgrad_numba.dask.described` (each beside the hand-written faces it shares helpers with).
"""

"""Where :func:`read_kernel` was before it moved into the reader (issue 43): :mod:`swishgrad_numba.reader.operator`."""
from ..reader.operator import READ_MODULE, ReadOperator, read_kernel

__all__ = ["READ_MODULE", "ReadOperator", "read_kernel"]

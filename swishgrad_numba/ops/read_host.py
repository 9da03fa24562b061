"""Where a read kernel's host side was before it moved into the reader (issue 43):
:mod:`swishgrad_numba.reader.host_tiling`."""
from ..reader.host_tiling import *  # noqa: F401,F403
from ..reader.host_tiling import __all__  # noqa: F401

"""When the engines run compiled code (numba): from :data:`COMPILED_FROM` operations.
Below, the same functions run as Python and neither numba nor numpy is imported (the
start-up time of a small check); above, the compiled code's speed pays for loading it
from numba's cache (about 0.2 s, plus numba's own import)."""

COMPILED_FROM = 300
"""Operations from which a check runs the compiled kernels (below: Python, no numba)."""

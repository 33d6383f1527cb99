"""The ``fisheye`` command line: one module per command (``check``, ``explain``,
``simulate``, ``explore``, ``table1``), dispatched by :mod:`.main`."""

from .main import main

__all__ = ["main"]

"""fisheye: executable fisheye consistency.

The subpackages live in the repository's top-level folders and are mapped onto
namespaced import names by ``pyproject.toml``:

- ``fisheye.spec``    (``spec/``): the formal model, executable;
- ``fisheye.impl``    (``impl/``): reference implementations of the algorithms;
- ``fisheye.checker`` (``checker/``): engines, explorer, CLI.
"""

__version__ = "0.1.0"

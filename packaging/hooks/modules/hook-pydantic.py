"""Our override of pyinstaller-hooks-contrib's pydantic hook: every submodule but the excluded.

The stock hook lists all of pydantic's submodules as hidden imports, so excluding
``pydantic.v1`` and ``pydantic.mypy`` (bundle_manifest.EXCLUDED_MODULES) would make
PyInstaller warn once for each of them.
"""

from bundle_manifest import is_excluded_module
from PyInstaller.utils.hooks import collect_submodules

hiddenimports = collect_submodules("pydantic", filter=lambda name: not is_excluded_module(name))

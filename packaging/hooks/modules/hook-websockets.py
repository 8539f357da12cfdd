"""Our override of pyinstaller-hooks-contrib's websockets hook: every submodule but the excluded.

The stock hook lists all of websockets' submodules as hidden imports, so excluding
``websockets.trio`` (bundle_manifest.EXCLUDED_MODULES) would make PyInstaller warn once for
each of them.
"""

from bundle_manifest import is_excluded_module
from PyInstaller.utils.hooks import collect_submodules

hiddenimports = collect_submodules("websockets", filter=lambda name: not is_excluded_module(name))

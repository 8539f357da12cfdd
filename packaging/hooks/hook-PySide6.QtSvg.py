"""Our override of PyInstaller's PySide6.QtSvg hook: only the Qt plugins the app uses.

The stock hook collects every plugin folder the module could need; bundle_manifest keeps
the ones listed in QT_PLUGINS_KEPT and drops Qt's translations.
"""

from bundle_manifest import filter_qt_collection
from PyInstaller.utils.hooks.qt import add_qt6_dependencies

hiddenimports, binaries, datas = filter_qt_collection(*add_qt6_dependencies(__file__))

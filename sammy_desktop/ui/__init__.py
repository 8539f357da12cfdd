"""All Qt code: windows, dialogs, the tray, and the bridge from core events to Qt signals.

Nothing outside this package (and ``app.py``) imports PySide6.
"""

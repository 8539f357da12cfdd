"""The files and entries that tie this installation into the desktop, without Qt.

* :mod:`.launch`: how this installation is started (:func:`~.launch.program_path`) and the
  words of a command that starts it or talks to it.
* :mod:`.desktop_file`: the Desktop Entry format (freedesktop.org): its string escaping and
  the quoting of ``Exec``, both ways.
* :mod:`.autostart`: the entry that starts Sammy at login (an XDG autostart file, the
  per-user Run key, a LaunchAgent), written and removed.
* :mod:`.desktop_entry`: the applications-menu entry and its icon (Linux), from the same
  template as ``packaging/linux/sammy-desktop.desktop``.

Everything here reads the environment (``HOME``, ``XDG_*``) when it is called, not when it
is imported, and reports a failure as an :class:`~.files.IntegrationError` whose text is a
sentence for the person.
"""

from __future__ import annotations

from sammy_desktop.integration.files import IntegrationError

__all__ = ["IntegrationError"]

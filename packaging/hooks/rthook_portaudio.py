"""Runtime hook: make sounddevice load the PortAudio library shipped inside the bundle.

On Linux sounddevice asks ``ctypes.util.find_library("portaudio")``, which consults
``ldconfig`` and never looks inside the bundle: the frozen app would load the system's
libportaudio if there is one and fail with "PortAudio library not found" if there is none
(python-sounddevice #378). This hook runs before any app code and answers that one question
with the copy the spec put next to the executable. Windows and macOS use the library from
sounddevice's own _sounddevice_data folder, which the stock hook collects.
"""

import ctypes.util
import glob
import os
import sys


def _prefer_bundled_portaudio() -> None:
    if not sys.platform.startswith("linux"):
        return
    # The copy keeps the file name of the system's library (libportaudio.so.2.0.0 on Debian).
    found = sorted(glob.glob(os.path.join(sys._MEIPASS, "libportaudio.so*")))  # type: ignore[attr-defined]
    if not found:
        return
    bundled = found[0]
    system_find_library = ctypes.util.find_library

    def find_library(name: str) -> str | None:
        if name == "portaudio":
            return bundled
        return system_find_library(name)

    ctypes.util.find_library = find_library


_prefer_bundled_portaudio()

"""The lazily imported Live SDK: the window's modules load without it, and it works when used."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import threading

import pytest

from sammy_desktop.lazy import LazyModule, lazy_module


def _fresh_interpreter(code: str) -> str:
    result = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env={"QT_QPA_PLATFORM": "offscreen", "PATH": "/usr/bin:/bin"},
    )
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


def test_the_window_s_modules_load_without_the_sdk_or_the_simulator() -> None:
    # Everything the app imports before its window shows; google.genai alone is ~0.4 s.
    loaded = _fresh_interpreter(
        """
        import sys
        import sammy_desktop.app, sammy_desktop.desktop_app
        print(sorted(m for m in sys.modules
                     if m.startswith(("google.genai", "sammy_desktop.sim"))))
        """
    )
    assert loaded == "[]"


def test_the_lazy_types_work_like_the_real_module() -> None:
    out = _fresh_interpreter(
        """
        import sys
        from sammy_desktop.config import Settings, TalkMode, VadSensitivity
        from sammy_desktop.core.setup import build_live_config
        assert "google.genai" not in sys.modules
        settings = Settings(
            vad_start_sensitivity=VadSensitivity.HIGH, vad_end_sensitivity=VadSensitivity.LOW
        )
        config = build_live_config(
            settings, [], talk_mode=TalkMode.HANDS_FREE, resume_handle=None
        )
        from google.genai import types
        assert isinstance(config, types.LiveConnectConfig)
        detection = config.realtime_input_config.automatic_activity_detection
        print(detection.start_of_speech_sensitivity.name, detection.end_of_speech_sensitivity.name)
        """
    )
    assert out == "START_SENSITIVITY_HIGH END_SENSITIVITY_LOW"


def test_a_lazy_module_loads_on_first_use_and_then_is_the_module() -> None:
    import json

    stand_in = lazy_module("json")
    assert isinstance(stand_in, LazyModule)
    assert "not loaded yet" in repr(stand_in)
    assert stand_in.dumps([1]) == "[1]"
    # The namespace was taken over: later reads are plain attribute reads.
    assert "dumps" in vars(stand_in)
    assert stand_in.JSONDecodeError is json.JSONDecodeError
    assert "loaded" in repr(stand_in)


def test_dunder_lookups_do_not_load_the_module() -> None:
    stand_in = LazyModule("sammy_desktop_no_such_module")
    assert not hasattr(stand_in, "__wrapped__")  # introspection, e.g. inspect.unwrap
    with pytest.raises(ModuleNotFoundError, match="sammy_desktop_no_such_module"):
        _ = stand_in.anything  # a missing module says so on first use


def test_threads_racing_to_first_use_all_get_the_module() -> None:
    stand_in = lazy_module("colorsys")
    results: list[object] = []
    start = threading.Barrier(4)

    def use() -> None:
        start.wait(timeout=10)
        results.append(stand_in.rgb_to_hsv)

    threads = [threading.Thread(target=use) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=10)
    import colorsys

    assert results == [colorsys.rgb_to_hsv] * 4

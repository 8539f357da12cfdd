"""``--self-test`` run in-process: every step passes here, and failures are named."""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import keyring
import pytest
from keyring.backends.null import Keyring as NullKeyring

from sammy_desktop import selftest
from sammy_desktop.audio.devices import AudioDevice
from sammy_desktop.selftest import (
    LOAD_CHECKS,
    STEP_NAMES,
    SelfTestFailure,
    install_checks,
    run_self_test,
)

STEP_LINE = re.compile(r"^  (ok|FAILED) +(\S+) +\d+ ms  (.+)$")


def _step_lines(report: str) -> list[tuple[str, str, str]]:
    lines = report.splitlines()
    steps = []
    for line in lines[1:-1]:
        match = STEP_LINE.match(line)
        assert match, f"not a step line: {line!r}"
        status, name, detail = match.groups()
        steps.append((status, name, detail))
    return steps


def test_every_step_passes_in_a_development_install() -> None:
    out = io.StringIO()

    code = run_self_test(out)

    report = out.getvalue()
    assert code == 0, report
    assert report.splitlines()[0].startswith("sammy-desktop ")
    assert "(not frozen," in report.splitlines()[0]
    steps = _step_lines(report)
    assert [name for _, name, _ in steps] == list(STEP_NAMES)
    assert all(status == "ok" for status, _, _ in steps), report
    details = {name: detail for _, name, detail in steps}
    assert "CA certificates" in details["ca-bundle"]
    assert "SecretService" in details["keyring"]
    assert "PortAudio V19" in details["portaudio"]
    assert details["audio-devices"].startswith("1 microphone (SammyVirtualMic), 2 speakers (")
    assert "frames of 10 ms processed" in details["echo-canceller"]
    assert "offscreen" in details["qt"]
    assert re.fullmatch(
        r"the control socket's library loads \(QtNetwork\); the portal's D-Bus client "
        r"jeepney \d+\.\d+(\.\d+)?",
        details["remote-control"],
    )
    assert "0.50 s of PCM16 at 24000 Hz" in details["push-to-talk"]
    assert details["tool-call"].startswith("getCurrentContext answered")
    assert "with FTS5" in details["sqlite"]
    assert re.fullmatch(
        r"mcp 2\.\d+\.\d+ loaded; no MCP servers configured \(there is no mcp.json\)",
        details["mcp-servers"],
    )
    assert re.fullmatch(
        rf"self-test passed: {len(STEP_NAMES)} steps in \d+\.\d\d s", report.splitlines()[-1]
    )


def _broken_library() -> str:
    raise SelfTestFailure("libexample.so is not in this install")


def _numpy_like_import_error() -> str:
    raise ImportError(
        "\nIMPORTANT: PLEASE READ THIS FOR ADVICE\n\n"
        "Original error was: libexample.so: cannot open shared object file\n"
    )


def test_a_failing_check_is_named_and_the_other_steps_still_run() -> None:
    out = io.StringIO()
    checks = (LOAD_CHECKS[0], ("broken-library", _broken_library), LOAD_CHECKS[1])

    code = run_self_test(out, checks=checks)

    report = out.getvalue()
    assert code == 1
    steps = _step_lines(report)
    assert ("FAILED", "broken-library", "libexample.so is not in this install") in steps
    statuses = {name: status for status, name, _ in steps}
    assert statuses["ca-bundle"] == statuses["keyring"] == statuses["tool-call"] == "ok"
    assert report.splitlines()[-1].startswith("self-test FAILED: broken-library (")


def test_an_exception_with_a_page_of_advice_becomes_one_line() -> None:
    out = io.StringIO()

    code = run_self_test(out, checks=(("numpy", _numpy_like_import_error),))

    assert code == 1
    steps = _step_lines(out.getvalue())
    assert steps[0] == (
        "FAILED",
        "numpy",
        "ImportError: Original error was: libexample.so: cannot open shared object file",
    )


def test_steps_that_need_the_simulator_say_they_were_skipped(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # The simulator cannot make its certificate authority within 0.1 ms; the CA files it
    # writes once the cancelled start has finished go to tmp_path.
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    out = io.StringIO()

    code = run_self_test(out, checks=(), timeout_s=0.0001)

    assert code == 1
    steps = _step_lines(out.getvalue())
    assert steps[:4] == [
        ("FAILED", "simulator", "no result within 0.0001 s"),
        ("FAILED", "connect", "skipped: the simulator did not start"),
        ("FAILED", "push-to-talk", "skipped: there is no connection"),
        ("FAILED", "tool-call", "skipped: there is no connection"),
    ]
    # The MCP step needs no simulator: it runs whatever happened to the others (within
    # 0.1 ms or not, depending on whether the SDK is loaded already).
    assert [name for _, name, _ in steps[4:]] == ["mcp-servers"]
    assert (
        out.getvalue()
        .splitlines()[-1]
        .startswith("self-test FAILED: simulator, connect, push-to-talk, tool-call")
    )


def test_the_resources_folder_is_found_outside_a_bundle() -> None:
    assert (selftest._resources_dir() / "icons" / "app.svg").is_file()


def _self_test_in_a_child(tmp_path: Path, **environment: str) -> subprocess.CompletedProcess[str]:
    """``sammy-desktop --self-test`` as a person runs it, in a fresh process."""
    env = os.environ | environment
    return subprocess.run(
        [sys.executable, "-m", "sammy_desktop", "--self-test", "--config-dir", str(tmp_path)],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.mark.audio
def test_no_keyring_and_no_sound_devices_fail_with_the_fix_in_words(tmp_path: Path) -> None:
    result = _self_test_in_a_child(
        tmp_path,
        PYTHON_KEYRING_BACKEND="keyring.backends.fail.Keyring",
        # Not the private PulseAudio: no sound server, so no microphone and no speaker.
        PULSE_SERVER="unix:/nonexistent/sammy-no-sound-server",
    )

    report = result.stdout
    assert result.returncode == 1, report
    details = {name: (status, detail) for status, name, detail in _step_lines(report)}
    status, detail = details["keyring"]
    assert status == "FAILED"
    assert detail.startswith("No password store is usable, so Sammy cannot keep an API key")
    assert detail.endswith("Install gnome-keyring or KWallet and log in again.")
    assert details["audio-devices"] == (
        "FAILED",
        "No microphone found: connect one or check the sound settings; No speaker found: "
        "connect speakers or headphones, or check the sound settings.",
    )
    # The rest of the install is fine, and the last line names exactly what is not.
    assert details["portaudio"][0] == details["tool-call"][0] == "ok"
    assert report.splitlines()[-1].startswith("self-test FAILED: keyring, audio-devices (")


def test_the_null_keyring_backend_is_no_keyring(monkeypatch: pytest.MonkeyPatch) -> None:
    previous = keyring.get_keyring()
    keyring.set_keyring(NullKeyring())  # type: ignore[no-untyped-call]
    try:
        with pytest.raises(SelfTestFailure, match="cannot keep an API key"):
            install_checks.check_keyring()
    finally:
        keyring.set_keyring(previous)


def _device(name: str, inputs: int, outputs: int) -> AudioDevice:
    return AudioDevice(0, name, "test", 48000.0, inputs, outputs, False, False, description=name)


def test_a_missing_microphone_or_speaker_is_named_with_what_to_do() -> None:
    speakers_only = [_device("Speakers", 0, 2)]
    with pytest.raises(SelfTestFailure) as no_mic:
        install_checks.check_audio_devices(lambda: speakers_only)
    assert str(no_mic.value) == "No microphone found: connect one or check the sound settings."

    mic_only = [_device("Headset Microphone", 1, 0)]
    with pytest.raises(SelfTestFailure, match=r"^No speaker found: connect speakers"):
        install_checks.check_audio_devices(lambda: mic_only)

    both = [_device("Headset Microphone", 1, 0), _device("Speakers", 0, 2)]
    assert install_checks.check_audio_devices(lambda: both) == (
        "1 microphone (Headset Microphone), 1 speaker (Speakers)"
    )

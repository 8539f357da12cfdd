#!/usr/bin/env bash
# Runs a command inside a private test environment and tears it down afterwards.
#
#   scripts/with-test-services.sh COMMAND [ARGS...]
#
# What it starts, all private to this run (nothing touches a desktop's real services):
#   - a fresh HOME and XDG dirs under a temp folder;
#   - PulseAudio with its own runtime dir and socket, and two null sinks:
#       sammy_speaker  the virtual speaker (record what we play from sammy_speaker.monitor)
#       sammy_mic_feed play into this to speak into the virtual microphone `sammy_mic`
#     `sammy_mic` (a remap of sammy_mic_feed.monitor) is the default source, sammy_speaker
#     the default sink; PortAudio reaches them through ALSA's pulse plugin;
#   - a D-Bus session bus with gnome-keyring's Secret Service, unlocked with a throwaway
#     password;
#   - Xvfb on a free display (DISPLAY is exported; Qt tests still default to offscreen).
# The command's exit code is returned. Everything is stopped on exit, also on failure or
# Ctrl-C; the services' logs are copied to build/test-output/services/.
set -euo pipefail

[ $# -ge 1 ] || { echo "usage: $0 COMMAND [ARGS...]" >&2; exit 2; }

repo=$(cd "$(dirname "$0")/.." && pwd)
out="$repo/build/test-output"
mkdir -p "$out/services"
tmp=$(mktemp -d /tmp/sammy-test.XXXXXX)
pids=()

log() { echo "test-services: $*" >&2; }

cleanup() {
    local rc=$?
    trap - EXIT INT TERM
    for pid in "${pids[@]}"; do
        kill "$pid" 2>/dev/null || true
    done
    # The keyring daemon runs under a restart loop; its command line names our folder.
    pkill -f -- "--control-directory=$tmp/" 2>/dev/null || true
    for pid in "${pids[@]}"; do
        for _ in $(seq 50); do
            kill -0 "$pid" 2>/dev/null || break
            sleep 0.1
        done
        kill -9 "$pid" 2>/dev/null || true
    done
    cp "$tmp"/*.log "$out/services/" 2>/dev/null || true
    rm -rf "$tmp"
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

wait_for() {  # wait_for DESCRIPTION SECONDS COMMAND...
    local what=$1 secs=$2
    shift 2
    local deadline=$((SECONDS + secs))
    until "$@" >/dev/null 2>&1; do
        if [ $SECONDS -ge $deadline ]; then
            log "$what did not come up within ${secs}s; its log follows"
            cat "$tmp"/*.log >&2 || true
            return 1
        fi
        sleep 0.1
    done
}

# --- a private home --------------------------------------------------------------------
export HOME="$tmp/home"
export XDG_RUNTIME_DIR="$tmp/run"
export XDG_CONFIG_HOME="$HOME/.config" XDG_DATA_HOME="$HOME/.local/share"
export XDG_CACHE_HOME="$HOME/.cache" XDG_STATE_HOME="$HOME/.local/state"
mkdir -p "$HOME" "$XDG_CONFIG_HOME" "$XDG_DATA_HOME" "$XDG_CACHE_HOME" "$XDG_STATE_HOME"
mkdir -m 700 -p "$XDG_RUNTIME_DIR"
unset GEMINI_API_KEY GOOGLE_API_KEY SAMMY_API_BASE_URL SSL_CERT_FILE 2>/dev/null || true

# --- PulseAudio --------------------------------------------------------------------------
export PULSE_RUNTIME_PATH="$XDG_RUNTIME_DIR/pulse"
export PULSE_STATE_PATH="$tmp/pulse-state"
export PULSE_SERVER="unix:$PULSE_RUNTIME_PATH/native"
export PULSE_CLIENTCONFIG="$tmp/pulse-client.conf"
mkdir -m 700 -p "$PULSE_RUNTIME_PATH" "$PULSE_STATE_PATH"
printf 'autospawn = no\n' >"$PULSE_CLIENTCONFIG"
cat >"$tmp/pulse.pa" <<EOF
load-module module-native-protocol-unix auth-anonymous=1 socket=$PULSE_RUNTIME_PATH/native
load-module module-null-sink sink_name=sammy_speaker rate=48000 sink_properties=device.description=SammyVirtualSpeaker
load-module module-null-sink sink_name=sammy_mic_feed rate=48000 sink_properties=device.description=SammyVirtualMicFeed
load-module module-remap-source source_name=sammy_mic master=sammy_mic_feed.monitor source_properties=device.description=SammyVirtualMic
set-default-sink sammy_speaker
set-default-source sammy_mic
EOF
pulseaudio -n -F "$tmp/pulse.pa" --daemonize=no --exit-idle-time=-1 --use-pid-file=no \
    --disable-shm=yes --log-level=notice --log-target="file:$tmp/pulseaudio.log" \
    >>"$tmp/pulseaudio.log" 2>&1 &
pids+=($!)
wait_for PulseAudio 20 pactl info
export SAMMY_TEST_MIC_FEED=sammy_mic_feed SAMMY_TEST_MIC=sammy_mic
export SAMMY_TEST_SPEAKER=sammy_speaker SAMMY_TEST_SPEAKER_MONITOR=sammy_speaker.monitor

# --- D-Bus session + gnome-keyring ---------------------------------------------------------
export DBUS_SESSION_BUS_ADDRESS="unix:path=$XDG_RUNTIME_DIR/bus"
dbus-daemon --session --nofork --nopidfile --address="$DBUS_SESSION_BUS_ADDRESS" \
    >>"$tmp/dbus.log" 2>&1 &
pids+=($!)
wait_for D-Bus 20 test -S "$XDG_RUNTIME_DIR/bus"
# --unlock reads the password from stdin and creates the login keyring with it (and
# unlocks it again after a restart). gnome-keyring 42 can abort when a client exits in the
# middle of a request (a test killing an app at start-up does that), so it is restarted if
# it ends: one daemon's bug must not fail every keyring test after it.
keyring_password="sammy-test-$RANDOM$RANDOM"
(
    while :; do
        printf '%s' "$keyring_password" |
            gnome-keyring-daemon --foreground --unlock --components=secrets \
                --control-directory="$XDG_RUNTIME_DIR/keyring" >>"$tmp/gnome-keyring.log" 2>&1
        echo "test-services: gnome-keyring-daemon ended ($?); restarting it" \
            >>"$tmp/gnome-keyring.log"
        sleep 0.2
    done
) &
pids+=($!)
wait_for gnome-keyring 20 dbus-send --session --print-reply --dest=org.freedesktop.DBus \
    /org/freedesktop/DBus org.freedesktop.DBus.GetNameOwner string:org.freedesktop.secrets

# --- Xvfb --------------------------------------------------------------------------------
exec 5>"$tmp/xvfb.display"
# Keyboard auto-repeat is pushed out of reach (-ardelay): under Xvfb Qt cannot always tell a
# repeat from a real release (no detectable auto-repeat there), and a test holding Space
# through xdotool would see the turn end early. Desktops' X servers and Wayland flag
# repeats, which the window ignores.
Xvfb -displayfd 5 -screen 0 1280x1024x24 -nolisten tcp -noreset -ardelay 600000 \
    >>"$tmp/xvfb.log" 2>&1 &
pids+=($!)
exec 5>&-
wait_for Xvfb 20 test -s "$tmp/xvfb.display"
DISPLAY=":$(head -n1 "$tmp/xvfb.display")"
export DISPLAY

export SAMMY_TEST_OUTPUT="$out"
export SAMMY_TEST_SERVICES=1
log "ready (HOME=$HOME DISPLAY=$DISPLAY PULSE_SERVER=$PULSE_SERVER)"

set +e
"$@"
rc=$?
set -e
exit $rc

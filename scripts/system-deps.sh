#!/usr/bin/env bash
# Makes sure the Debian/Ubuntu packages that the tests (or the app) need are installed.
#
#   scripts/system-deps.sh test   packages for `make test` (audio server, keyring, X, test audio)
#   scripts/system-deps.sh run    packages for `make run` (PortAudio and Qt's xcb libraries)
#
# As root, missing packages are installed with apt-get. Otherwise the one command to run
# is printed and the script exits non-zero: we never call sudo behind the person's back.
set -euo pipefail

profile=${1:-test}

run_pkgs=(
    libportaudio2
    libxcb-cursor0 libxkbcommon-x11-0 libxcb-icccm4 libxcb-image0 libxcb-keysyms1
    libxcb-randr0 libxcb-render-util0 libxcb-shape0 libxcb-xinerama0 libxcb-xkb1
    libxcb-xfixes0 libegl1 libgl1 libfontconfig1 libdbus-1-3
)
test_pkgs=(
    "${run_pkgs[@]}"
    pulseaudio pulseaudio-utils libasound2-plugins
    dbus dbus-x11 gnome-keyring
    xvfb xauth xdotool
    espeak-ng sox
    binutils procps
)

case "$profile" in
    run) wanted=("${run_pkgs[@]}") ;;
    test) wanted=("${test_pkgs[@]}") ;;
    *) echo "usage: $0 run|test" >&2; exit 2 ;;
esac

if ! command -v dpkg-query >/dev/null 2>&1; then
    echo "system-deps: not a Debian/Ubuntu system; make sure PortAudio, PulseAudio, D-Bus," >&2
    echo "system-deps: gnome-keyring, Xvfb, espeak-ng and sox are installed, then run again." >&2
    exit 0
fi

missing=()
for pkg in "${wanted[@]}"; do
    status=$(dpkg-query -W -f='${db:Status-Status}' "$pkg" 2>/dev/null || true)
    [ "$status" = "installed" ] || missing+=("$pkg")
done

[ ${#missing[@]} -eq 0 ] && exit 0

cmd="apt-get install -y --no-install-recommends ${missing[*]}"
if [ "$(id -u)" -ne 0 ]; then
    echo "Some system packages are missing. Install them with:" >&2
    echo "    sudo apt-get update && sudo $cmd" >&2
    exit 1
fi

echo "system-deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null

#!/usr/bin/env bash
# Installs this Sammy Desktop folder for the current user (no root needed).
#
#   ./install.sh              copy to ~/.local/opt/sammy-desktop, add the menu entry,
#                             the icon and ~/.local/bin/sammy-desktop
#   ./install.sh --uninstall  remove all of that again
#
# Runs from inside the built folder (dist/sammy-desktop/). Honours XDG_DATA_HOME.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
data=${XDG_DATA_HOME:-$HOME/.local/share}
target="$HOME/.local/opt/sammy-desktop"
bin="$HOME/.local/bin/sammy-desktop"
entry="$data/applications/sammy-desktop.desktop"
icon="$data/icons/hicolor/256x256/apps/sammy-desktop.png"

if [ "${1:-}" = "--uninstall" ]; then
    rm -rf "$target" "$bin" "$entry" "$icon"
    echo "Sammy Desktop removed (settings and history under ~/.config and ~/.local/share stay)."
    exit 0
fi

[ -x "$here/sammy-desktop" ] || { echo "install.sh: run me from the Sammy Desktop folder" >&2; exit 1; }
mkdir -p "$(dirname "$target")" "$(dirname "$bin")" "$(dirname "$entry")" "$(dirname "$icon")"
if [ "$here" != "$target" ]; then
    rm -rf "$target"
    cp -a "$here" "$target"
fi
ln -sfn "$target/sammy-desktop" "$bin"
cp "$here/sammy-desktop.png" "$icon"
# The menu entry names the installed executable by its full path: ~/.local/bin is not on
# every desktop session's PATH. Every Exec line (the app's and its Talk, Show and Quit
# actions') starts with the word sammy-desktop (sammy_desktop/integration/desktop_entry.py
# writes the same template); the path replaces that word, quoted as the Desktop Entry spec
# asks: in "...", with " ` $ \ backslashed and % doubled, then every backslash doubled again
# (the string escaping), then made safe for sed's replacement.
quoted=$(printf '%s' "$target/sammy-desktop" | sed -e 's/[\\"`$]/\\&/g' -e 's/%/%%/g' -e 's/\\/\\\\/g')
replacement=$(printf '%s' "\"$quoted\"" | sed -e 's/[\\&|]/\\&/g')
sed "s|^Exec=sammy-desktop|Exec=$replacement|" "$here/sammy-desktop.desktop" >"$entry"
command -v update-desktop-database >/dev/null && update-desktop-database -q "$data/applications" || true
echo "Sammy Desktop installed in $target; it is in your applications menu and on the"
echo "command line as $bin. Check it with: sammy-desktop --self-test"

#!/usr/bin/env bash
# Screenshot of a VCD in GTKWave, headless: for the docs, and for checking by
# eye that a waveform shows what it should.
#
#   scripts/gtkwave_shot.sh IN.vcd OUT.png [VIEW.gtkw]
#
# VIEW.gtkw (default scripts/gtkwave_multicast.gtkw) is a GTKWave save file:
# the signals, their formats and aliases, the zoom and the window size
# ([size], also the screenshot's size unless SHOT_WIDTH/SHOT_HEIGHT). Needs gtkwave, xvfb, xdotool and imagemagick
# (apt-get install gtkwave xvfb xdotool imagemagick). GTKWave has no batch
# "save as PNG", so it runs in a private X server and the screen is grabbed.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
vcd=${1:?usage: $0 IN.vcd OUT.png [VIEW.gtkw]}
png=${2:?usage: $0 IN.vcd OUT.png [VIEW.gtkw]}
view=${3:-$here/gtkwave_multicast.gtkw}
# The window size: SHOT_WIDTH/SHOT_HEIGHT, else the save file's [size] line
# (each view is laid out for its own size), else 1280x600.
size=$(sed -n 's/^\[size\] \([0-9]*\) \([0-9]*\).*/\1 \2/p' "$view" | head -1)
width=${SHOT_WIDTH:-${size% *}}
height=${SHOT_HEIGHT:-${size#* }}
width=${width:-1280}
height=${height:-600}

for tool in gtkwave xvfb-run xdotool import; do
    command -v "$tool" >/dev/null || { echo "missing $tool (apt-get install gtkwave xvfb xdotool imagemagick)" >&2; exit 2; }
done

inner=$(mktemp)
trap 'rm -f "$inner"' EXIT
cat >"$inner" <<INNER
set -euo pipefail
gtkwave --rcvar 'hide_sst on' --rcvar 'splash_disable on' "$vcd" "$view" >/dev/null 2>&1 &
pid=\$!
# Wait for the window, then fill the screen with it.
for _ in \$(seq 50); do
    win=\$(xdotool search --onlyvisible --name 'GTKWave' 2>/dev/null | head -1 || true)
    [ -n "\$win" ] && break
    sleep 0.2
done
[ -n "\$win" ] || { echo "GTKWave window did not appear" >&2; kill \$pid; exit 1; }
xdotool windowmove "\$win" 0 0 windowsize "\$win" $width $height
sleep 2
import -window root -crop ${width}x${height}+0+0 +repage "$png"
kill \$pid
INNER
xvfb-run -a -s "-screen 0 ${width}x${height}x24" bash "$inner"
echo "wrote $png"

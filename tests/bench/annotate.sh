#!/bin/sh
# Prints the x86 code V8 generated for the hottest function of one hot loop (annotate-loop.mjs),
# with perf's share of samples per instruction: what a kernel costs per SIMD vector once compiled.
#   tests/bench/annotate.sh rope-half | rope-interleaved | sinusoidal-fast-add | alibi-bias | rmw | rot
# Needs Linux perf (Debian: apt-get install linux-perf), permission to profile
# (kernel.perf_event_paranoid <= 2) and a built dist/ (npm run build).
set -eu
loop=${1:?usage: tests/bench/annotate.sh rope-half|rope-interleaved|sinusoidal-fast-add|alibi-bias|rmw|rot}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
perf record -q -k 1 -o perf.data node --perf-prof --no-write-protect-code-memory "$here/annotate-loop.mjs" "$loop"
perf inject -i perf.data --jit -o jit.data 2>/dev/null
symbol=$(perf report -i jit.data --no-children --sort symbol 2>/dev/null | grep -v '^#' | grep -o 'JS:.*' | head -n 1 | sed -E 's/[[:space:]]+(-[[:space:]]+)*$//')
echo "hottest: $symbol"
perf annotate -i jit.data --stdio "$symbol" 2>/dev/null | grep -E '^ +[0-9]+\.[0-9]+ :' | awk '$1 >= 0.3'

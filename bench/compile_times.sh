#!/usr/bin/env bash
# Cold (empty kernel cache) and warm (cache hit) compile times of the sample
# kernels through tile-translate, median of N runs each. Host target only
# until the GPU path exists. Usage: bench/compile_times.sh [N] > result.md
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
tool="$root/build/bin/tile-translate"
runs="${1:-5}"
[[ -x "$tool" ]] || { echo "build first: scripts/test.sh" >&2; exit 1; }
cache="$(mktemp -d)"
trap 'rm -rf "$cache"' EXIT
export TILE_CACHE_DIR="$cache"

now_ms() { date +%s%N | awk '{ printf "%.1f", $1 / 1e6 }'; }
median() { sort -n | awk '{ a[NR] = $1 } END { printf "%.1f", (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }

echo "# Host compile times ($(date -u +%Y-%m-%d), $(nproc) cores, $(uname -m))"
echo
echo "tile-translate --emit=host-so, median of $runs runs; cold = empty kernel cache, warm = cache hit."
echo
echo "| input | kernels | cold ms | warm ms |"
echo "|---|---|---|---|"
for input in examples/rmsnorm.mlir test/Dialect/Tile/Transforms/ownership-accept.mlir; do
  kernels=$(grep -c '^tile.kernel' "$root/$input")
  cold=() warm=()
  for ((i = 0; i < runs; i++)); do
    rm -rf "$cache"/*
    t0=$(now_ms); "$tool" "$root/$input" --emit=host-so -o /dev/null; t1=$(now_ms)
    "$tool" "$root/$input" --emit=host-so -o /dev/null; t2=$(now_ms)
    cold+=("$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')")
    warm+=("$(awk -v a="$t1" -v b="$t2" 'BEGIN { print b - a }')")
  done
  printf '| %s | %s | %s | %s |\n' "$input" "$kernels" \
    "$(printf '%s\n' "${cold[@]}" | median)" "$(printf '%s\n' "${warm[@]}" | median)"
done

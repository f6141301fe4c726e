#!/usr/bin/env bash
# tilec cold and warm (cache-hit) compile times of a 40-kernel file: the 27
# kernels of test/Language/corpus.tile plus a parameterized GEMV and 12
# specializations of it (bench/tilec_gemv.tile), to one sm_90a CUBIN.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
tilec="$root/build/bin/tilec"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cat "$root/test/Language/corpus.tile" "$root/bench/tilec_gemv.tile" > "$work/twenty.tile"
specs=()
for r in 1 2 4 8; do
  for kt in 256 512 1024; do
    specs+=(--specialize "gemv_rk<R=$r,KT=$kt>")
  done
done
export TILE_CACHE_DIR="$work/cache"
echo "== cold (empty cache), -j ${JOBS:-$(nproc)}"
"$tilec" "$work/twenty.tile" "${specs[@]}" -o "$work/k.cubin" -j "${JOBS:-$(nproc)}" --time
echo "== warm (every kernel from the cache)"
"$tilec" "$work/twenty.tile" "${specs[@]}" -o "$work/k.cubin" --time

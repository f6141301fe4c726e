// RUN: rm -rf %t && mkdir -p %t
// RUN: env TILE_CACHE_DIR=%t/cache tile-translate %s --emit=llvmir | FileCheck %s --check-prefix=IR
// RUN: env TILE_CACHE_DIR=%t/cache tile-translate %s --emit=host-so -o %t/k.so -v 2>&1 | FileCheck %s --check-prefix=MISS
// RUN: env TILE_CACHE_DIR=%t/cache tile-translate %s --emit=host-so -o %t/k2.so -v 2>&1 | FileCheck %s --check-prefix=HIT
// RUN: cmp %t/k.so %t/k2.so
// RUN: llvm-nm -D --defined-only %t/k.so | FileCheck %s --check-prefix=SO
// A different optimization level is a different entry.
// RUN: env TILE_CACHE_DIR=%t/cache tile-translate %s --emit=host-so -O1 -o %t/k3.so -v 2>&1 | FileCheck %s --check-prefix=MISS
// RUN: env TILE_CACHE_DIR=%t/cache tile-translate %s --emit=host-so --no-cache -o %t/k4.so -v 2>&1 | count 0
// RUN: env TILE_CACHE_DIR=%t/cache tile-translate --cache-stats | FileCheck %s --check-prefix=STATS
// RUN: env TILE_CACHE_DIR=%t/cache tile-translate --cache-clear | FileCheck %s --check-prefix=CLEAR
// Bad flags and GPU targets fail with one line.
// RUN: not tile-translate %s --emit=obj 2>&1 | FileCheck %s --check-prefix=BADEMIT
// RUN: not tile-translate %s --target=sm_75 2>&1 | FileCheck %s --check-prefix=BADTARGET
// RUN: not tile-translate %s --target=sm_90a --emit=host-so 2>&1 | FileCheck %s --check-prefix=GPU
// RUN: not tile-translate %s --emit=cubin --target=host 2>&1 | FileCheck %s --check-prefix=CUBINHOST
// RUN: not tile-translate %t/missing.mlir 2>&1 | FileCheck %s --check-prefix=MISSING

// IR: define {{.*}}void @_mlir_ciface_scale_grid(
// MISS: kernel cache miss: {{[0-9a-f]+}}
// HIT: kernel cache hit: {{[0-9a-f]+}}
// SO-DAG: T _mlir_ciface_scale_grid
// SO-DAG: T scale_grid
// STATS: 3 entries, {{[0-9]+}} bytes
// CLEAR: removed 3 entries
// BADEMIT: error: --emit=obj is not one of llvmir, host-so, ptx, cubin
// BADTARGET: error: --target=sm_75 is not one of host, sm_80, sm_89, sm_90a, sm_100
// GPU: error: --emit=host-so is for --target=host; use --emit=llvmir, ptx or cubin for --target=sm_90a
// CUBINHOST: error: --emit=cubin needs a GPU --target (sm_80, sm_89, sm_90a, sm_100)
// MISSING: error: cannot read '{{.*}}missing.mlir'

tile.kernel @scale(%x: !tile.view<in, ?xf32>, %y: !tile.view<out, ?xf32>, %s: f32) {
  %pid = tile.program_id x
  %px = tile.partition %x : !tile.partition<in, ?xf32, tile = [64]>
  %py = tile.partition %y : !tile.partition<out, ?xf32, tile = [64]>
  %n = tile.num_tiles %py, 0 : !tile.partition<out, ?xf32, tile = [64]>
  tile.grid %n
  %t = tile.load %px[%pid] : !tile.partition<in, ?xf32, tile = [64]> -> tensor<64xf32>
  %sv = tile.splat %s : tensor<64xf32>
  %r = arith.mulf %t, %sv : tensor<64xf32>
  %b = tile.own %py[%pid] : !tile.partition<out, ?xf32, tile = [64]>
  tile.store %r, %b : tensor<64xf32>, !tile.owned<out, 64xf32>
  tile.return
}

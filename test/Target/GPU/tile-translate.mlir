// REQUIRES: ptxas
// RUN: rm -rf %t && mkdir -p %t
// RUN: env TILE_CACHE_DIR=%t/cache tile-translate %s --emit=ptx --target=sm_90a | FileCheck %s --check-prefix=PTX
// RUN: env TILE_CACHE_DIR=%t/cache tile-translate %s --emit=llvmir --target=sm_90a | FileCheck %s --check-prefix=NVVMIR
// RUN: env TILE_CACHE_DIR=%t/cache tile-translate %s --emit=cubin -o %t/k.cubin -v 2>&1 | FileCheck %s --check-prefix=MISS
// RUN: env TILE_CACHE_DIR=%t/cache tile-translate %s --emit=cubin -o %t/k2.cubin -v 2>&1 | FileCheck %s --check-prefix=HIT
// RUN: cmp %t/k.cubin %t/k2.cubin
// RUN: llvm-readelf -h %t/k.cubin | FileCheck %s --check-prefix=ELF
// RUN: env TILE_CACHE_DIR=%t/cache tile-translate %s --emit=cubin --num-warps=8 -o %t/k8.cubin -v 2>&1 | FileCheck %s --check-prefix=MISS
// RUN: not tile-translate %s --emit=cubin --num-warps=64 2>&1 | FileCheck %s --check-prefix=WARPS
// Pipeline options reach the pipeline and the cache key (a miss, not the
// cached default).
// RUN: env TILE_CACHE_DIR=%t/cache tile-translate %s --emit=ptx --pipeline-options='invariant-loads=0' -v 2>&1 | FileCheck %s --check-prefix=COHERENT
// RUN: not tile-translate %s --emit=ptx --pipeline-options='no-such-option=1' 2>&1 | FileCheck %s --check-prefix=BADOPT

// PTX: .target sm_90a
// PTX: .visible .entry scale(
// PTX: .maxntid 128, 1, 1
// PTX: griddepcontrol.wait
// PTX: ld.global.v4
// NVVMIR: target triple = "nvptx64-nvidia-cuda"
// NVVMIR: define ptx_kernel void @scale(
// MISS: kernel cache miss
// HIT: kernel cache hit
// ELF: Class: ELF64
// ELF: Machine: {{.*}}CUDA
// WARPS: error: --num-warps=64 is not in [1, 32]
// COHERENT: kernel cache miss
// COHERENT-NOT: ld.global.nc
// COHERENT: ld.global.v4
// BADOPT: tile-translate: error: --pipeline-options: cannot parse 'no-such-option=1'

tile.kernel @scale(%x: !tile.view<in, ?xf32>, %y: !tile.view<out, ?xf32>, %s: f32) {
  %pid = tile.program_id x
  %px = tile.partition %x : !tile.partition<in, ?xf32, tile = [512]>
  %py = tile.partition %y : !tile.partition<out, ?xf32, tile = [512]>
  %n = tile.num_tiles %py, 0 : !tile.partition<out, ?xf32, tile = [512]>
  tile.grid %n
  %t = tile.load %px[%pid] : !tile.partition<in, ?xf32, tile = [512]> -> tensor<512xf32>
  %sv = tile.splat %s : tensor<512xf32>
  %r = arith.mulf %t, %sv : tensor<512xf32>
  %b = tile.own %py[%pid] : !tile.partition<out, ?xf32, tile = [512]>
  tile.store %r, %b : tensor<512xf32>, !tile.owned<out, 512xf32>
  tile.return
}

// REQUIRES: ptxas
// Every target: PTX through LLVM's NVPTX backend, CUBIN through ptxas.
// RUN: tile-opt %s '--tile-to-cubin=chip=sm_80 format=isa' | FileCheck %s --check-prefixes=PTX,PTX80
// RUN: tile-opt %s '--tile-to-cubin=chip=sm_89 format=isa' | FileCheck %s --check-prefixes=PTX,PTX89
// RUN: tile-opt %s '--tile-to-cubin=chip=sm_90a format=isa' | FileCheck %s --check-prefixes=PTX,PTX90
// RUN: tile-opt %s '--tile-to-cubin=chip=sm_100 format=isa' | FileCheck %s --check-prefixes=PTX,PTX100
// RUN: tile-opt %s '--tile-to-cubin=chip=sm_80 format=bin' | FileCheck %s --check-prefix=BIN
// RUN: tile-opt %s '--tile-to-cubin=chip=sm_89 format=bin' | FileCheck %s --check-prefix=BIN
// RUN: tile-opt %s '--tile-to-cubin=chip=sm_90a format=bin' | FileCheck %s --check-prefix=BIN
// RUN: tile-opt %s '--tile-to-cubin=chip=sm_100 format=bin' | FileCheck %s --check-prefix=BIN
// (corpus-cubin-*.mlir compile the whole accepted ownership corpus for each
// target.)

// PTX: gpu.binary @tile_kernels
// PTX80: .target sm_80
// PTX89: .target sm_89
// PTX90: .target sm_90a
// PTX100: .target sm_100
// PTX: .entry silu_mul
// 16-byte global loads and stores. Loads of `in` views take the read-only
// (non-coherent) path, except in kernels that wait for the grid before them
// (sm_90 and later): that grid may still write their inputs while they are
// resident.
// PTX80: ld.global.nc.v4.b32
// PTX89: ld.global.nc.v4.b32
// PTX90: griddepcontrol.wait
// PTX90: ld.global.v4.b32
// PTX100: griddepcontrol.wait
// PTX100: ld.global.v4.b32
// PTX: st.global.v4.b32
// BIN: gpu.binary @tile_kernels [#gpu.object<#nvvm.target<O = 3, chip = "{{sm_[0-9a]+}}", link = ["{{.*}}libdevice.10.bc"]>, properties = {{{.*}}}, bin = "\7FELF

tile.kernel @silu_mul(%g: !tile.view<in, ?xf16>, %u: !tile.view<in, ?xf16>, %o: !tile.view<out, ?xf16>) {
  %pid = tile.program_id x
  %pg = tile.partition %g : !tile.partition<in, ?xf16, tile = [1024]>
  %pu = tile.partition %u : !tile.partition<in, ?xf16, tile = [1024]>
  %po = tile.partition %o : !tile.partition<out, ?xf16, tile = [1024]>
  %n = tile.num_tiles %po, 0 : !tile.partition<out, ?xf16, tile = [1024]>
  tile.grid %n
  %gt = tile.load %pg[%pid] : !tile.partition<in, ?xf16, tile = [1024]> -> tensor<1024xf16>
  %ut = tile.load %pu[%pid] : !tile.partition<in, ?xf16, tile = [1024]> -> tensor<1024xf16>
  %g32 = tile.convert %gt : tensor<1024xf16> -> tensor<1024xf32>
  %ng = arith.negf %g32 : tensor<1024xf32>
  %e = math.exp %ng : tensor<1024xf32>
  %one = arith.constant dense<1.0> : tensor<1024xf32>
  %d = arith.addf %one, %e : tensor<1024xf32>
  %s = arith.divf %g32, %d : tensor<1024xf32>
  %u32 = tile.convert %ut : tensor<1024xf16> -> tensor<1024xf32>
  %r = arith.mulf %s, %u32 : tensor<1024xf32>
  %rh = tile.convert %r : tensor<1024xf32> -> tensor<1024xf16>
  %b = tile.own %po[%pid] : !tile.partition<out, ?xf16, tile = [1024]>
  tile.store %rh, %b : tensor<1024xf16>, !tile.owned<out, 1024xf16>
  tile.return
}

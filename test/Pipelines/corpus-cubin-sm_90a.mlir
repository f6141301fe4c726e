// REQUIRES: ptxas
// Every kernel of the accepted ownership corpus compiles to a sm_90a CUBIN
// (ptxas accepts it).
// RUN: tile-opt %S/../Dialect/Tile/Transforms/ownership-accept.mlir '--tile-to-cubin=chip=sm_90a format=bin' | FileCheck %s
// CHECK: gpu.binary @tile_kernels [#gpu.object<#nvvm.target<O = 3, chip = "sm_90a"

// RUN: tile-opt %s --tile-mark-invariant-loads | FileCheck %s

// A verified kernel (tile.invariant_inputs): loads through its readonly
// pointers, directly, through getelementptr, or through the memref
// descriptor built from them, become invariant (ld.global.nc in PTX).
// CHECK-LABEL: llvm.func @verified
llvm.func @verified(%in: !llvm.ptr {llvm.readonly}, %out: !llvm.ptr, %i: i64) attributes {tile.invariant_inputs} {
  // CHECK: llvm.load %arg0 invariant : !llvm.ptr -> f32
  %a = llvm.load %in : !llvm.ptr -> f32
  // CHECK: llvm.load %{{.*}} invariant {alignment = 16 : i64} : !llvm.ptr -> vector<4xf32>
  %p = llvm.getelementptr %in[%i] : (!llvm.ptr, i64) -> !llvm.ptr, f32
  %v = llvm.load %p {alignment = 16 : i64} : !llvm.ptr -> vector<4xf32>
  %u = llvm.mlir.undef : !llvm.struct<(ptr, ptr, i64)>
  %d0 = llvm.insertvalue %in, %u[0] : !llvm.struct<(ptr, ptr, i64)>
  %d1 = llvm.insertvalue %in, %d0[1] : !llvm.struct<(ptr, ptr, i64)>
  %d2 = llvm.insertvalue %i, %d1[2] : !llvm.struct<(ptr, ptr, i64)>
  %aligned = llvm.extractvalue %d2[1] : !llvm.struct<(ptr, ptr, i64)>
  %q = llvm.getelementptr %aligned[%i] : (!llvm.ptr, i64) -> !llvm.ptr, f32
  // CHECK: llvm.load %{{.*}} invariant : !llvm.ptr -> f32
  %b = llvm.load %q : !llvm.ptr -> f32
  // The output is written by this kernel: its loads keep coherent caching.
  // CHECK: llvm.load %arg1 : !llvm.ptr -> f32
  %c = llvm.load %out : !llvm.ptr -> f32
  %s = llvm.fadd %a, %b : f32
  %t = llvm.fadd %s, %c : f32
  llvm.store %t, %out : f32, !llvm.ptr
  llvm.return
}

// Without the proof (no tile.invariant_inputs), readonly alone says nothing
// about other writers: loads stay as they are.
// CHECK-LABEL: llvm.func @unverified
llvm.func @unverified(%in: !llvm.ptr {llvm.readonly}, %out: !llvm.ptr) {
  // CHECK: llvm.load %arg0 : !llvm.ptr -> f32
  %a = llvm.load %in : !llvm.ptr -> f32
  llvm.store %a, %out : f32, !llvm.ptr
  llvm.return
}

// A verified kernel that waits for the grid before it (a programmatic
// dependent): that grid may write its `in` inputs while it is resident, so
// their loads keep the coherent path; `frozen` memory (marked llvm.nofree) is
// written by no kernel, so its loads still become invariant.
// CHECK-LABEL: llvm.func @waits_for_prior_grid
llvm.func @waits_for_prior_grid(%in: !llvm.ptr {llvm.readonly}, %w: !llvm.ptr {llvm.nofree, llvm.readonly}, %out: !llvm.ptr) attributes {tile.invariant_inputs, tile.waits_for_prior_grid} {
  // CHECK: llvm.load %arg0 : !llvm.ptr -> f32
  %a = llvm.load %in : !llvm.ptr -> f32
  // CHECK: llvm.load %arg1 invariant : !llvm.ptr -> f32
  %b = llvm.load %w : !llvm.ptr -> f32
  %s = llvm.fadd %a, %b : f32
  llvm.store %s, %out : f32, !llvm.ptr
  llvm.return
}

// Unverified, `frozen` alone is not enough either.
// CHECK-LABEL: llvm.func @unverified_frozen
llvm.func @unverified_frozen(%w: !llvm.ptr {llvm.nofree, llvm.readonly}, %out: !llvm.ptr) attributes {tile.waits_for_prior_grid} {
  // CHECK: llvm.load %arg0 : !llvm.ptr -> f32
  %a = llvm.load %w : !llvm.ptr -> f32
  llvm.store %a, %out : f32, !llvm.ptr
  llvm.return
}

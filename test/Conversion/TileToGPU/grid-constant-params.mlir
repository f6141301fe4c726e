// RUN: tile-opt %s --split-input-file --verify-diagnostics --tile-grid-constant-params | FileCheck %s

// The last two parameters become 128-byte grid-constant byval parameters;
// the others are left alone.
// CHECK-LABEL: llvm.func @two
// CHECK-SAME: (%{{.*}}: !llvm.ptr, %{{.*}}: i64, %{{.*}}: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant}, %{{.*}}: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant})
llvm.func @two(%a: !llvm.ptr, %n: i64, %m0: !llvm.ptr, %m1: !llvm.ptr) attributes {nvvm.kernel, tile.tensor_map_params = 2 : i64} {
  llvm.return
}

// Unmarked kernels are untouched.
// CHECK-LABEL: llvm.func @none
// CHECK-SAME: (%{{.*}}: !llvm.ptr)
// CHECK-NOT: grid_constant
llvm.func @none(%a: !llvm.ptr) attributes {nvvm.kernel} {
  llvm.return
}

// -----

// expected-error @below {{tile.tensor_map_params = 3 but the kernel has 2 parameters}}
llvm.func @toomany(%a: !llvm.ptr, %b: !llvm.ptr) attributes {nvvm.kernel, tile.tensor_map_params = 3 : i64} {
  llvm.return
}

// -----

// expected-error @below {{tensor map parameter 0 is not a pointer}}
llvm.func @notptr(%a: i64) attributes {nvvm.kernel, tile.tensor_map_params = 1 : i64} {
  llvm.return
}

// RUN: tile-opt %s --convert-memref-copy-to-loops | FileCheck %s

// CHECK-LABEL: func.func @strided_copy
// CHECK-SAME: (%[[A:.*]]: memref<4x?xf32, strided<[?, 1], offset: ?>>, %[[B:.*]]: memref<4x?xf32>)
// CHECK-NOT: memref.copy
// CHECK: %[[D0:.*]] = memref.dim %[[A]], %c0
// CHECK: scf.for %[[I:.*]] = %c0 to %[[D0]] step %c1
// CHECK:   %[[D1:.*]] = memref.dim %[[A]], %c1
// CHECK:   scf.for %[[J:.*]] = %c0 to %[[D1]] step %c1
// CHECK:     %[[V:.*]] = memref.load %[[A]][%[[I]], %[[J]]]
// CHECK:     memref.store %[[V]], %[[B]][%[[I]], %[[J]]]
func.func @strided_copy(%a: memref<4x?xf32, strided<[?, 1], offset: ?>>, %b: memref<4x?xf32>) {
  memref.copy %a, %b : memref<4x?xf32, strided<[?, 1], offset: ?>> to memref<4x?xf32>
  return
}

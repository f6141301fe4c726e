// The integer ranges tile ops give integer range analysis: program ids lie in
// the grid, static dims are exact. The ownership proof builds on these.
// RUN: tile-opt %s --allow-unregistered-dialect --int-range-optimizations | FileCheck %s

// CHECK-LABEL: tile.kernel @ranges
tile.kernel @ranges(%x: !tile.view<in, 64x?xf16, strides = [?, 1]>) {
  %c0 = arith.constant 0 : index
  %cmax = arith.constant 2147483647 : index
  %c65535 = arith.constant 65535 : index
  %pid = tile.program_id x
  %pidy = tile.program_id y
  %n = tile.num_programs z
  // CHECK: %[[TRUE:.*]] = arith.constant true
  // pid.x >= 0 and pid.x < 2^31 - 1 always hold.
  %ge = arith.cmpi sge, %pid, %c0 : index
  %lt = arith.cmpi slt, %pid, %cmax : index
  // pid.y < 65535 and num_programs.z in [1, 65535].
  %lty = arith.cmpi slt, %pidy, %c65535 : index
  %len = arith.cmpi sle, %n, %c65535 : index
  %gtn = arith.cmpi sgt, %n, %c0 : index
  // A static dim is exact.
  %d = tile.dim %x, 0 : !tile.view<in, 64x?xf16, strides = [?, 1]>
  %c64 = arith.constant 64 : index
  %eqd = arith.cmpi eq, %d, %c64 : index
  // Not provable: pid.x may exceed 100.
  %c100 = arith.constant 100 : index
  // CHECK: %[[UNKNOWN:.*]] = arith.cmpi slt, %{{.*}}, %{{.*}} : index
  %unknown = arith.cmpi slt, %pid, %c100 : index
  // CHECK: "test.use"(%[[TRUE]], %[[TRUE]], %[[TRUE]], %[[TRUE]], %[[TRUE]], %[[TRUE]], %[[UNKNOWN]])
  "test.use"(%ge, %lt, %lty, %len, %gtn, %eqd, %unknown) : (i1, i1, i1, i1, i1, i1, i1) -> ()
  tile.return
}

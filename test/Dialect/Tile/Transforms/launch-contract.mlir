// The launch contract each kernel gets: the grid rule, no-overlap between
// each exclusive view and every other view, layout rules for exclusive views
// whose layout is only known at launch, and every tile.assume.
// RUN: tile-opt %s --tile-verify-ownership=print-contract=true -verify-diagnostics -o /dev/null
// RUN: tile-opt %s --tile-verify-ownership | FileCheck %s

// CHECK-LABEL: tile.kernel @contract_kinds
// CHECK-SAME: tile.launch_contract = "{
// CHECK-SAME: \22kind\22:\22no_overlap\22
// CHECK-SAME: \22kind\22:\22non_self_overlapping\22
// CHECK-SAME: \22kind\22:\22assume\22
// CHECK-SAME: \22version\22:1
// CHECK-SAME: tile.ownership_verified
// CHECK-SAME: tile.unchecked_regions = 0 : i64
// expected-remark @+7 {{launch contract: grid = (ceildiv(dim(y, 0), 16), 4)}}
// expected-remark @+6 {{launch contract: no_overlap(y, x)}}
// expected-remark @+5 {{launch contract: no_overlap(y, z)}}
// expected-remark @+4 {{launch contract: non_self_overlapping(y)}}
// expected-remark @+3 {{launch contract: no_overlap(z, x)}}
// expected-remark @+2 {{launch contract: assume((dim(x, 0) == dim(y, 0)) && ((pos + 4) <= dim(x, 0))) "rows match and the window fits"}}
// expected-remark @+1 {{launch contract: assume(remu(dim(y, 1), 64) == 0) "columns in whole tiles"}}
tile.kernel @contract_kinds(%x: !tile.view<in, ?x256xf16> {tile.name = "x"},
                            %y: !tile.view<out, ?x?xf16, strides = [?, 1]> {tile.name = "y"},
                            %z: !tile.view<inout, ?x8xf32> {tile.name = "z"},
                            %pos: i32 {tile.name = "pos"}) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %py = tile.partition %y : !tile.partition<out, ?x?xf16, strides = [?, 1], tile = [16, 64]>
  %rows = tile.num_tiles %py, 0 : !tile.partition<out, ?x?xf16, strides = [?, 1], tile = [16, 64]>
  tile.grid %rows, %c4
  %rx = tile.dim %x, 0 : !tile.view<in, ?x256xf16>
  %ry = tile.dim %y, 0 : !tile.view<out, ?x?xf16, strides = [?, 1]>
  %same = arith.cmpi eq, %rx, %ry : index
  %p = arith.index_cast %pos : i32 to index
  %end = arith.addi %p, %c4 : index
  %fits = arith.cmpi sle, %end, %rx : index
  %both = arith.andi %same, %fits : i1
  tile.assume %both, "rows match and the window fits"
  %cols = tile.dim %y, 1 : !tile.view<out, ?x?xf16, strides = [?, 1]>
  %r = arith.remui %cols, %c64 : index
  %whole = arith.cmpi eq, %r, %c0 : index
  tile.assume %whole, "columns in whole tiles"
  tile.return
}

// A kernel with no exclusive view and no grid: the launcher picks the grid.
// expected-remark @+1 {{launch contract: grid = (chosen by the launcher)}}
tile.kernel @no_rules(%x: !tile.view<in, 4xf32>) {
  tile.return
}

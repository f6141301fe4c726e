// RUN: tile-opt %s --split-input-file --tile-verify-ownership --tile-mark-in-bounds-loads --convert-tile-to-gpu --remarks-filter-missed="convert-tile-to-gpu|tile-mark-in-bounds-loads" --remark-format=emitRemark -o /dev/null 2>&1 | FileCheck %s
// RUN: tile-opt %s --split-input-file --tile-verify-ownership --tile-mark-in-bounds-loads --convert-tile-to-gpu 2>&1 -o /dev/null | FileCheck %s --allow-empty --check-prefix=QUIET

// Optimisation remarks of the GPU lowering: where a kernel misses a fast
// path, which condition failed. Off unless the remark engine is enabled.
// QUIET-NOT: remark

// A row of 6 elements: rows 6 elements apart cannot be 8-element vectors,
// and the grid is not bounded by the tile count, so the load is guarded.
// CHECK: remark: [Missed] in-bounds-load | Category:tile-mark-in-bounds-loads | Function=odd_rows | Reason="bounds-checked load: the tile may end past dim 0 of the view
// CHECK: remark: [Missed] vector-access | Category:convert-tile-to-gpu | Function=odd_rows | Reason="element accesses instead of 8-element vectors: an outer stride (12) is not a multiple of 8"
tile.kernel @odd_rows(%x: !tile.view<in, ?x8xf16, strides = [12, 1]>, %y: !tile.view<out, ?x8xf16>) {
  %pid = tile.program_id x
  %c0 = arith.constant 0 : index
  %px = tile.partition %x : !tile.partition<in, ?x8xf16, strides = [12, 1], tile = [4, 8]>
  %py = tile.partition %y : !tile.partition<out, ?x8xf16, tile = [4, 8]>
  %n = tile.num_tiles %py, 0 : !tile.partition<out, ?x8xf16, tile = [4, 8]>
  tile.grid %n
  %t = tile.load %px[%pid, %c0] : !tile.partition<in, ?x8xf16, strides = [12, 1], tile = [4, 8]> -> tensor<4x8xf16>
  %b = tile.own %py[%pid, %c0] : !tile.partition<out, ?x8xf16, tile = [4, 8]>
  tile.store %t, %b : tensor<4x8xf16>, !tile.owned<out, 4x8xf16>
  tile.return
}

// -----

// A column of a row-major matrix: inner stride 64.
// CHECK: remark: [Missed] vector-access | Category:convert-tile-to-gpu | Function=column | Reason="element accesses instead of {{[0-9]+}}-element vectors: the view's inner stride is not 1"
tile.kernel @column(%x: !tile.view<in, 64x64xf16, strides = [1, 64]>, %y: !tile.view<out, 64x64xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.grid %c1
  %px = tile.partition %x : !tile.partition<in, 64x64xf16, strides = [1, 64], tile = [64, 64]>
  %py = tile.partition %y : !tile.partition<out, 64x64xf16, tile = [64, 64]>
  %t = tile.load %px[%c0, %c0] : !tile.partition<in, 64x64xf16, strides = [1, 64], tile = [64, 64]> -> tensor<64x64xf16>
  %b = tile.own %py[%c0, %c0] : !tile.partition<out, 64x64xf16, tile = [64, 64]>
  tile.store %t, %b : tensor<64x64xf16>, !tile.owned<out, 64x64xf16>
  tile.return
}

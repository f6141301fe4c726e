// Verifier rules of the view, partition and memory-access ops.
// RUN: tile-opt %s -split-input-file -verify-diagnostics

tile.kernel @dim_out_of_range(%x: !tile.view<in, ?x4xf16>) {
  // expected-error @+1 {{'tile.dim' op dim index 2 is out of range for a view of rank 2}}
  %d = tile.dim %x, 2 : !tile.view<in, ?x4xf16>
  tile.return
}

// -----

tile.kernel @num_tiles_out_of_range(%x: !tile.view<in, ?x4xf16>) {
  %p = tile.partition %x : !tile.partition<in, ?x4xf16, tile = [1, 4]>
  // expected-error @+1 {{'tile.num_tiles' op dim index 3 is out of range for a partition of rank 2}}
  %d = tile.num_tiles %p, 3 : !tile.partition<in, ?x4xf16, tile = [1, 4]>
  tile.return
}

// -----

tile.kernel @partition_of_other_view(%x: !tile.view<in, ?x4xf16>) {
  // expected-error @+1 {{'tile.partition' op failed to verify that the view is the partition's view}}
  %p = "tile.partition"(%x) : (!tile.view<in, ?x4xf16>) -> !tile.partition<in, ?x4xf32, tile = [1, 4]>
  tile.return
}

// -----

tile.kernel @own_in(%x: !tile.view<in, ?x4xf16>) {
  %c0 = arith.constant 0 : index
  %p = tile.partition %x : !tile.partition<in, ?x4xf16, tile = [1, 4]>
  // expected-error @+1 {{'tile.own' op cannot own a block of an 'in' partition: shared views are read-only}}
  %b = tile.own %p[%c0, %c0] : !tile.partition<in, ?x4xf16, tile = [1, 4]>
  tile.return
}

// -----

tile.kernel @own_in_generic(%x: !tile.view<in, ?x4xf16>) {
  %c0 = arith.constant 0 : index
  %p = tile.partition %x : !tile.partition<in, ?x4xf16, tile = [1, 4]>
  // expected-error @+1 {{'tile.own' op failed to verify that the result is the partition's owned block type}}
  %b = "tile.own"(%p, %c0, %c0) : (!tile.partition<in, ?x4xf16, tile = [1, 4]>, index, index) -> !tile.owned<out, 1x4xf16>
  tile.return
}

// -----

tile.kernel @own_index_count(%y: !tile.view<out, ?x4xf16>) {
  %c0 = arith.constant 0 : index
  %p = tile.partition %y : !tile.partition<out, ?x4xf16, tile = [1, 4]>
  // expected-error @+1 {{'tile.own' op expects 2 tile indices (one per partition dim), got 1}}
  %b = tile.own %p[%c0] : !tile.partition<out, ?x4xf16, tile = [1, 4]>
  tile.return
}

// -----

tile.kernel @own_outside_index_space(%y: !tile.view<out, 100x64xf16>) {
  %c0 = arith.constant 0 : index
  %c7 = arith.constant 7 : index
  %p = tile.partition %y : !tile.partition<out, 100x64xf16, tile = [16, 64]>
  // ceildiv(100, 16) = 7 tiles: indices 0..6.
  // expected-error @+1 {{'tile.own' op tile index 7 along dim 0 is outside the partition's index space [0, 7)}}
  %b = tile.own %p[%c7, %c0] : !tile.partition<out, 100x64xf16, tile = [16, 64]>
  tile.return
}

// -----

tile.kernel @own_negative_index(%y: !tile.view<out, ?x64xf16>) {
  %c0 = arith.constant 0 : index
  %m1 = arith.constant -1 : index
  %p = tile.partition %y : !tile.partition<out, ?x64xf16, tile = [16, 64]>
  // expected-error @+1 {{'tile.own' op tile index -1 along dim 0 is outside the partition's index space [0, ?)}}
  %b = tile.own %p[%m1, %c0] : !tile.partition<out, ?x64xf16, tile = [16, 64]>
  tile.return
}

// -----

tile.kernel @load_out_partition(%y: !tile.view<out, ?x4xf16>) {
  %c0 = arith.constant 0 : index
  %p = tile.partition %y : !tile.partition<out, ?x4xf16, tile = [1, 4]>
  // expected-error @+1 {{'tile.load' op cannot load from an 'out' partition: 'out' views are write-only, and their blocks belong to other programs}}
  %t = tile.load %p[%c0, %c0] : !tile.partition<out, ?x4xf16, tile = [1, 4]> -> tensor<1x4xf16>
  tile.return
}

// -----

tile.kernel @load_inout_partition(%y: !tile.view<inout, ?x4xf16>) {
  %c0 = arith.constant 0 : index
  %p = tile.partition %y : !tile.partition<inout, ?x4xf16, tile = [1, 4]>
  // expected-error @+1 {{'tile.load' op cannot load from an 'inout' partition directly: read an inout view only through the block this program owns (tile.own)}}
  %t = tile.load %p[%c0, %c0] : !tile.partition<inout, ?x4xf16, tile = [1, 4]> -> tensor<1x4xf16>
  tile.return
}

// -----

tile.kernel @load_owned_out(%y: !tile.view<out, ?x4xf16>) {
  %c0 = arith.constant 0 : index
  %p = tile.partition %y : !tile.partition<out, ?x4xf16, tile = [1, 4]>
  %b = tile.own %p[%c0, %c0] : !tile.partition<out, ?x4xf16, tile = [1, 4]>
  // expected-error @+1 {{'tile.load' op cannot load from an owned 'out' block: 'out' views are write-only; declare the view 'inout' to read it back}}
  %t = tile.load %b : !tile.owned<out, 1x4xf16> -> tensor<1x4xf16>
  tile.return
}

// -----

tile.kernel @load_wrong_result(%x: !tile.view<in, ?x4xf16>) {
  %c0 = arith.constant 0 : index
  %p = tile.partition %x : !tile.partition<in, ?x4xf16, tile = [1, 4]>
  // expected-error @+1 {{'tile.load' op result type 'tensor<1x4xf32>' does not match the partition's tile 'tensor<1x4xf16>'}}
  %t = tile.load %p[%c0, %c0] : !tile.partition<in, ?x4xf16, tile = [1, 4]> -> tensor<1x4xf32>
  tile.return
}

// -----

tile.kernel @load_no_indices(%x: !tile.view<in, ?x4xf16>) {
  %p = tile.partition %x : !tile.partition<in, ?x4xf16, tile = [1, 4]>
  // expected-error @+1 {{'tile.load' op expects 2 tile indices to load a partition}}
  %t = tile.load %p : !tile.partition<in, ?x4xf16, tile = [1, 4]> -> tensor<1x4xf16>
  tile.return
}

// -----

tile.kernel @load_index_count(%x: !tile.view<in, ?x4xf16>) {
  %c0 = arith.constant 0 : index
  %p = tile.partition %x : !tile.partition<in, ?x4xf16, tile = [1, 4]>
  // expected-error @+1 {{'tile.load' op expects 2 tile indices (one per partition dim), got 3}}
  %t = tile.load %p[%c0, %c0, %c0] : !tile.partition<in, ?x4xf16, tile = [1, 4]> -> tensor<1x4xf16>
  tile.return
}

// -----

tile.kernel @load_outside_index_space(%x: !tile.view<in, ?x8xf16>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %p = tile.partition %x : !tile.partition<in, ?x8xf16, tile = [1, 4]>
  // expected-error @+1 {{'tile.load' op tile index 2 along dim 1 is outside the partition's index space [0, 2)}}
  %t = tile.load %p[%c0, %c2] : !tile.partition<in, ?x8xf16, tile = [1, 4]> -> tensor<1x4xf16>
  tile.return
}

// -----

tile.kernel @load_padding_type(%x: !tile.view<in, ?x4xf16>) {
  %c0 = arith.constant 0 : index
  %p = tile.partition %x : !tile.partition<in, ?x4xf16, tile = [1, 4]>
  // expected-error @+1 {{'tile.load' op padding value type 'f32' does not match the element type 'f16'}}
  %t = tile.load %p[%c0, %c0] padding = 0.0 : f32 : !tile.partition<in, ?x4xf16, tile = [1, 4]> -> tensor<1x4xf16>
  tile.return
}

// -----

tile.kernel @load_block_shape(%y: !tile.view<inout, ?x64xf32>) {
  %c0 = arith.constant 0 : index
  %p = tile.partition %y : !tile.partition<inout, ?x64xf32, tile = [4, 64]>
  %b = tile.own %p[%c0, %c0] : !tile.partition<inout, ?x64xf32, tile = [4, 64]>
  // expected-error @+1 {{'tile.load' op result 'tensor<4x32xf32>' does not match the owned block 'tensor<4x64xf32>'; give sub-tile indices to access part of the block}}
  %t = tile.load %b : !tile.owned<inout, 4x64xf32> -> tensor<4x32xf32>
  tile.return
}

// -----

tile.kernel @load_block_element(%y: !tile.view<inout, ?x64xf32>) {
  %c0 = arith.constant 0 : index
  %p = tile.partition %y : !tile.partition<inout, ?x64xf32, tile = [4, 64]>
  %b = tile.own %p[%c0, %c0] : !tile.partition<inout, ?x64xf32, tile = [4, 64]>
  // expected-error @+1 {{'tile.load' op result element type 'f16' does not match the block's 'f32'}}
  %t = tile.load %b : !tile.owned<inout, 4x64xf32> -> tensor<4x64xf16>
  tile.return
}

// -----

tile.kernel @subtile_index_count(%y: !tile.view<inout, ?x64xf32>) {
  %c0 = arith.constant 0 : index
  %p = tile.partition %y : !tile.partition<inout, ?x64xf32, tile = [4, 64]>
  %b = tile.own %p[%c0, %c0] : !tile.partition<inout, ?x64xf32, tile = [4, 64]>
  // expected-error @+1 {{'tile.load' op expects 2 sub-tile indices and a result of rank 2, got 1 indices and rank 2}}
  %t = tile.load %b[%c0] : !tile.owned<inout, 4x64xf32> -> tensor<4x32xf32>
  tile.return
}

// -----

tile.kernel @subtile_not_dividing(%y: !tile.view<inout, ?x64xf32>) {
  %c0 = arith.constant 0 : index
  %p = tile.partition %y : !tile.partition<inout, ?x64xf32, tile = [4, 64]>
  %b = tile.own %p[%c0, %c0] : !tile.partition<inout, ?x64xf32, tile = [4, 64]>
  // expected-error @+1 {{'tile.load' op sub-tile 'tensor<4x48xf32>' does not divide the owned block 'tensor<4x64xf32>' along dim 1}}
  %t = tile.load %b[%c0, %c0] : !tile.owned<inout, 4x64xf32> -> tensor<4x48xf32>
  tile.return
}

// -----

// An empty sub-tile (found by the front-end fuzzer: it divided by zero).
tile.kernel @subtile_empty(%y: !tile.view<inout, ?x64xf32>) {
  %c0 = arith.constant 0 : index
  %p = tile.partition %y : !tile.partition<inout, ?x64xf32, tile = [4, 64]>
  %b = tile.own %p[%c0, %c0] : !tile.partition<inout, ?x64xf32, tile = [4, 64]>
  // expected-error @+1 {{'tile.load' op sub-tile 'tensor<0x64xf32>' has a dim of 0 along dim 0; sub-tile dims must be positive}}
  %t = tile.load %b[%c0, %c0] : !tile.owned<inout, 4x64xf32> -> tensor<0x64xf32>
  tile.return
}

// -----

tile.kernel @subtile_outside_block(%y: !tile.view<out, ?x64xf32>, %s: f32) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %v = tile.splat %s : tensor<4x32xf32>
  %p = tile.partition %y : !tile.partition<out, ?x64xf32, tile = [4, 64]>
  %b = tile.own %p[%c0, %c0] : !tile.partition<out, ?x64xf32, tile = [4, 64]>
  // expected-error @+1 {{'tile.store' op sub-tile index 2 along dim 1 is outside the block's [0, 2)}}
  tile.store %v, %b[%c0, %c2] : tensor<4x32xf32>, !tile.owned<out, 4x64xf32>
  tile.return
}

// -----

tile.kernel @store_block_shape(%y: !tile.view<out, ?x64xf32>, %s: f32) {
  %c0 = arith.constant 0 : index
  %v = tile.splat %s : tensor<4x32xf32>
  %p = tile.partition %y : !tile.partition<out, ?x64xf32, tile = [4, 64]>
  %b = tile.own %p[%c0, %c0] : !tile.partition<out, ?x64xf32, tile = [4, 64]>
  // expected-error @+1 {{'tile.store' op value 'tensor<4x32xf32>' does not match the owned block 'tensor<4x64xf32>'; give sub-tile indices to access part of the block}}
  tile.store %v, %b : tensor<4x32xf32>, !tile.owned<out, 4x64xf32>
  tile.return
}

// -----

tile.kernel @store_to_partition(%y: !tile.view<out, ?x64xf32>, %s: f32) {
  %c0 = arith.constant 0 : index
  %v = tile.splat %s : tensor<4x64xf32>
  %p = tile.partition %y : !tile.partition<out, ?x64xf32, tile = [4, 64]>
  // expected-error @+1 {{'tile.store' op can only store into a block this program owns (tile.own); storing into a partition directly needs tile.unchecked}}
  tile.store %v, %p[%c0, %c0] : tensor<4x64xf32>, !tile.partition<out, ?x64xf32, tile = [4, 64]>
  tile.return
}

// -----

// Not even tile.unchecked may write a shared read-only view.
tile.kernel @store_to_in(%x: !tile.view<in, ?x64xf32>, %s: f32) {
  %c0 = arith.constant 0 : index
  %v = tile.splat %s : tensor<4x64xf32>
  %p = tile.partition %x : !tile.partition<in, ?x64xf32, tile = [4, 64]>
  tile.unchecked "write an input" {
    // expected-error @+1 {{'tile.store' op cannot store into an 'in' partition: shared views are read-only}}
    tile.store %v, %p[%c0, %c0] : tensor<4x64xf32>, !tile.partition<in, ?x64xf32, tile = [4, 64]>
  }
  tile.return
}

// -----

tile.kernel @unchecked_store_type(%y: !tile.view<out, ?x64xf32>, %s: f32) {
  %c0 = arith.constant 0 : index
  %v = tile.splat %s : tensor<4x32xf32>
  %p = tile.partition %y : !tile.partition<out, ?x64xf32, tile = [4, 64]>
  tile.unchecked "scatter" {
    // expected-error @+1 {{'tile.store' op value type 'tensor<4x32xf32>' does not match the partition's tile 'tensor<4x64xf32>'}}
    tile.store %v, %p[%c0, %c0] : tensor<4x32xf32>, !tile.partition<out, ?x64xf32, tile = [4, 64]>
  }
  tile.return
}

// -----

tile.kernel @gather_from_out(%y: !tile.view<out, ?x64xf32>, %s: i32) {
  %c0 = arith.constant 0 : index
  %rows = tile.splat %s : tensor<4xi32>
  %p = tile.partition %y : !tile.partition<out, ?x64xf32, tile = [1, 64]>
  // expected-error @+1 {{'tile.gather' op gathers only from 'in', 'frozen' or 'settled' partitions; this one is 'out'}}
  %g = tile.gather %p[%rows, %c0] : !tile.partition<out, ?x64xf32, tile = [1, 64]>, tensor<4xi32> -> tensor<4x64xf32>
  tile.return
}

// -----

tile.kernel @gather_tile_rows(%x: !tile.view<in, ?x64xf32>, %s: i32) {
  %c0 = arith.constant 0 : index
  %rows = tile.splat %s : tensor<4xi32>
  %p = tile.partition %x : !tile.partition<in, ?x64xf32, tile = [2, 64]>
  // expected-error @+1 {{'tile.gather' op needs a partition whose tile is one row (tile dim 0 == 1), got tile [2, 64]}}
  %g = tile.gather %p[%rows, %c0] : !tile.partition<in, ?x64xf32, tile = [2, 64]>, tensor<4xi32> -> tensor<8x64xf32>
  tile.return
}

// -----

tile.kernel @gather_index_count(%x: !tile.view<in, ?x64xf32>, %s: i32) {
  %rows = tile.splat %s : tensor<4xi32>
  %p = tile.partition %x : !tile.partition<in, ?x64xf32, tile = [1, 64]>
  // expected-error @+1 {{'tile.gather' op expects 1 tile indices (one per partition dim after the row dim), got 0}}
  %g = tile.gather %p[%rows] : !tile.partition<in, ?x64xf32, tile = [1, 64]>, tensor<4xi32> -> tensor<4x64xf32>
  tile.return
}

// -----

tile.kernel @gather_result(%x: !tile.view<in, ?x64xf32>, %s: i32) {
  %c0 = arith.constant 0 : index
  %rows = tile.splat %s : tensor<4xi32>
  %p = tile.partition %x : !tile.partition<in, ?x64xf32, tile = [1, 64]>
  // expected-error @+1 {{'tile.gather' op result type 'tensor<4x32xf32>' should be 'tensor<4x64xf32>' (one partition tile per row index)}}
  %g = tile.gather %p[%rows, %c0] : !tile.partition<in, ?x64xf32, tile = [1, 64]>, tensor<4xi32> -> tensor<4x32xf32>
  tile.return
}

// -----

tile.kernel @gather_padding(%x: !tile.view<in, ?x64xf32>, %s: i32) {
  %c0 = arith.constant 0 : index
  %rows = tile.splat %s : tensor<4xi32>
  %p = tile.partition %x : !tile.partition<in, ?x64xf32, tile = [1, 64]>
  // expected-error @+1 {{'tile.gather' op padding value type 'i32' does not match the element type 'f32'}}
  %g = tile.gather %p[%rows, %c0] padding = 0 : i32 : !tile.partition<in, ?x64xf32, tile = [1, 64]>, tensor<4xi32> -> tensor<4x64xf32>
  tile.return
}

// -----

tile.kernel @gather_rows_type(%x: !tile.view<in, ?x64xf32>, %s: f32) {
  %c0 = arith.constant 0 : index
  %rows = tile.splat %s : tensor<4xf32>
  %p = tile.partition %x : !tile.partition<in, ?x64xf32, tile = [1, 64]>
  // expected-error @+1 {{'tile.gather' op operand #1 must be 1D tensor of signless integer or index values}}
  %g = tile.gather %p[%rows, %c0] : !tile.partition<in, ?x64xf32, tile = [1, 64]>, tensor<4xf32> -> tensor<4x64xf32>
  tile.return
}

// -----

// A prefetch names a tile of a shared input only.
tile.kernel @prefetch_out(%y: !tile.view<out, ?x?xf16>) {
  %c0 = arith.constant 0 : index
  %p = tile.partition %y : !tile.partition<out, ?x?xf16, tile = [2, 64]>
  // expected-error @+1 {{'tile.prefetch' op can only prefetch an 'in', 'frozen' or 'settled' partition: a shared read-only input}}
  tile.prefetch %p[%c0, %c0] : !tile.partition<out, ?x?xf16, tile = [2, 64]>
  tile.return
}

// -----

tile.kernel @prefetch_indices(%x: !tile.view<in, ?x?xf16>) {
  %c0 = arith.constant 0 : index
  %p = tile.partition %x : !tile.partition<in, ?x?xf16, tile = [2, 64]>
  // expected-error @+1 {{'tile.prefetch' op expects 2 tile indices (one per partition dim), got 1}}
  tile.prefetch %p[%c0] : !tile.partition<in, ?x?xf16, tile = [2, 64]>
  tile.return
}

// -----

tile.kernel @atomic_add_into_out(%y: !tile.view<out, ?xf32>) {
  %c0 = arith.constant 0 : index
  %p = tile.partition %y : !tile.partition<out, ?xf32, tile = [1]>
  %v = arith.constant dense<2.0> : tensor<1xf32>
  // expected-error @+1 {{'tile.atomic_add' op adds only into an 'add' partition; this one is 'out'}}
  tile.atomic_add %v, %p[%c0] : tensor<1xf32>, !tile.partition<out, ?xf32, tile = [1]>
  tile.return
}

// -----

tile.kernel @atomic_add_f16(%ss: !tile.view<add, ?xf16>) {
  %c0 = arith.constant 0 : index
  %p = tile.partition %ss : !tile.partition<add, ?xf16, tile = [1]>
  %v = arith.constant dense<2.0> : tensor<1xf16>
  // expected-error @+1 {{'tile.atomic_add' op adds f32 only; the partition holds 'f16'}}
  tile.atomic_add %v, %p[%c0] : tensor<1xf16>, !tile.partition<add, ?xf16, tile = [1]>
  tile.return
}

// -----

tile.kernel @atomic_add_wrong_tile(%ss: !tile.view<add, ?xf32>) {
  %c0 = arith.constant 0 : index
  %p = tile.partition %ss : !tile.partition<add, ?xf32, tile = [4]>
  %v = arith.constant dense<2.0> : tensor<1xf32>
  // expected-error @+1 {{'tile.atomic_add' op value type 'tensor<1xf32>' does not match the partition's tile 'tensor<4xf32>'}}
  tile.atomic_add %v, %p[%c0] : tensor<1xf32>, !tile.partition<add, ?xf32, tile = [4]>
  tile.return
}

// -----

tile.kernel @load_add(%ss: !tile.view<add, ?xf32>) {
  %c0 = arith.constant 0 : index
  %p = tile.partition %ss : !tile.partition<add, ?xf32, tile = [1]>
  // expected-error @+1 {{'tile.load' op cannot load from an 'add' partition}}
  %v = tile.load %p[%c0] : !tile.partition<add, ?xf32, tile = [1]> -> tensor<1xf32>
  tile.return
}

// -----

tile.kernel @own_add(%ss: !tile.view<add, ?xf32>) {
  %c0 = arith.constant 0 : index
  %p = tile.partition %ss : !tile.partition<add, ?xf32, tile = [1]>
  // expected-error @+1 {{'tile.own' op cannot own a block of an 'add' partition}}
  %b = tile.own %p[%c0] : !tile.partition<add, ?xf32, tile = [1]>
  tile.return
}

// -----

// A frozen view is shared and read-only.
tile.kernel @own_frozen(%w: !tile.view<frozen, ?x4xf16>) {
  %c0 = arith.constant 0 : index
  %p = tile.partition %w : !tile.partition<frozen, ?x4xf16, tile = [1, 4]>
  // expected-error @+1 {{'tile.own' op cannot own a block of a 'frozen' partition: shared views are read-only}}
  %b = tile.own %p[%c0, %c0] : !tile.partition<frozen, ?x4xf16, tile = [1, 4]>
  tile.return
}

// -----

tile.kernel @store_frozen(%w: !tile.view<frozen, ?x4xf16>) {
  %c0 = arith.constant 0 : index
  %p = tile.partition %w : !tile.partition<frozen, ?x4xf16, tile = [1, 4]>
  %v = arith.constant dense<1.0> : tensor<1x4xf16>
  tile.unchecked "testing the rule" {
    // expected-error @+1 {{'tile.store' op cannot store into a 'frozen' partition: shared views are read-only}}
    tile.store %v, %p[%c0, %c0] : tensor<1x4xf16>, !tile.partition<frozen, ?x4xf16, tile = [1, 4]>
  }
  tile.return
}

// -----

tile.kernel @atomic_add_frozen(%w: !tile.view<frozen, ?xf32>) {
  %c0 = arith.constant 0 : index
  %p = tile.partition %w : !tile.partition<frozen, ?xf32, tile = [1]>
  %v = arith.constant dense<1.0> : tensor<1xf32>
  // expected-error @+1 {{'tile.atomic_add' op adds only into an 'add' partition; this one is 'frozen'}}
  tile.atomic_add %v, %p[%c0] : tensor<1xf32>, !tile.partition<frozen, ?xf32, tile = [1]>
  tile.return
}

// -----

// !tile.owned blocks come from out/inout partitions only.
// expected-error @+1 {{an owned block is a block of an 'out' or 'inout' partition, not of an 'frozen' one}}
tile.kernel @owned_frozen(%b: !tile.owned<frozen, 1x4xf16>) {
  tile.return
}


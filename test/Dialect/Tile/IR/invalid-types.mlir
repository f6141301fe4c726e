// Every verifier rule of !tile.view, !tile.partition and !tile.owned.
// RUN: tile-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{expected ownership mode 'in', 'out', 'inout', 'add', 'frozen', 'ticket' or 'settled', got 'shared'}}
tile.kernel @bad_mode(%x: !tile.view<shared, 4xf16>) { tile.return }

// -----

// expected-error @+1 {{view element type must be one of i1, i8, i16, i32, i64, f8E4M3FN, f16, bf16, f32, f64; got 'index'}}
tile.kernel @bad_element(%x: !tile.view<in, 4xindex>) { tile.return }

// -----

// expected-error @+1 {{a view must have rank >= 1}}
tile.kernel @rank0(%x: !tile.view<in, f16>) { tile.return }

// -----

// expected-error @+1 {{view of rank 2 has 1 strides}}
tile.kernel @stride_count(%x: !tile.view<in, 4x4xf16, strides = [1]>) { tile.return }

// -----

// expected-error @+1 {{view stride #0 must be positive or '?', got 0}}
tile.kernel @zero_stride(%x: !tile.view<in, 4x4xf16, strides = [0, 1]>) { tile.return }

// -----

// Rows 4 elements apart but 8 wide: two programs owning rows r and r+1 would
// share elements, so an exclusively owned view may not have this layout.
// expected-error @+1 {{an 'out' view must not overlap itself, but strides [4, 1] over dims [4, 8] map distinct indices to one element}}
tile.kernel @self_overlap(%y: !tile.view<out, 4x8xf16, strides = [4, 1]>) { tile.return }

// -----

// expected-error @+1 {{an 'inout' view must not overlap itself}}
tile.kernel @self_overlap_inout(%y: !tile.view<inout, 8x2xf32, strides = [1, 4]>) { tile.return }

// -----

// expected-error @+1 {{unexpected 'tile'; expected 'strides = [...]'}}
tile.kernel @tile_on_view(%x: !tile.view<in, 4xf16, tile = [4]>) { tile.return }

// -----

tile.kernel @partition_without_tile(%x: !tile.view<in, 4xf16>) {
  // expected-error @+1 {{a partition needs its tile shape: 'tile = [...]'}}
  %p = tile.partition %x : !tile.partition<in, 4xf16>
  tile.return
}

// -----

tile.kernel @partition_rank(%x: !tile.view<in, 4x4xf16>) {
  // expected-error @+1 {{partition tile [4] has rank 1 but its view has rank 2}}
  %p = tile.partition %x : !tile.partition<in, 4x4xf16, tile = [4]>
  tile.return
}

// -----

tile.kernel @partition_zero_tile(%x: !tile.view<in, 4x4xf16>) {
  // expected-error @+1 {{partition tile dim #0 must be a positive constant, got [0]}}
  %p = tile.partition %x : !tile.partition<in, 4x4xf16, tile = [0, 4]>
  tile.return
}

// -----

tile.kernel @partition_too_big(%x: !tile.view<in, ?x?xf32, strides = [?, 1]>) {
  // expected-error @+1 {{partition tile 2048x1024 has more than the limit of 1048576 elements}}
  %p = tile.partition %x : !tile.partition<in, ?x?xf32, strides = [?, 1], tile = [2048, 1024]>
  tile.return
}

// -----

// expected-error @+1 {{an owned block is a block of an 'out' or 'inout' partition, not of an 'in' one}}
func.func private @owned_in() -> !tile.owned<in, 4xf16>

// -----

// expected-error @+1 {{owned block element type must be one of}}
func.func private @owned_element() -> !tile.owned<out, 4xf8E5M2>

// -----

// expected-error @+1 {{owned block 1024x2048 has more than the limit of 1048576 elements}}
func.func private @owned_too_big() -> !tile.owned<out, 1024x2048xf16>

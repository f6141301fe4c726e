// Verifier rules of the tile construction, shape and compute ops.
// RUN: tile-opt %s -split-input-file -verify-diagnostics

tile.kernel @splat_type(%s: f32) {
  // expected-error @+1 {{'tile.splat' op failed to verify that the scalar is the tile's element type}}
  %t = "tile.splat"(%s) : (f32) -> tensor<4xf16>
  tile.return
}

// -----

tile.kernel @broadcast_rank(%s: f32) {
  %t = tile.splat %s : tensor<128xf32>
  // expected-error @+1 {{'tile.broadcast' op operand rank 1 differs from result rank 2; use tile.reshape to add unit dims first}}
  %b = tile.broadcast %t : tensor<128xf32> -> tensor<4x128xf32>
  tile.return
}

// -----

tile.kernel @broadcast_non_unit(%s: f32) {
  %t = tile.splat %s : tensor<2x128xf32>
  // expected-error @+1 {{'tile.broadcast' op cannot broadcast dim #0 of size 2 to 4 (only dims of size 1 expand)}}
  %b = tile.broadcast %t : tensor<2x128xf32> -> tensor<4x128xf32>
  tile.return
}

// -----

tile.kernel @broadcast_element(%s: f32) {
  %t = tile.splat %s : tensor<1x128xf32>
  // expected-error @+1 {{'tile.broadcast' op result element type 'f16' does not match the operand's 'f32'}}
  %b = tile.broadcast %t : tensor<1x128xf32> -> tensor<4x128xf16>
  tile.return
}

// -----

tile.kernel @iota_overflow() {
  // expected-error @+1 {{'tile.iota' op iota of 300 elements does not fit in 'i8'}}
  %i = tile.iota : tensor<300xi8>
  tile.return
}

// -----

tile.kernel @iota_float() {
  // expected-error @+1 {{'tile.iota' op result #0 must be 1D tensor of signless integer or index values}}
  %i = tile.iota : tensor<8xf32>
  tile.return
}

// -----

tile.kernel @reshape_count(%s: f32) {
  %t = tile.splat %s : tensor<4x128xf32>
  // expected-error @+1 {{'tile.reshape' op cannot reshape 512 elements into 256}}
  %r = tile.reshape %t : tensor<4x128xf32> -> tensor<2x128xf32>
  tile.return
}

// -----

tile.kernel @reshape_element(%s: f32) {
  %t = tile.splat %s : tensor<4x128xf32>
  // expected-error @+1 {{'tile.reshape' op result element type 'i32' does not match the operand's 'f32'}}
  %r = tile.reshape %t : tensor<4x128xf32> -> tensor<512xi32>
  tile.return
}

// -----

tile.kernel @permute_length(%s: f32) {
  %t = tile.splat %s : tensor<4x128xf32>
  // expected-error @+1 {{'tile.permute' op permutation [0] must have one entry per dim of rank 2}}
  %p = tile.permute %t [0] : tensor<4x128xf32> -> tensor<4x128xf32>
  tile.return
}

// -----

tile.kernel @permute_repeat(%s: f32) {
  %t = tile.splat %s : tensor<4x128xf32>
  // expected-error @+1 {{'tile.permute' op permutation [1, 1] is not a permutation of [0, 2)}}
  %p = tile.permute %t [1, 1] : tensor<4x128xf32> -> tensor<128x128xf32>
  tile.return
}

// -----

tile.kernel @permute_result(%s: f32) {
  %t = tile.splat %s : tensor<4x128xf32>
  // expected-error @+1 {{'tile.permute' op result dim #0 is 4 but operand dim #1 is 128}}
  %p = tile.permute %t [1, 0] : tensor<4x128xf32> -> tensor<4x128xf32>
  tile.return
}

// -----

tile.kernel @slice_bounds(%s: f32) {
  %t = tile.splat %s : tensor<1x128xf32>
  // expected-error @+1 {{'tile.slice' op slice [96, 160) of dim #1 is outside the operand's [0, 128)}}
  %l = tile.slice %t [0, 96] : tensor<1x128xf32> -> tensor<1x64xf32>
  tile.return
}

// -----

tile.kernel @slice_rank(%s: f32) {
  %t = tile.splat %s : tensor<1x128xf32>
  // expected-error @+1 {{'tile.slice' op offsets [0] and the result must have rank 2}}
  %l = tile.slice %t [0] : tensor<1x128xf32> -> tensor<1x64xf32>
  tile.return
}

// -----

tile.kernel @roll_dim(%s: f32) {
  %a = tile.splat %s : tensor<1x64xf32>
  // expected-error @+1 {{'tile.roll' op dim 2 is out of range for tiles of rank 2}}
  %r = tile.roll %a shift = 1 dim = 2 : tensor<1x64xf32>
  tile.return
}

// -----

tile.kernel @roll_type(%s: f32) {
  %a = tile.splat %s : tensor<1x64xf32>
  // expected-error @+1 {{'tile.roll' op requires the same type for all operands and results}}
  %r = "tile.roll"(%a) <{shift = 1 : i64, dim = 1 : i64}> : (tensor<1x64xf32>) -> tensor<64x1xf32>
  tile.return
}

// -----

tile.kernel @concat_empty() {
  // expected-error @+1 {{'tile.concat' op needs at least one input}}
  %c = "tile.concat"() <{dim = 0 : i64}> : () -> tensor<4xf32>
  tile.return
}

// -----

tile.kernel @concat_dim(%s: f32) {
  %a = tile.splat %s : tensor<1x64xf32>
  // expected-error @+1 {{'tile.concat' op dim 2 is out of range for tiles of rank 2}}
  %c = tile.concat %a, %a dim = 2 : tensor<1x64xf32>, tensor<1x64xf32> -> tensor<1x128xf32>
  tile.return
}

// -----

tile.kernel @concat_element(%s: f32, %h: f16) {
  %a = tile.splat %s : tensor<1x64xf32>
  %b = tile.splat %h : tensor<1x64xf16>
  // expected-error @+1 {{'tile.concat' op input #1 element type 'f16' differs from the result's 'f32'}}
  %c = tile.concat %a, %b dim = 1 : tensor<1x64xf32>, tensor<1x64xf16> -> tensor<1x128xf32>
  tile.return
}

// -----

tile.kernel @concat_rank(%s: f32) {
  %a = tile.splat %s : tensor<1x64xf32>
  %b = tile.splat %s : tensor<64xf32>
  // expected-error @+1 {{'tile.concat' op input #1 has rank 1, the result 2}}
  %c = tile.concat %a, %b dim = 1 : tensor<1x64xf32>, tensor<64xf32> -> tensor<1x128xf32>
  tile.return
}

// -----

tile.kernel @concat_other_dim(%s: f32) {
  %a = tile.splat %s : tensor<1x64xf32>
  %b = tile.splat %s : tensor<2x64xf32>
  // expected-error @+1 {{'tile.concat' op input #1 dim #0 is 2 but the result's is 1}}
  %c = tile.concat %a, %b dim = 1 : tensor<1x64xf32>, tensor<2x64xf32> -> tensor<1x128xf32>
  tile.return
}

// -----

tile.kernel @concat_sum(%s: f32) {
  %a = tile.splat %s : tensor<1x64xf32>
  // expected-error @+1 {{'tile.concat' op inputs add up to 128 along dim 1 but the result has 96}}
  %c = tile.concat %a, %a dim = 1 : tensor<1x64xf32>, tensor<1x64xf32> -> tensor<1x96xf32>
  tile.return
}

// -----

tile.kernel @extract_rank(%s: f32) {
  %a = tile.splat %s : tensor<1x64xf32>
  // expected-error @+1 {{'tile.extract' op position [0] must have one entry per dim of rank 2}}
  %e = tile.extract %a [0] : tensor<1x64xf32>
  tile.return
}

// -----

tile.kernel @extract_bounds(%s: f32) {
  %a = tile.splat %s : tensor<1x64xf32>
  // expected-error @+1 {{'tile.extract' op position [0, 64] is outside the tile [1, 64]}}
  %e = tile.extract %a [0, 64] : tensor<1x64xf32>
  tile.return
}

// -----

tile.kernel @reduce_no_inputs() {
  // expected-error @+1 {{'tile.reduce' op expected 1 or more operands, but found 0}}
  "tile.reduce"() <{dim = 0 : i64}> ({
    tile.yield
  }) : () -> ()
  tile.return
}

// -----

tile.kernel @reduce_result_count(%s: f32) {
  %a = tile.splat %s : tensor<4x64xf32>
  // expected-error @+1 {{'tile.reduce' op has 1 inputs but 2 results}}
  %r:2 = "tile.reduce"(%a) <{dim = 1 : i64}> ({
  ^bb0(%x: f32, %y: f32):
    tile.yield %x : f32
  }) : (tensor<4x64xf32>) -> (tensor<4x1xf32>, tensor<4x1xf32>)
  tile.return
}

// -----

tile.kernel @reduce_dim(%s: f32) {
  %a = tile.splat %s : tensor<4x64xf32>
  // expected-error @+1 {{'tile.reduce' op dim 2 is out of range for tiles of rank 2}}
  %r = tile.reduce %a dim = 2 : (tensor<4x64xf32>) -> tensor<4x1xf32> {
  ^bb0(%x: f32, %y: f32):
    tile.yield %x : f32
  }
  tile.return
}

// -----

tile.kernel @reduce_keeps_dim(%s: f32) {
  %a = tile.splat %s : tensor<4x64xf32>
  // expected-error @+1 {{'tile.reduce' op result #0 should be 'tensor<4x1xf32>' (the reduced dim is kept with size 1)}}
  %r = tile.reduce %a dim = 1 : (tensor<4x64xf32>) -> tensor<4xf32> {
  ^bb0(%x: f32, %y: f32):
    tile.yield %x : f32
  }
  tile.return
}

// -----

tile.kernel @reduce_shapes(%s: f32, %i: i32) {
  %a = tile.splat %s : tensor<4x64xf32>
  %b = tile.splat %i : tensor<4x32xi32>
  // expected-error @+1 {{'tile.reduce' op requires the same shape for all operands}}
  %r:2 = tile.reduce %a, %b dim = 1 : (tensor<4x64xf32>, tensor<4x32xi32>) -> (tensor<4x1xf32>, tensor<4x1xi32>) {
  ^bb0(%x: f32, %xi: i32, %y: f32, %yi: i32):
    tile.yield %x, %xi : f32, i32
  }
  tile.return
}

// -----

tile.kernel @reduce_combiner_arity(%s: f32) {
  %a = tile.splat %s : tensor<4x64xf32>
  // expected-error @+1 {{'tile.reduce' op combiner takes 2 scalars (1 accumulated, 1 incoming), got 1}}
  %r = tile.reduce %a dim = 1 : (tensor<4x64xf32>) -> tensor<4x1xf32> {
  ^bb0(%x: f32):
    tile.yield %x : f32
  }
  tile.return
}

// -----

tile.kernel @reduce_combiner_type(%s: f32) {
  %a = tile.splat %s : tensor<4x64xf32>
  // expected-error @+1 {{'tile.reduce' op combiner argument #1 should be 'f32', got 'f16'}}
  %r = tile.reduce %a dim = 1 : (tensor<4x64xf32>) -> tensor<4x1xf32> {
  ^bb0(%x: f32, %y: f16):
    tile.yield %x : f32
  }
  tile.return
}

// -----

tile.kernel @reduce_yield_count(%s: f32) {
  %a = tile.splat %s : tensor<4x64xf32>
  %r = tile.reduce %a dim = 1 : (tensor<4x64xf32>) -> tensor<4x1xf32> {
  ^bb0(%x: f32, %y: f32):
    // expected-error @+1 {{'tile.yield' op yields 2 values; the combiner of tile.reduce yields 1}}
    tile.yield %x, %y : f32, f32
  }
  tile.return
}

// -----

tile.kernel @reduce_yield_type(%s: f32) {
  %a = tile.splat %s : tensor<4x64xf32>
  %r = tile.reduce %a dim = 1 : (tensor<4x64xf32>) -> tensor<4x1xf32> {
  ^bb0(%x: f32, %y: f32):
    %t = arith.fptosi %x : f32 to i32
    // expected-error @+1 {{'tile.yield' op value #0 should be 'f32', got 'i32'}}
    tile.yield %t : i32
  }
  tile.return
}

// -----

tile.kernel @dot_rank(%h: f16, %s: f32) {
  %a = tile.splat %h : tensor<64xf16>
  %b = tile.splat %h : tensor<64x32xf16>
  %c = tile.splat %s : tensor<1x32xf32>
  // expected-error @+1 {{'tile.dot' op operands must be 2-D tiles}}
  %d = tile.dot %a, %b, %c : tensor<64xf16>, tensor<64x32xf16> -> tensor<1x32xf32>
  tile.return
}

// -----

tile.kernel @dot_k(%h: f16, %s: f32) {
  %a = tile.splat %h : tensor<16x64xf16>
  %b = tile.splat %h : tensor<32x32xf16>
  %c = tile.splat %s : tensor<16x32xf32>
  // expected-error @+1 {{'tile.dot' op a is 16x64 but b is 32x32: the K dims differ}}
  %d = tile.dot %a, %b, %c : tensor<16x64xf16>, tensor<32x32xf16> -> tensor<16x32xf32>
  tile.return
}

// -----

tile.kernel @dot_acc_shape(%h: f16, %s: f32) {
  %a = tile.splat %h : tensor<16x64xf16>
  %b = tile.splat %h : tensor<64x32xf16>
  %c = tile.splat %s : tensor<16x16xf32>
  // expected-error @+1 {{'tile.dot' op accumulator 'tensor<16x16xf32>' should be 16x32}}
  %d = tile.dot %a, %b, %c : tensor<16x64xf16>, tensor<64x32xf16> -> tensor<16x16xf32>
  tile.return
}

// -----

tile.kernel @dot_operand_types(%h: f16, %g: bf16, %s: f32) {
  %a = tile.splat %h : tensor<16x64xf16>
  %b = tile.splat %g : tensor<64x32xbf16>
  %c = tile.splat %s : tensor<16x32xf32>
  // expected-error @+1 {{'tile.dot' op operands must both be f16 or both bf16, got 'f16' and 'bf16'}}
  %d = tile.dot %a, %b, %c : tensor<16x64xf16>, tensor<64x32xbf16> -> tensor<16x32xf32>
  tile.return
}

// -----

tile.kernel @dot_f32_operands(%s: f32) {
  %a = tile.splat %s : tensor<16x64xf32>
  %b = tile.splat %s : tensor<64x32xf32>
  %c = tile.splat %s : tensor<16x32xf32>
  // expected-error @+1 {{'tile.dot' op operands must both be f16 or both bf16, got 'f32' and 'f32'}}
  %d = tile.dot %a, %b, %c : tensor<16x64xf32>, tensor<64x32xf32> -> tensor<16x32xf32>
  tile.return
}

// -----

tile.kernel @dot_acc_type(%h: f16) {
  %a = tile.splat %h : tensor<16x64xf16>
  %b = tile.splat %h : tensor<64x32xf16>
  %c = tile.splat %h : tensor<16x32xf16>
  // expected-error @+1 {{'tile.dot' op accumulator must be f32, got 'f16'}}
  %d = tile.dot %a, %b, %c : tensor<16x64xf16>, tensor<64x32xf16> -> tensor<16x32xf16>
  tile.return
}

// -----

tile.kernel @dot_result_type(%h: f16, %s: f32) {
  %a = tile.splat %h : tensor<16x64xf16>
  %b = tile.splat %h : tensor<64x32xf16>
  %c = tile.splat %s : tensor<16x32xf32>
  // expected-error @+1 {{'tile.dot' op failed to verify that all of {acc, result} have same type}}
  %d = "tile.dot"(%a, %b, %c) : (tensor<16x64xf16>, tensor<64x32xf16>, tensor<16x32xf32>) -> tensor<16x32xf16>
  tile.return
}

// -----

tile.kernel @convert_shape(%s: f32) {
  %a = tile.splat %s : tensor<4x64xf32>
  // expected-error @+1 {{'tile.convert' op converts 'tensor<4x64xf32>' to 'tensor<4x32xf16>': shapes must be equal}}
  %c = tile.convert %a : tensor<4x64xf32> -> tensor<4x32xf16>
  tile.return
}

// -----

tile.kernel @convert_rounding_widening(%h: f16) {
  %a = tile.splat %h : tensor<4x64xf16>
  // expected-error @+1 {{'tile.convert' op rounding applies only to narrowing float and integer-to-float conversions, not 'f16' to 'f32'}}
  %c = tile.convert %a rounding = rtz : tensor<4x64xf16> -> tensor<4x64xf32>
  tile.return
}

// -----

tile.kernel @convert_rounding_to_int(%s: f32) {
  %a = tile.splat %s : tensor<4x64xf32>
  // expected-error @+1 {{'tile.convert' op rounding applies only to narrowing float and integer-to-float conversions, not 'f32' to 'i32'}}
  %c = tile.convert %a rounding = rne : tensor<4x64xf32> -> tensor<4x64xi32>
  tile.return
}

// -----

tile.kernel @convert_to_e4m3(%s: f32) {
  %a = tile.splat %s : tensor<4x64xf32>
  // expected-error @+1 {{'tile.convert' op converts to 'f8E4M3FN', which is not supported (f8E4M3FN tiles only widen)}}
  %c = tile.convert %a : tensor<4x64xf32> -> tensor<4x64xf8E4M3FN>
  tile.return
}

// -----

tile.kernel @convert_e4m3_to_int(%w: !tile.view<in, 4x64xf8E4M3FN>) {
  %c0 = arith.constant 0 : index
  %p = tile.partition %w : !tile.partition<in, 4x64xf8E4M3FN, tile = [4, 64]>
  %a = tile.load %p[%c0, %c0] : !tile.partition<in, 4x64xf8E4M3FN, tile = [4, 64]> -> tensor<4x64xf8E4M3FN>
  // expected-error @+1 {{'tile.convert' op converts 'f8E4M3FN' to 'i32': f8E4M3FN widens only to floats}}
  %c = tile.convert %a : tensor<4x64xf8E4M3FN> -> tensor<4x64xi32>
  tile.return
}

// RMSNorm over rows of 4096, as Hugging Face's Qwen3 computes it:
//   y = weight * (x * rsqrt(mean(x^2) + eps)).to(f16)
// One program per row: program i owns row i of %y.
tile.kernel @rmsnorm_f16(%x: !tile.view<in, ?x4096xf16> {tile.name = "x"},
                         %w: !tile.view<in, 4096xf16> {tile.name = "w"},
                         %y: !tile.view<out, ?x4096xf16> {tile.name = "y"},
                         %eps: f32 {tile.name = "eps"}) {
  %row = tile.program_id x
  %c0 = arith.constant 0 : index
  %px = tile.partition %x : !tile.partition<in, ?x4096xf16, tile = [1, 4096]>
  %pw = tile.partition %w : !tile.partition<in, 4096xf16, tile = [4096]>
  %py = tile.partition %y : !tile.partition<out, ?x4096xf16, tile = [1, 4096]>
  // One program per row of %y; x must have as many rows.
  %rows = tile.num_tiles %py, 0 : !tile.partition<out, ?x4096xf16, tile = [1, 4096]>
  tile.grid %rows
  %rx = tile.dim %x, 0 : !tile.view<in, ?x4096xf16>
  %ry = tile.dim %y, 0 : !tile.view<out, ?x4096xf16>
  %same = arith.cmpi eq, %rx, %ry : index
  tile.assume %same, "x and y have the same number of rows"

  %xt = tile.load %px[%row, %c0] : !tile.partition<in, ?x4096xf16, tile = [1, 4096]> -> tensor<1x4096xf16>
  %x32 = tile.convert %xt : tensor<1x4096xf16> -> tensor<1x4096xf32>
  %sq = arith.mulf %x32, %x32 : tensor<1x4096xf32>
  %sum = tile.reduce %sq dim = 1 : (tensor<1x4096xf32>) -> tensor<1x1xf32> {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    tile.yield %s : f32
  }
  %n = arith.constant dense<4096.0> : tensor<1x1xf32>
  %mean = arith.divf %sum, %n : tensor<1x1xf32>
  %epst = tile.splat %eps : tensor<1x1xf32>
  %var = arith.addf %mean, %epst : tensor<1x1xf32>
  %inv = math.rsqrt %var : tensor<1x1xf32>
  %invb = tile.broadcast %inv : tensor<1x1xf32> -> tensor<1x4096xf32>
  %normed = arith.mulf %x32, %invb : tensor<1x4096xf32>
  %nh = tile.convert %normed : tensor<1x4096xf32> -> tensor<1x4096xf16>

  %wt = tile.load %pw[%c0] : !tile.partition<in, 4096xf16, tile = [4096]> -> tensor<4096xf16>
  %w2 = tile.reshape %wt : tensor<4096xf16> -> tensor<1x4096xf16>
  %out = arith.mulf %nh, %w2 : tensor<1x4096xf16>

  %blk = tile.own %py[%row, %c0] : !tile.partition<out, ?x4096xf16, tile = [1, 4096]>
  tile.store %out, %blk : tensor<1x4096xf16>, !tile.owned<out, 1x4096xf16>
  tile.return
}

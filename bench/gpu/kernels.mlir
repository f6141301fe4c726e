// Kernels of the GPU bandwidth benchmarks (bench/gpu/run.sh): the issue's
// element-wise, RMSNorm and GEMV targets at Qwen3-8B decode shapes.

// out = silu(gate) * up, 1024 elements per program.
tile.kernel @silu_mul(%g: !tile.view<in, ?xf16>, %u: !tile.view<in, ?xf16>, %o: !tile.view<out, ?xf16>) {
  %pid = tile.program_id x
  %pg = tile.partition %g : !tile.partition<in, ?xf16, tile = [1024]>
  %pu = tile.partition %u : !tile.partition<in, ?xf16, tile = [1024]>
  %po = tile.partition %o : !tile.partition<out, ?xf16, tile = [1024]>
  %n = tile.num_tiles %po, 0 : !tile.partition<out, ?xf16, tile = [1024]>
  tile.grid %n
  %gt = tile.load %pg[%pid] : !tile.partition<in, ?xf16, tile = [1024]> -> tensor<1024xf16>
  %ut = tile.load %pu[%pid] : !tile.partition<in, ?xf16, tile = [1024]> -> tensor<1024xf16>
  %g32 = tile.convert %gt : tensor<1024xf16> -> tensor<1024xf32>
  %ng = arith.negf %g32 : tensor<1024xf32>
  %e = math.exp %ng : tensor<1024xf32>
  %one = arith.constant dense<1.0> : tensor<1024xf32>
  %d = arith.addf %one, %e : tensor<1024xf32>
  %s = arith.divf %g32, %d : tensor<1024xf32>
  %u32 = tile.convert %ut : tensor<1024xf16> -> tensor<1024xf32>
  %r = arith.mulf %s, %u32 : tensor<1024xf32>
  %rh = tile.convert %r : tensor<1024xf32> -> tensor<1024xf16>
  %b = tile.own %po[%pid] : !tile.partition<out, ?xf16, tile = [1024]>
  tile.store %rh, %b : tensor<1024xf16>, !tile.owned<out, 1024xf16>
  tile.return
}

// y = x * rsqrt(mean(x^2) + eps) * w, as Hugging Face computes it.
tile.kernel @rmsnorm_f16(%x: !tile.view<in, ?x4096xf16>, %w: !tile.view<in, 4096xf16>,
                         %y: !tile.view<out, ?x4096xf16>, %eps: f32) {
  %row = tile.program_id x
  %c0 = arith.constant 0 : index
  %px = tile.partition %x : !tile.partition<in, ?x4096xf16, tile = [1, 4096]>
  %pw = tile.partition %w : !tile.partition<in, 4096xf16, tile = [4096]>
  %py = tile.partition %y : !tile.partition<out, ?x4096xf16, tile = [1, 4096]>
  %rows = tile.num_tiles %py, 0 : !tile.partition<out, ?x4096xf16, tile = [1, 4096]>
  tile.grid %rows
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

// The same in bf16 (bf16 checkpoints run in bf16).
tile.kernel @rmsnorm_bf16(%x: !tile.view<in, ?x4096xbf16>, %w: !tile.view<in, 4096xbf16>,
                         %y: !tile.view<out, ?x4096xbf16>, %eps: f32) {
  %row = tile.program_id x
  %c0 = arith.constant 0 : index
  %px = tile.partition %x : !tile.partition<in, ?x4096xbf16, tile = [1, 4096]>
  %pw = tile.partition %w : !tile.partition<in, 4096xbf16, tile = [4096]>
  %py = tile.partition %y : !tile.partition<out, ?x4096xbf16, tile = [1, 4096]>
  %rows = tile.num_tiles %py, 0 : !tile.partition<out, ?x4096xbf16, tile = [1, 4096]>
  tile.grid %rows
  %xt = tile.load %px[%row, %c0] : !tile.partition<in, ?x4096xbf16, tile = [1, 4096]> -> tensor<1x4096xbf16>
  %x32 = tile.convert %xt : tensor<1x4096xbf16> -> tensor<1x4096xf32>
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
  %nh = tile.convert %normed : tensor<1x4096xf32> -> tensor<1x4096xbf16>
  %wt = tile.load %pw[%c0] : !tile.partition<in, 4096xbf16, tile = [4096]> -> tensor<4096xbf16>
  %w2 = tile.reshape %wt : tensor<4096xbf16> -> tensor<1x4096xbf16>
  %out = arith.mulf %nh, %w2 : tensor<1x4096xbf16>
  %blk = tile.own %py[%row, %c0] : !tile.partition<out, ?x4096xbf16, tile = [1, 4096]>
  tile.store %out, %blk : tensor<1x4096xbf16>, !tile.owned<out, 1x4096xbf16>
  tile.return
}

// y[N] = W[N, 4096] x[4096], 8 rows per program, f32 accumulation.
tile.kernel @gemv_k4096(%w: !tile.view<in, ?x4096xf16>, %x: !tile.view<in, 4096xf16>, %y: !tile.view<out, ?xf16>) {
  %pid = tile.program_id x
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %pw = tile.partition %w : !tile.partition<in, ?x4096xf16, tile = [8, 512]>
  %px = tile.partition %x : !tile.partition<in, 4096xf16, tile = [512]>
  %py = tile.partition %y : !tile.partition<out, ?xf16, tile = [8]>
  %n = tile.num_tiles %py, 0 : !tile.partition<out, ?xf16, tile = [8]>
  tile.grid %n
  %zero = arith.constant dense<0.0> : tensor<8x512xf32>
  %acc = scf.for %k = %c0 to %c8 step %c1 iter_args(%a = %zero) -> tensor<8x512xf32> {
    %wt = tile.load %pw[%pid, %k] : !tile.partition<in, ?x4096xf16, tile = [8, 512]> -> tensor<8x512xf16>
    %xt = tile.load %px[%k] : !tile.partition<in, 4096xf16, tile = [512]> -> tensor<512xf16>
    %xr = tile.reshape %xt : tensor<512xf16> -> tensor<1x512xf16>
    %xb = tile.broadcast %xr : tensor<1x512xf16> -> tensor<8x512xf16>
    %w32 = tile.convert %wt : tensor<8x512xf16> -> tensor<8x512xf32>
    %x32 = tile.convert %xb : tensor<8x512xf16> -> tensor<8x512xf32>
    %p = arith.mulf %w32, %x32 : tensor<8x512xf32>
    %a2 = arith.addf %a, %p : tensor<8x512xf32>
    scf.yield %a2 : tensor<8x512xf32>
  }
  %s = tile.reduce %acc dim = 1 : (tensor<8x512xf32>) -> tensor<8x1xf32> {
  ^bb0(%l: f32, %r: f32):
    %t = arith.addf %l, %r : f32
    tile.yield %t : f32
  }
  %o = tile.reshape %s : tensor<8x1xf32> -> tensor<8xf32>
  %oh = tile.convert %o : tensor<8xf32> -> tensor<8xf16>
  %b = tile.own %py[%pid] : !tile.partition<out, ?xf16, tile = [8]>
  tile.store %oh, %b : tensor<8xf16>, !tile.owned<out, 8xf16>
  tile.return
}

// y[N] = W[N, 12288] x[12288] (the down projection), 8 rows per program.
tile.kernel @gemv_k12288(%w: !tile.view<in, ?x12288xf16>, %x: !tile.view<in, 12288xf16>, %y: !tile.view<out, ?xf16>) {
  %pid = tile.program_id x
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c24 = arith.constant 24 : index
  %pw = tile.partition %w : !tile.partition<in, ?x12288xf16, tile = [8, 512]>
  %px = tile.partition %x : !tile.partition<in, 12288xf16, tile = [512]>
  %py = tile.partition %y : !tile.partition<out, ?xf16, tile = [8]>
  %n = tile.num_tiles %py, 0 : !tile.partition<out, ?xf16, tile = [8]>
  tile.grid %n
  %zero = arith.constant dense<0.0> : tensor<8x512xf32>
  %acc = scf.for %k = %c0 to %c24 step %c1 iter_args(%a = %zero) -> tensor<8x512xf32> {
    %wt = tile.load %pw[%pid, %k] : !tile.partition<in, ?x12288xf16, tile = [8, 512]> -> tensor<8x512xf16>
    %xt = tile.load %px[%k] : !tile.partition<in, 12288xf16, tile = [512]> -> tensor<512xf16>
    %xr = tile.reshape %xt : tensor<512xf16> -> tensor<1x512xf16>
    %xb = tile.broadcast %xr : tensor<1x512xf16> -> tensor<8x512xf16>
    %w32 = tile.convert %wt : tensor<8x512xf16> -> tensor<8x512xf32>
    %x32 = tile.convert %xb : tensor<8x512xf16> -> tensor<8x512xf32>
    %p = arith.mulf %w32, %x32 : tensor<8x512xf32>
    %a2 = arith.addf %a, %p : tensor<8x512xf32>
    scf.yield %a2 : tensor<8x512xf32>
  }
  %s = tile.reduce %acc dim = 1 : (tensor<8x512xf32>) -> tensor<8x1xf32> {
  ^bb0(%l: f32, %r: f32):
    %t = arith.addf %l, %r : f32
    tile.yield %t : f32
  }
  %o = tile.reshape %s : tensor<8x1xf32> -> tensor<8xf32>
  %oh = tile.convert %o : tensor<8xf32> -> tensor<8xf16>
  %b = tile.own %py[%pid] : !tile.partition<out, ?xf16, tile = [8]>
  tile.store %oh, %b : tensor<8xf16>, !tile.owned<out, 8xf16>
  tile.return
}

// The same with 4 rows per program: twice the programs for small N.
tile.kernel @gemv_k4096_r4(%w: !tile.view<in, ?x4096xf16>, %x: !tile.view<in, 4096xf16>, %y: !tile.view<out, ?xf16>) {
  %pid = tile.program_id x
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %pw = tile.partition %w : !tile.partition<in, ?x4096xf16, tile = [4, 512]>
  %px = tile.partition %x : !tile.partition<in, 4096xf16, tile = [512]>
  %py = tile.partition %y : !tile.partition<out, ?xf16, tile = [4]>
  %n = tile.num_tiles %py, 0 : !tile.partition<out, ?xf16, tile = [4]>
  tile.grid %n
  %zero = arith.constant dense<0.0> : tensor<4x512xf32>
  %acc = scf.for %k = %c0 to %c8 step %c1 iter_args(%a = %zero) -> tensor<4x512xf32> {
    %wt = tile.load %pw[%pid, %k] : !tile.partition<in, ?x4096xf16, tile = [4, 512]> -> tensor<4x512xf16>
    %xt = tile.load %px[%k] : !tile.partition<in, 4096xf16, tile = [512]> -> tensor<512xf16>
    %xr = tile.reshape %xt : tensor<512xf16> -> tensor<1x512xf16>
    %xb = tile.broadcast %xr : tensor<1x512xf16> -> tensor<4x512xf16>
    %w32 = tile.convert %wt : tensor<4x512xf16> -> tensor<4x512xf32>
    %x32 = tile.convert %xb : tensor<4x512xf16> -> tensor<4x512xf32>
    %p = arith.mulf %w32, %x32 : tensor<4x512xf32>
    %a2 = arith.addf %a, %p : tensor<4x512xf32>
    scf.yield %a2 : tensor<4x512xf32>
  }
  %s = tile.reduce %acc dim = 1 : (tensor<4x512xf32>) -> tensor<4x1xf32> {
  ^bb0(%l: f32, %r: f32):
    %t = arith.addf %l, %r : f32
    tile.yield %t : f32
  }
  %o = tile.reshape %s : tensor<4x1xf32> -> tensor<4xf32>
  %oh = tile.convert %o : tensor<4xf32> -> tensor<4xf16>
  %b = tile.own %py[%pid] : !tile.partition<out, ?xf16, tile = [4]>
  tile.store %oh, %b : tensor<4xf16>, !tile.owned<out, 4xf16>
  tile.return
}

// 2 rows per program: more waves of programs for small N.
tile.kernel @gemv_k4096_r2(%w: !tile.view<in, ?x4096xf16>, %x: !tile.view<in, 4096xf16>, %y: !tile.view<out, ?xf16>) {
  %pid = tile.program_id x
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %pw = tile.partition %w : !tile.partition<in, ?x4096xf16, tile = [2, 512]>
  %px = tile.partition %x : !tile.partition<in, 4096xf16, tile = [512]>
  %py = tile.partition %y : !tile.partition<out, ?xf16, tile = [2]>
  %n = tile.num_tiles %py, 0 : !tile.partition<out, ?xf16, tile = [2]>
  tile.grid %n
  %zero = arith.constant dense<0.0> : tensor<2x512xf32>
  %acc = scf.for %k = %c0 to %c8 step %c1 iter_args(%a = %zero) -> tensor<2x512xf32> {
    %wt = tile.load %pw[%pid, %k] : !tile.partition<in, ?x4096xf16, tile = [2, 512]> -> tensor<2x512xf16>
    %xt = tile.load %px[%k] : !tile.partition<in, 4096xf16, tile = [512]> -> tensor<512xf16>
    %xr = tile.reshape %xt : tensor<512xf16> -> tensor<1x512xf16>
    %xb = tile.broadcast %xr : tensor<1x512xf16> -> tensor<2x512xf16>
    %w32 = tile.convert %wt : tensor<2x512xf16> -> tensor<2x512xf32>
    %x32 = tile.convert %xb : tensor<2x512xf16> -> tensor<2x512xf32>
    %p = arith.mulf %w32, %x32 : tensor<2x512xf32>
    %a2 = arith.addf %a, %p : tensor<2x512xf32>
    scf.yield %a2 : tensor<2x512xf32>
  }
  %s = tile.reduce %acc dim = 1 : (tensor<2x512xf32>) -> tensor<2x1xf32> {
  ^bb0(%l: f32, %r: f32):
    %t = arith.addf %l, %r : f32
    tile.yield %t : f32
  }
  %o = tile.reshape %s : tensor<2x1xf32> -> tensor<2xf32>
  %oh = tile.convert %o : tensor<2xf32> -> tensor<2xf16>
  %b = tile.own %py[%pid] : !tile.partition<out, ?xf16, tile = [2]>
  tile.store %oh, %b : tensor<2xf16>, !tile.owned<out, 2xf16>
  tile.return
}

// 4 rows per program, K in steps of 1024: half the loop iterations.
tile.kernel @gemv_k4096_r4_k1024(%w: !tile.view<in, ?x4096xf16>, %x: !tile.view<in, 4096xf16>, %y: !tile.view<out, ?xf16>) {
  %pid = tile.program_id x
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %pw = tile.partition %w : !tile.partition<in, ?x4096xf16, tile = [4, 1024]>
  %px = tile.partition %x : !tile.partition<in, 4096xf16, tile = [1024]>
  %py = tile.partition %y : !tile.partition<out, ?xf16, tile = [4]>
  %n = tile.num_tiles %py, 0 : !tile.partition<out, ?xf16, tile = [4]>
  tile.grid %n
  %zero = arith.constant dense<0.0> : tensor<4x1024xf32>
  %acc = scf.for %k = %c0 to %c4 step %c1 iter_args(%a = %zero) -> tensor<4x1024xf32> {
    %wt = tile.load %pw[%pid, %k] : !tile.partition<in, ?x4096xf16, tile = [4, 1024]> -> tensor<4x1024xf16>
    %xt = tile.load %px[%k] : !tile.partition<in, 4096xf16, tile = [1024]> -> tensor<1024xf16>
    %xr = tile.reshape %xt : tensor<1024xf16> -> tensor<1x1024xf16>
    %xb = tile.broadcast %xr : tensor<1x1024xf16> -> tensor<4x1024xf16>
    %w32 = tile.convert %wt : tensor<4x1024xf16> -> tensor<4x1024xf32>
    %x32 = tile.convert %xb : tensor<4x1024xf16> -> tensor<4x1024xf32>
    %p = arith.mulf %w32, %x32 : tensor<4x1024xf32>
    %a2 = arith.addf %a, %p : tensor<4x1024xf32>
    scf.yield %a2 : tensor<4x1024xf32>
  }
  %s = tile.reduce %acc dim = 1 : (tensor<4x1024xf32>) -> tensor<4x1xf32> {
  ^bb0(%l: f32, %r: f32):
    %t = arith.addf %l, %r : f32
    tile.yield %t : f32
  }
  %o = tile.reshape %s : tensor<4x1xf32> -> tensor<4xf32>
  %oh = tile.convert %o : tensor<4xf32> -> tensor<4xf16>
  %b = tile.own %py[%pid] : !tile.partition<out, ?xf16, tile = [4]>
  tile.store %oh, %b : tensor<4xf16>, !tile.owned<out, 4xf16>
  tile.return
}

// C = A B with f16 operands and f32 accumulation on tensor cores (mma.sync),
// 64x64 output tiles, K in steps of 32.
tile.kernel @gemm_f16(%a: !tile.view<in, ?x?xf16, strides = [?, 1]>, %b: !tile.view<in, ?x?xf16, strides = [?, 1]>,
                  %c: !tile.view<out, ?x?xf32, strides = [?, 1]>) {
  %m = tile.program_id x
  %n = tile.program_id y
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pa = tile.partition %a : !tile.partition<in, ?x?xf16, strides = [?, 1], tile = [64, 32]>
  %pb = tile.partition %b : !tile.partition<in, ?x?xf16, strides = [?, 1], tile = [32, 64]>
  %pc = tile.partition %c : !tile.partition<out, ?x?xf32, strides = [?, 1], tile = [64, 64]>
  %tm = tile.num_tiles %pc, 0 : !tile.partition<out, ?x?xf32, strides = [?, 1], tile = [64, 64]>
  %tn = tile.num_tiles %pc, 1 : !tile.partition<out, ?x?xf32, strides = [?, 1], tile = [64, 64]>
  tile.grid %tm, %tn
  %tk = tile.num_tiles %pa, 1 : !tile.partition<in, ?x?xf16, strides = [?, 1], tile = [64, 32]>
  %z = arith.constant dense<0.0> : tensor<64x64xf32>
  %acc = scf.for %k = %c0 to %tk step %c1 iter_args(%acc0 = %z) -> tensor<64x64xf32> {
    %at = tile.load %pa[%m, %k] : !tile.partition<in, ?x?xf16, strides = [?, 1], tile = [64, 32]> -> tensor<64x32xf16>
    %bt = tile.load %pb[%k, %n] : !tile.partition<in, ?x?xf16, strides = [?, 1], tile = [32, 64]> -> tensor<32x64xf16>
    %d = tile.dot %at, %bt, %acc0 : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
    scf.yield %d : tensor<64x64xf32>
  }
  %blk = tile.own %pc[%m, %n] : !tile.partition<out, ?x?xf32, strides = [?, 1], tile = [64, 64]>
  tile.store %acc, %blk : tensor<64x64xf32>, !tile.owned<out, 64x64xf32>
  tile.return
}

// y = W x with 4 rows x 256 columns per step (32 threads per row).
tile.kernel @gemv_k4096_w4(%w: !tile.view<in, ?x4096xf16>, %x: !tile.view<in, 4096xf16>, %y: !tile.view<out, ?xf16>) {
  %pid = tile.program_id x
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cs = arith.constant 16 : index
  %pw = tile.partition %w : !tile.partition<in, ?x4096xf16, tile = [4, 256]>
  %px = tile.partition %x : !tile.partition<in, 4096xf16, tile = [256]>
  %py = tile.partition %y : !tile.partition<out, ?xf16, tile = [4]>
  %n = tile.num_tiles %py, 0 : !tile.partition<out, ?xf16, tile = [4]>
  tile.grid %n
  %zero = arith.constant dense<0.0> : tensor<4x256xf32>
  %acc = scf.for %k = %c0 to %cs step %c1 iter_args(%a = %zero) -> tensor<4x256xf32> {
    %wt = tile.load %pw[%pid, %k] : !tile.partition<in, ?x4096xf16, tile = [4, 256]> -> tensor<4x256xf16>
    %xt = tile.load %px[%k] : !tile.partition<in, 4096xf16, tile = [256]> -> tensor<256xf16>
    %xr = tile.reshape %xt : tensor<256xf16> -> tensor<1x256xf16>
    %xb = tile.broadcast %xr : tensor<1x256xf16> -> tensor<4x256xf16>
    %w32 = tile.convert %wt : tensor<4x256xf16> -> tensor<4x256xf32>
    %x32 = tile.convert %xb : tensor<4x256xf16> -> tensor<4x256xf32>
    %p = arith.mulf %w32, %x32 : tensor<4x256xf32>
    %a2 = arith.addf %a, %p : tensor<4x256xf32>
    scf.yield %a2 : tensor<4x256xf32>
  }
  %s = tile.reduce %acc dim = 1 : (tensor<4x256xf32>) -> tensor<4x1xf32> {
  ^bb0(%l: f32, %r: f32):
    %t = arith.addf %l, %r : f32
    tile.yield %t : f32
  }
  %o = tile.reshape %s : tensor<4x1xf32> -> tensor<4xf32>
  %oh = tile.convert %o : tensor<4xf32> -> tensor<4xf16>
  %b = tile.own %py[%pid] : !tile.partition<out, ?xf16, tile = [4]>
  tile.store %oh, %b : tensor<4xf16>, !tile.owned<out, 4xf16>
  tile.return
}

// y = W x with 8 rows x 256 columns per step (32 threads per row).
tile.kernel @gemv_k4096_w8(%w: !tile.view<in, ?x4096xf16>, %x: !tile.view<in, 4096xf16>, %y: !tile.view<out, ?xf16>) {
  %pid = tile.program_id x
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cs = arith.constant 16 : index
  %pw = tile.partition %w : !tile.partition<in, ?x4096xf16, tile = [8, 256]>
  %px = tile.partition %x : !tile.partition<in, 4096xf16, tile = [256]>
  %py = tile.partition %y : !tile.partition<out, ?xf16, tile = [8]>
  %n = tile.num_tiles %py, 0 : !tile.partition<out, ?xf16, tile = [8]>
  tile.grid %n
  %zero = arith.constant dense<0.0> : tensor<8x256xf32>
  %acc = scf.for %k = %c0 to %cs step %c1 iter_args(%a = %zero) -> tensor<8x256xf32> {
    %wt = tile.load %pw[%pid, %k] : !tile.partition<in, ?x4096xf16, tile = [8, 256]> -> tensor<8x256xf16>
    %xt = tile.load %px[%k] : !tile.partition<in, 4096xf16, tile = [256]> -> tensor<256xf16>
    %xr = tile.reshape %xt : tensor<256xf16> -> tensor<1x256xf16>
    %xb = tile.broadcast %xr : tensor<1x256xf16> -> tensor<8x256xf16>
    %w32 = tile.convert %wt : tensor<8x256xf16> -> tensor<8x256xf32>
    %x32 = tile.convert %xb : tensor<8x256xf16> -> tensor<8x256xf32>
    %p = arith.mulf %w32, %x32 : tensor<8x256xf32>
    %a2 = arith.addf %a, %p : tensor<8x256xf32>
    scf.yield %a2 : tensor<8x256xf32>
  }
  %s = tile.reduce %acc dim = 1 : (tensor<8x256xf32>) -> tensor<8x1xf32> {
  ^bb0(%l: f32, %r: f32):
    %t = arith.addf %l, %r : f32
    tile.yield %t : f32
  }
  %o = tile.reshape %s : tensor<8x1xf32> -> tensor<8xf32>
  %oh = tile.convert %o : tensor<8xf32> -> tensor<8xf16>
  %b = tile.own %py[%pid] : !tile.partition<out, ?xf16, tile = [8]>
  tile.store %oh, %b : tensor<8xf16>, !tile.owned<out, 8xf16>
  tile.return
}

// y = W x with 4 rows x 256 columns per step (32 threads per row).
tile.kernel @gemv_k12288_w4(%w: !tile.view<in, ?x12288xf16>, %x: !tile.view<in, 12288xf16>, %y: !tile.view<out, ?xf16>) {
  %pid = tile.program_id x
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cs = arith.constant 48 : index
  %pw = tile.partition %w : !tile.partition<in, ?x12288xf16, tile = [4, 256]>
  %px = tile.partition %x : !tile.partition<in, 12288xf16, tile = [256]>
  %py = tile.partition %y : !tile.partition<out, ?xf16, tile = [4]>
  %n = tile.num_tiles %py, 0 : !tile.partition<out, ?xf16, tile = [4]>
  tile.grid %n
  %zero = arith.constant dense<0.0> : tensor<4x256xf32>
  %acc = scf.for %k = %c0 to %cs step %c1 iter_args(%a = %zero) -> tensor<4x256xf32> {
    %wt = tile.load %pw[%pid, %k] : !tile.partition<in, ?x12288xf16, tile = [4, 256]> -> tensor<4x256xf16>
    %xt = tile.load %px[%k] : !tile.partition<in, 12288xf16, tile = [256]> -> tensor<256xf16>
    %xr = tile.reshape %xt : tensor<256xf16> -> tensor<1x256xf16>
    %xb = tile.broadcast %xr : tensor<1x256xf16> -> tensor<4x256xf16>
    %w32 = tile.convert %wt : tensor<4x256xf16> -> tensor<4x256xf32>
    %x32 = tile.convert %xb : tensor<4x256xf16> -> tensor<4x256xf32>
    %p = arith.mulf %w32, %x32 : tensor<4x256xf32>
    %a2 = arith.addf %a, %p : tensor<4x256xf32>
    scf.yield %a2 : tensor<4x256xf32>
  }
  %s = tile.reduce %acc dim = 1 : (tensor<4x256xf32>) -> tensor<4x1xf32> {
  ^bb0(%l: f32, %r: f32):
    %t = arith.addf %l, %r : f32
    tile.yield %t : f32
  }
  %o = tile.reshape %s : tensor<4x1xf32> -> tensor<4xf32>
  %oh = tile.convert %o : tensor<4xf32> -> tensor<4xf16>
  %b = tile.own %py[%pid] : !tile.partition<out, ?xf16, tile = [4]>
  tile.store %oh, %b : tensor<4xf16>, !tile.owned<out, 4xf16>
  tile.return
}

// y = W x with 2 rows x 512 columns per step (64 threads per row).
tile.kernel @gemv_k12288_r2(%w: !tile.view<in, ?x12288xf16>, %x: !tile.view<in, 12288xf16>, %y: !tile.view<out, ?xf16>) {
  %pid = tile.program_id x
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cs = arith.constant 24 : index
  %pw = tile.partition %w : !tile.partition<in, ?x12288xf16, tile = [2, 512]>
  %px = tile.partition %x : !tile.partition<in, 12288xf16, tile = [512]>
  %py = tile.partition %y : !tile.partition<out, ?xf16, tile = [2]>
  %n = tile.num_tiles %py, 0 : !tile.partition<out, ?xf16, tile = [2]>
  tile.grid %n
  %zero = arith.constant dense<0.0> : tensor<2x512xf32>
  %acc = scf.for %k = %c0 to %cs step %c1 iter_args(%a = %zero) -> tensor<2x512xf32> {
    %wt = tile.load %pw[%pid, %k] : !tile.partition<in, ?x12288xf16, tile = [2, 512]> -> tensor<2x512xf16>
    %xt = tile.load %px[%k] : !tile.partition<in, 12288xf16, tile = [512]> -> tensor<512xf16>
    %xr = tile.reshape %xt : tensor<512xf16> -> tensor<1x512xf16>
    %xb = tile.broadcast %xr : tensor<1x512xf16> -> tensor<2x512xf16>
    %w32 = tile.convert %wt : tensor<2x512xf16> -> tensor<2x512xf32>
    %x32 = tile.convert %xb : tensor<2x512xf16> -> tensor<2x512xf32>
    %p = arith.mulf %w32, %x32 : tensor<2x512xf32>
    %a2 = arith.addf %a, %p : tensor<2x512xf32>
    scf.yield %a2 : tensor<2x512xf32>
  }
  %s = tile.reduce %acc dim = 1 : (tensor<2x512xf32>) -> tensor<2x1xf32> {
  ^bb0(%l: f32, %r: f32):
    %t = arith.addf %l, %r : f32
    tile.yield %t : f32
  }
  %o = tile.reshape %s : tensor<2x1xf32> -> tensor<2xf32>
  %oh = tile.convert %o : tensor<2xf32> -> tensor<2xf16>
  %b = tile.own %py[%pid] : !tile.partition<out, ?xf16, tile = [2]>
  tile.store %oh, %b : tensor<2xf16>, !tile.owned<out, 2xf16>
  tile.return
}

// y = W x with 2 rows x 1024 columns per step (128 threads per row).
tile.kernel @gemv_k12288_r2_k1024(%w: !tile.view<in, ?x12288xf16>, %x: !tile.view<in, 12288xf16>, %y: !tile.view<out, ?xf16>) {
  %pid = tile.program_id x
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cs = arith.constant 12 : index
  %pw = tile.partition %w : !tile.partition<in, ?x12288xf16, tile = [2, 1024]>
  %px = tile.partition %x : !tile.partition<in, 12288xf16, tile = [1024]>
  %py = tile.partition %y : !tile.partition<out, ?xf16, tile = [2]>
  %n = tile.num_tiles %py, 0 : !tile.partition<out, ?xf16, tile = [2]>
  tile.grid %n
  %zero = arith.constant dense<0.0> : tensor<2x1024xf32>
  %acc = scf.for %k = %c0 to %cs step %c1 iter_args(%a = %zero) -> tensor<2x1024xf32> {
    %wt = tile.load %pw[%pid, %k] : !tile.partition<in, ?x12288xf16, tile = [2, 1024]> -> tensor<2x1024xf16>
    %xt = tile.load %px[%k] : !tile.partition<in, 12288xf16, tile = [1024]> -> tensor<1024xf16>
    %xr = tile.reshape %xt : tensor<1024xf16> -> tensor<1x1024xf16>
    %xb = tile.broadcast %xr : tensor<1x1024xf16> -> tensor<2x1024xf16>
    %w32 = tile.convert %wt : tensor<2x1024xf16> -> tensor<2x1024xf32>
    %x32 = tile.convert %xb : tensor<2x1024xf16> -> tensor<2x1024xf32>
    %p = arith.mulf %w32, %x32 : tensor<2x1024xf32>
    %a2 = arith.addf %a, %p : tensor<2x1024xf32>
    scf.yield %a2 : tensor<2x1024xf32>
  }
  %s = tile.reduce %acc dim = 1 : (tensor<2x1024xf32>) -> tensor<2x1xf32> {
  ^bb0(%l: f32, %r: f32):
    %t = arith.addf %l, %r : f32
    tile.yield %t : f32
  }
  %o = tile.reshape %s : tensor<2x1xf32> -> tensor<2xf32>
  %oh = tile.convert %o : tensor<2xf32> -> tensor<2xf16>
  %b = tile.own %py[%pid] : !tile.partition<out, ?xf16, tile = [2]>
  tile.store %oh, %b : tensor<2xf16>, !tile.owned<out, 2xf16>
  tile.return
}

// y = W x with 2 rows x 1024 columns per step (128 threads per row).
tile.kernel @gemv_k4096_r2_k1024(%w: !tile.view<in, ?x4096xf16>, %x: !tile.view<in, 4096xf16>, %y: !tile.view<out, ?xf16>) {
  %pid = tile.program_id x
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cs = arith.constant 4 : index
  %pw = tile.partition %w : !tile.partition<in, ?x4096xf16, tile = [2, 1024]>
  %px = tile.partition %x : !tile.partition<in, 4096xf16, tile = [1024]>
  %py = tile.partition %y : !tile.partition<out, ?xf16, tile = [2]>
  %n = tile.num_tiles %py, 0 : !tile.partition<out, ?xf16, tile = [2]>
  tile.grid %n
  %zero = arith.constant dense<0.0> : tensor<2x1024xf32>
  %acc = scf.for %k = %c0 to %cs step %c1 iter_args(%a = %zero) -> tensor<2x1024xf32> {
    %wt = tile.load %pw[%pid, %k] : !tile.partition<in, ?x4096xf16, tile = [2, 1024]> -> tensor<2x1024xf16>
    %xt = tile.load %px[%k] : !tile.partition<in, 4096xf16, tile = [1024]> -> tensor<1024xf16>
    %xr = tile.reshape %xt : tensor<1024xf16> -> tensor<1x1024xf16>
    %xb = tile.broadcast %xr : tensor<1x1024xf16> -> tensor<2x1024xf16>
    %w32 = tile.convert %wt : tensor<2x1024xf16> -> tensor<2x1024xf32>
    %x32 = tile.convert %xb : tensor<2x1024xf16> -> tensor<2x1024xf32>
    %p = arith.mulf %w32, %x32 : tensor<2x1024xf32>
    %a2 = arith.addf %a, %p : tensor<2x1024xf32>
    scf.yield %a2 : tensor<2x1024xf32>
  }
  %s = tile.reduce %acc dim = 1 : (tensor<2x1024xf32>) -> tensor<2x1xf32> {
  ^bb0(%l: f32, %r: f32):
    %t = arith.addf %l, %r : f32
    tile.yield %t : f32
  }
  %o = tile.reshape %s : tensor<2x1xf32> -> tensor<2xf32>
  %oh = tile.convert %o : tensor<2xf32> -> tensor<2xf16>
  %b = tile.own %py[%pid] : !tile.partition<out, ?xf16, tile = [2]>
  tile.store %oh, %b : tensor<2xf16>, !tile.owned<out, 2xf16>
  tile.return
}

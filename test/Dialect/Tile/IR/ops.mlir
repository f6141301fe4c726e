// Round trip of every tile op, in custom and in generic form.
// RUN: tile-opt %s | tile-opt | FileCheck %s
// RUN: tile-opt %s --mlir-print-op-generic | tile-opt | FileCheck %s

// CHECK-LABEL: tile.kernel @structure
// CHECK-SAME: (%{{.*}}: !tile.view<in, ?x4096xf16>, %{{.*}}: !tile.view<out, ?x4096xf16>, %{{.*}}: i32, %{{.*}}: f32)
tile.kernel @structure(%x: !tile.view<in, ?x4096xf16>,
                       %y: !tile.view<out, ?x4096xf16>,
                       %n: i32, %s: f32) {
  // CHECK: tile.program_id x
  // CHECK: tile.program_id y
  // CHECK: tile.program_id z
  // CHECK: tile.num_programs x
  %px = tile.program_id x
  %py = tile.program_id y
  %pz = tile.program_id z
  %nx = tile.num_programs x
  // CHECK: tile.dim %{{.*}}, 0 : !tile.view<in, ?x4096xf16>
  %d = tile.dim %x, 0 : !tile.view<in, ?x4096xf16>
  // CHECK: tile.partition %{{.*}} : !tile.partition<in, ?x4096xf16, tile = [16, 4096]>
  %p = tile.partition %x : !tile.partition<in, ?x4096xf16, tile = [16, 4096]>
  // CHECK: tile.num_tiles %{{.*}}, 0 : !tile.partition<in, ?x4096xf16, tile = [16, 4096]>
  %t = tile.num_tiles %p, 0 : !tile.partition<in, ?x4096xf16, tile = [16, 4096]>
  // CHECK: tile.return
  tile.return
}

// CHECK-LABEL: tile.kernel @memory
tile.kernel @memory(%x: !tile.view<in, ?x?xf16, strides = [?, 1]>,
                    %io: !tile.view<inout, ?x128xf32>,
                    %y: !tile.view<out, 64x128xf32, strides = [256, 1]>,
                    %emb: !tile.view<in, ?x1024xbf16>,
                    %ids: !tile.view<in, ?xi32>) {
  %i = tile.program_id x
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // CHECK: tile.partition %{{.*}} : !tile.partition<in, ?x?xf16, tile = [64, 64]>
  %px = tile.partition %x : !tile.partition<in, ?x?xf16, strides = [?, 1], tile = [64, 64]>
  // CHECK: tile.load %{{.*}}[%{{.*}}, %{{.*}}] : !tile.partition<in, ?x?xf16, tile = [64, 64]> -> tensor<64x64xf16>
  %a = tile.load %px[%i, %c0] : !tile.partition<in, ?x?xf16, strides = [?, 1], tile = [64, 64]> -> tensor<64x64xf16>
  // CHECK: tile.load %{{.*}}[%{{.*}}, %{{.*}}] padding = 0xFC00 : f16 : !tile.partition
  %b = tile.load %px[%i, %c1] padding = 0xFC00 : f16 : !tile.partition<in, ?x?xf16, strides = [?, 1], tile = [64, 64]> -> tensor<64x64xf16>

  // CHECK: %[[IOP:.*]] = tile.partition %{{.*}} : !tile.partition<inout, ?x128xf32, tile = [64, 128]>
  %pio = tile.partition %io : !tile.partition<inout, ?x128xf32, tile = [64, 128]>
  // CHECK: %[[IOB:.*]] = tile.own %[[IOP]][%{{.*}}, %{{.*}}] : !tile.partition<inout, ?x128xf32, tile = [64, 128]>
  %blk = tile.own %pio[%i, %c0] : !tile.partition<inout, ?x128xf32, tile = [64, 128]>
  // CHECK: tile.load %[[IOB]] : !tile.owned<inout, 64x128xf32> -> tensor<64x128xf32>
  %whole = tile.load %blk : !tile.owned<inout, 64x128xf32> -> tensor<64x128xf32>
  // CHECK: tile.load %[[IOB]][%{{.*}}, %{{.*}}] : !tile.owned<inout, 64x128xf32> -> tensor<64x32xf32>
  %part = tile.load %blk[%c0, %c1] : !tile.owned<inout, 64x128xf32> -> tensor<64x32xf32>
  // CHECK: tile.store %{{.*}}, %[[IOB]] : tensor<64x128xf32>, !tile.owned<inout, 64x128xf32>
  tile.store %whole, %blk : tensor<64x128xf32>, !tile.owned<inout, 64x128xf32>
  // CHECK: tile.store %{{.*}}, %[[IOB]][%{{.*}}, %{{.*}}] : tensor<64x32xf32>, !tile.owned<inout, 64x128xf32>
  tile.store %part, %blk[%c0, %c1] : tensor<64x32xf32>, !tile.owned<inout, 64x128xf32>

  %py = tile.partition %y : !tile.partition<out, 64x128xf32, strides = [256, 1], tile = [64, 128]>
  // CHECK: tile.own %{{.*}}[%{{.*}}, %{{.*}}] : !tile.partition<out, 64x128xf32, strides = [256, 1], tile = [64, 128]>
  %oy = tile.own %py[%c0, %c0] : !tile.partition<out, 64x128xf32, strides = [256, 1], tile = [64, 128]>
  tile.store %whole, %oy : tensor<64x128xf32>, !tile.owned<out, 64x128xf32>

  %pids = tile.partition %ids : !tile.partition<in, ?xi32, tile = [4]>
  %tok = tile.load %pids[%i] : !tile.partition<in, ?xi32, tile = [4]> -> tensor<4xi32>
  %pe = tile.partition %emb : !tile.partition<in, ?x1024xbf16, tile = [1, 256]>
  // CHECK: tile.gather %{{.*}}[%{{.*}}, %{{.*}}] : !tile.partition<in, ?x1024xbf16, tile = [1, 256]>, tensor<4xi32> -> tensor<4x256xbf16>
  %rows = tile.gather %pe[%tok, %c1] : !tile.partition<in, ?x1024xbf16, tile = [1, 256]>, tensor<4xi32> -> tensor<4x256xbf16>
  // CHECK: tile.gather %{{.*}}[%{{.*}}, %{{.*}}] padding = 1.000000e+00 : bf16 :
  %rows1 = tile.gather %pe[%tok, %c0] padding = 1.0 : bf16 : !tile.partition<in, ?x1024xbf16, tile = [1, 256]>, tensor<4xi32> -> tensor<4x256xbf16>
  tile.return
}

// CHECK-LABEL: tile.kernel @gather_1d
tile.kernel @gather_1d(%table: !tile.view<in, 1000xf32>, %idx: !tile.view<in, 8xi64>) {
  %c0 = arith.constant 0 : index
  %pi = tile.partition %idx : !tile.partition<in, 8xi64, tile = [8]>
  %i = tile.load %pi[%c0] : !tile.partition<in, 8xi64, tile = [8]> -> tensor<8xi64>
  %pt = tile.partition %table : !tile.partition<in, 1000xf32, tile = [1]>
  // CHECK: tile.gather %{{.*}}[%{{.*}}] : !tile.partition<in, 1000xf32, tile = [1]>, tensor<8xi64> -> tensor<8xf32>
  %g = tile.gather %pt[%i] : !tile.partition<in, 1000xf32, tile = [1]>, tensor<8xi64> -> tensor<8xf32>
  tile.return
}

// CHECK-LABEL: tile.kernel @shapes
tile.kernel @shapes(%s: f32, %k: i32) {
  // CHECK: tile.splat %{{.*}} : tensor<1x128xf32>
  %a = tile.splat %s : tensor<1x128xf32>
  // CHECK: tile.broadcast %{{.*}} : tensor<1x128xf32> -> tensor<64x128xf32>
  %b = tile.broadcast %a : tensor<1x128xf32> -> tensor<64x128xf32>
  // CHECK: tile.iota : tensor<128xi32>
  %i = tile.iota : tensor<128xi32>
  // CHECK: tile.reshape %{{.*}} : tensor<64x128xf32> -> tensor<8192xf32>
  %r = tile.reshape %b : tensor<64x128xf32> -> tensor<8192xf32>
  // CHECK: tile.permute %{{.*}} [1, 0] : tensor<64x128xf32> -> tensor<128x64xf32>
  %p = tile.permute %b [1, 0] : tensor<64x128xf32> -> tensor<128x64xf32>
  // CHECK: tile.slice %{{.*}} [0, 64] : tensor<1x128xf32> -> tensor<1x64xf32>
  %lo = tile.slice %a [0, 0] : tensor<1x128xf32> -> tensor<1x64xf32>
  %hi = tile.slice %a [0, 64] : tensor<1x128xf32> -> tensor<1x64xf32>
  // CHECK: tile.concat %{{.*}}, %{{.*}} dim = 1 : tensor<1x64xf32>, tensor<1x64xf32> -> tensor<1x128xf32>
  %c = tile.concat %hi, %lo dim = 1 : tensor<1x64xf32>, tensor<1x64xf32> -> tensor<1x128xf32>
  // CHECK: tile.roll %{{.*}} shift = 64 dim = 1 : tensor<1x128xf32>
  %rolled = tile.roll %c shift = 64 dim = 1 : tensor<1x128xf32>
  // CHECK: tile.extract %{{.*}} [0, 5] : tensor<1x128xf32>
  %e = tile.extract %c [0, 5] : tensor<1x128xf32>
  %ki = tile.splat %k : tensor<4xi32>
  // CHECK: tile.extract %{{.*}} [3] : tensor<4xi32>
  %ke = tile.extract %ki [3] : tensor<4xi32>
  tile.return
}

// CHECK-LABEL: tile.kernel @compute
tile.kernel @compute(%s: f32) {
  %v = tile.splat %s : tensor<4x128xf32>
  // CHECK: tile.reduce %{{.*}} dim = 1 : (tensor<4x128xf32>) -> tensor<4x1xf32> {
  // CHECK: ^bb0(%{{.*}}: f32, %{{.*}}: f32):
  // CHECK: tile.yield %{{.*}} : f32
  %sum = tile.reduce %v dim = 1 : (tensor<4x128xf32>) -> tensor<4x1xf32> {
  ^bb0(%a: f32, %b: f32):
    %r = arith.addf %a, %b : f32
    tile.yield %r : f32
  }
  // Argmax: (value, index) pairs, ties to the smaller index.
  %idx = tile.iota : tensor<128xi32>
  %idx2 = tile.reshape %idx : tensor<128xi32> -> tensor<1x128xi32>
  %ib = tile.broadcast %idx2 : tensor<1x128xi32> -> tensor<4x128xi32>
  // CHECK: tile.reduce %{{.*}}, %{{.*}} dim = 1 : (tensor<4x128xf32>, tensor<4x128xi32>) -> (tensor<4x1xf32>, tensor<4x1xi32>)
  %mv, %mi = tile.reduce %v, %ib dim = 1 : (tensor<4x128xf32>, tensor<4x128xi32>) -> (tensor<4x1xf32>, tensor<4x1xi32>) {
  ^bb0(%av: f32, %ai: i32, %bv: f32, %bi: i32):
    %gt = arith.cmpf ogt, %bv, %av : f32
    %eq = arith.cmpf oeq, %bv, %av : f32
    %lt = arith.cmpi slt, %bi, %ai : i32
    %tie = arith.andi %eq, %lt : i1
    %take = arith.ori %gt, %tie : i1
    %rv = arith.select %take, %bv, %av : f32
    %ri = arith.select %take, %bi, %ai : i32
    tile.yield %rv, %ri : f32, i32
  }
  %h = arith.constant dense<1.0> : tensor<64x32xf16>
  %w = arith.constant dense<1.0> : tensor<32x128xf16>
  %acc = arith.constant dense<0.0> : tensor<64x128xf32>
  // CHECK: tile.dot %{{.*}}, %{{.*}}, %{{.*}} : tensor<64x32xf16>, tensor<32x128xf16> -> tensor<64x128xf32>
  %d = tile.dot %h, %w, %acc : tensor<64x32xf16>, tensor<32x128xf16> -> tensor<64x128xf32>
  %hb = arith.constant dense<1.0> : tensor<64x32xbf16>
  %wb = arith.constant dense<1.0> : tensor<32x128xbf16>
  // CHECK: tile.dot {{.*}} : tensor<64x32xbf16>, tensor<32x128xbf16> -> tensor<64x128xf32>
  %db = tile.dot %hb, %wb, %d : tensor<64x32xbf16>, tensor<32x128xbf16> -> tensor<64x128xf32>
  // CHECK: tile.convert %{{.*}} : tensor<64x128xf32> -> tensor<64x128xbf16>
  %c1 = tile.convert %db : tensor<64x128xf32> -> tensor<64x128xbf16>
  // CHECK: tile.convert %{{.*}} rounding = rtz : tensor<64x128xf32> -> tensor<64x128xf16>
  %c2 = tile.convert %db rounding = rtz : tensor<64x128xf32> -> tensor<64x128xf16>
  // CHECK: tile.convert %{{.*}} : tensor<64x128xf32> -> tensor<64x128xi32>
  %c3 = tile.convert %db : tensor<64x128xf32> -> tensor<64x128xi32>
  // CHECK: tile.convert %{{.*}} rounding = rne : tensor<64x128xi32> -> tensor<64x128xf32>
  %c4 = tile.convert %c3 rounding = rne : tensor<64x128xi32> -> tensor<64x128xf32>
  // CHECK: tile.convert %{{.*}} : tensor<4x128xf32> -> tensor<4x128xf64>
  %c5 = tile.convert %v : tensor<4x128xf32> -> tensor<4x128xf64>
  tile.return
}

// CHECK-LABEL: tile.kernel @unchecked
tile.kernel @unchecked(%y: !tile.view<out, ?x64xf32>, %s: f32) {
  %i = tile.program_id x
  %c0 = arith.constant 0 : index
  %v = tile.splat %s : tensor<1x64xf32>
  %p = tile.partition %y : !tile.partition<out, ?x64xf32, tile = [1, 64]>
  // CHECK: tile.unchecked "scatter by a permutation read from memory" {
  // CHECK: tile.store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] : tensor<1x64xf32>, !tile.partition<out, ?x64xf32, tile = [1, 64]>
  // CHECK-NEXT: }
  tile.unchecked "scatter by a permutation read from memory" {
    tile.store %v, %p[%i, %c0] : tensor<1x64xf32>, !tile.partition<out, ?x64xf32, tile = [1, 64]>
  }
  // CHECK: tile.unchecked "read back" -> tensor<1x64xf32> {
  // CHECK: tile.yield %{{.*}} : tensor<1x64xf32>
  %r = tile.unchecked "read back" -> tensor<1x64xf32> {
    %l = tile.load %p[%i, %c0] : !tile.partition<out, ?x64xf32, tile = [1, 64]> -> tensor<1x64xf32>
    tile.yield %l : tensor<1x64xf32>
  }
  tile.return
}

// Views of every element type; the inner `strides` are printed only when they
// are not row-major contiguous.
// CHECK-LABEL: tile.kernel @element_types
// CHECK-SAME: !tile.view<in, 4xi1>
// CHECK-SAME: !tile.view<in, 4xi8>
// CHECK-SAME: !tile.view<in, 4xi16>
// CHECK-SAME: !tile.view<in, 4xi64>
// CHECK-SAME: !tile.view<in, 4xf64>
// CHECK-SAME: !tile.view<inout, 4x8xf16, strides = [1, 4]>
// CHECK-SAME: !tile.view<in, ?x?x?xbf16>
tile.kernel @element_types(%a: !tile.view<in, 4xi1>, %b: !tile.view<in, 4xi8>,
                           %c: !tile.view<in, 4xi16>, %d: !tile.view<in, 4xi64>,
                           %e: !tile.view<in, 4xf64>,
                           %f: !tile.view<inout, 4x8xf16, strides = [1, 4]>,
                           %g: !tile.view<in, ?x?x?xbf16, strides = [?, ?, 1]>,
                           %i: index, %j: i64, %h: bf16) {
  tile.return
}

// CHECK-LABEL: tile.kernel @grid_and_assume
tile.kernel @grid_and_assume(%x: !tile.view<in, ?x?xf16, strides = [?, 1]>, %pos: i32) {
  %p = tile.partition %x : !tile.partition<in, ?x?xf16, strides = [?, 1], tile = [16, 64]>
  %m = tile.num_tiles %p, 0 : !tile.partition<in, ?x?xf16, strides = [?, 1], tile = [16, 64]>
  %n = tile.num_tiles %p, 1 : !tile.partition<in, ?x?xf16, strides = [?, 1], tile = [16, 64]>
  %mn = arith.muli %m, %n : index
  // CHECK: tile.grid %{{.*}}, %{{.*}}
  tile.grid %mn, %n
  %rows = tile.dim %x, 0 : !tile.view<in, ?x?xf16, strides = [?, 1]>
  %posi = arith.index_cast %pos : i32 to index
  %c4 = arith.constant 4 : index
  %end = arith.addi %posi, %c4 : index
  %fits = arith.cmpi ule, %end, %rows : index
  // CHECK: tile.assume %{{.*}}, "pos + 4 <= rows"
  tile.assume %fits, "pos + 4 <= rows"
  tile.return
}

// CHECK-LABEL: tile.kernel @prefetch
// CHECK: tile.prefetch %{{.*}}[%{{.*}}, %{{.*}}] : !tile.partition<in, ?x?xbf16, tile = [2, 512]>
tile.kernel @prefetch(%w: !tile.view<in, ?x?xbf16>) {
  %c0 = arith.constant 0 : index
  %pw = tile.partition %w : !tile.partition<in, ?x?xbf16, tile = [2, 512]>
  tile.prefetch %pw[%c0, %c0] : !tile.partition<in, ?x?xbf16, tile = [2, 512]>
  tile.return
}

// CHECK-LABEL: tile.kernel @atomic_add
// CHECK: tile.atomic_add %{{.*}}, %{{.*}}[%{{.*}}] : tensor<1xf32>, !tile.partition<add, ?xf32, tile = [1]>
tile.kernel @atomic_add(%ss: !tile.view<add, ?xf32>) {
  %c0 = arith.constant 0 : index
  %p = tile.partition %ss : !tile.partition<add, ?xf32, tile = [1]>
  %v = arith.constant dense<2.0> : tensor<1xf32>
  tile.atomic_add %v, %p[%c0] : tensor<1xf32>, !tile.partition<add, ?xf32, tile = [1]>
  tile.return
}

// A frozen view reads like an `in` one: partitions, loads, gathers,
// prefetches.
// CHECK-LABEL: tile.kernel @frozen
// CHECK-SAME: !tile.view<frozen, ?x1024xbf16>
// CHECK: tile.prefetch %{{.*}}[%{{.*}}, %{{.*}}] : !tile.partition<frozen, ?x1024xbf16, tile = [1, 256]>
// CHECK: tile.load %{{.*}}[%{{.*}}, %{{.*}}] : !tile.partition<frozen, ?x1024xbf16, tile = [1, 256]> -> tensor<1x256xbf16>
// CHECK: tile.gather %{{.*}}[%{{.*}}, %{{.*}}] : !tile.partition<frozen, ?x1024xbf16, tile = [1, 256]>, tensor<4xi32> -> tensor<4x256xbf16>
tile.kernel @frozen(%w: !tile.view<frozen, ?x1024xbf16>, %ids: !tile.view<in, 4xi32>) {
  %c0 = arith.constant 0 : index
  %p = tile.partition %w : !tile.partition<frozen, ?x1024xbf16, tile = [1, 256]>
  tile.prefetch %p[%c0, %c0] : !tile.partition<frozen, ?x1024xbf16, tile = [1, 256]>
  %row = tile.load %p[%c0, %c0] : !tile.partition<frozen, ?x1024xbf16, tile = [1, 256]> -> tensor<1x256xbf16>
  %pi = tile.partition %ids : !tile.partition<in, 4xi32, tile = [4]>
  %tok = tile.load %pi[%c0] : !tile.partition<in, 4xi32, tile = [4]> -> tensor<4xi32>
  %rows = tile.gather %p[%tok, %c0] : !tile.partition<frozen, ?x1024xbf16, tile = [1, 256]>, tensor<4xi32> -> tensor<4x256xbf16>
  tile.return
}

// A settled view reads like an `in` one too.
// CHECK-LABEL: tile.kernel @settled
// CHECK-SAME: !tile.view<settled, 1xi32>
// CHECK: tile.load %{{.*}}[%{{.*}}] : !tile.partition<settled, 1xi32, tile = [1]> -> tensor<1xi32>
// CHECK: tile.prefetch %{{.*}}[%{{.*}}, %{{.*}}] : !tile.partition<settled, ?x1024xbf16, tile = [1, 256]>
tile.kernel @settled(%pos: !tile.view<settled, 1xi32>, %w: !tile.view<settled, ?x1024xbf16>) {
  %c0 = arith.constant 0 : index
  %p = tile.partition %pos : !tile.partition<settled, 1xi32, tile = [1]>
  %v = tile.load %p[%c0] : !tile.partition<settled, 1xi32, tile = [1]> -> tensor<1xi32>
  %pw = tile.partition %w : !tile.partition<settled, ?x1024xbf16, tile = [1, 256]>
  tile.prefetch %pw[%c0, %c0] : !tile.partition<settled, ?x1024xbf16, tile = [1, 256]>
  tile.return
}

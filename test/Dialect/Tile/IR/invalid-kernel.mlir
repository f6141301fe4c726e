// Verifier rules of tile.kernel, its region, and the ops that structure it.
// RUN: tile-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{'tile.kernel' op returns no values: results leave a kernel only through stores into owned blocks}}
tile.kernel @returns_value() -> i32 { tile.return }

// -----

// expected-error @+1 {{'tile.kernel' op argument #0 has type 'tensor<4xf32>'; kernel arguments are views (!tile.view) or scalars}}
tile.kernel @tensor_arg(%t: tensor<4xf32>) { tile.return }

// -----

// No raw pointers: memory is reached through views only.
// expected-error @+1 {{'tile.kernel' op argument #0 has type 'memref<4xf32>'; kernel arguments are views (!tile.view) or scalars}}
tile.kernel @memref_arg(%m: memref<4xf32>) { tile.return }

// -----

// expected-error @+1 {{'tile.kernel' op argument #1 has type '!llvm.ptr'; kernel arguments are views (!tile.view) or scalars}}
tile.kernel @pointer_arg(%n: i32, %p: !llvm.ptr) { tile.return }

// -----

func.func @outside_kernel() {
  // expected-error @+1 {{'tile.program_id' op must be nested in a tile.kernel}}
  %0 = tile.program_id x
  return
}

// -----

func.func @return_outside_kernel() {
  // expected-error @+1 {{'tile.return' op expects parent op 'tile.kernel'}}
  tile.return
}

// -----

tile.kernel @yield_in_kernel() {
  // expected-error @+1 {{'tile.yield' op expects parent op to be one of 'tile.reduce, tile.unchecked, tile.join'}}
  tile.yield
}

// -----

tile.kernel @dynamic_tile(%n: index) {
  // expected-error @+1 {{'tensor.empty' op tile 'tensor<?xf32>' must have a static shape of rank >= 1}}
  %t = tensor.empty(%n) : tensor<?xf32>
  tile.return
}

// -----

tile.kernel @rank0_tile() {
  // expected-error @+1 {{'arith.constant' op tile 'tensor<f32>' must have a static shape of rank >= 1}}
  %t = arith.constant dense<1.0> : tensor<f32>
  tile.return
}

// -----

tile.kernel @huge_tile() {
  // expected-error @+1 {{'arith.constant' op tile 'tensor<2048x1024xf32>' has 2097152 elements; the limit is 1048576}}
  %t = arith.constant dense<1.0> : tensor<2048x1024xf32>
  tile.return
}

// -----

tile.kernel @bad_tile_element() {
  // expected-error @+1 {{'arith.constant' op tile 'tensor<4xi4>' has unsupported element type 'i4'}}
  %t = arith.constant dense<1> : tensor<4xi4>
  tile.return
}

// -----

tile.kernel @memref_value() {
  // expected-error @+1 {{'memref.alloca' op produces memref 'memref<4xf32>'; raw memory is reachable only inside tile.unchecked}}
  %m = memref.alloca() : memref<4xf32>
  tile.return
}

// -----

tile.kernel @pointer_value() {
  // expected-error @+1 {{'llvm.mlir.zero' op produces pointer-like '!llvm.ptr'; raw memory is reachable only inside tile.unchecked}}
  %p = llvm.mlir.zero : !llvm.ptr
  tile.return
}

// -----

// Inside tile.unchecked, raw memory is allowed (and counted).
tile.kernel @memref_in_unchecked() {
  tile.unchecked "scratch buffer" {
    %m = memref.alloca() : memref<4xf32>
  }
  tile.return
}

// -----

tile.kernel @view_through_control_flow(%a: !tile.view<in, 4xf16>, %b: !tile.view<in, 4xf16>, %c: i1) {
  // expected-error @+1 {{'scf.if' op creates a view; views are kernel arguments only}}
  %v = scf.if %c -> !tile.view<in, 4xf16> {
    scf.yield %a : !tile.view<in, 4xf16>
  } else {
    scf.yield %b : !tile.view<in, 4xf16>
  }
  tile.return
}

// -----

tile.kernel @partition_through_if(%a: !tile.view<in, 4xf16>, %c: i1) {
  %p = tile.partition %a : !tile.partition<in, 4xf16, tile = [4]>
  // expected-error @+1 {{'scf.if' op yields a '!tile.partition<in, 4xf16, tile = [4]>' through control flow; create partitions and owned blocks with tile.partition and tile.own where they are used}}
  %q = scf.if %c -> !tile.partition<in, 4xf16, tile = [4]> {
    scf.yield %p : !tile.partition<in, 4xf16, tile = [4]>
  } else {
    scf.yield %p : !tile.partition<in, 4xf16, tile = [4]>
  }
  tile.return
}

// -----

tile.kernel @owned_loop_carried(%y: !tile.view<out, 8x4xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %p = tile.partition %y : !tile.partition<out, 8x4xf16, tile = [1, 4]>
  %b = tile.own %p[%c0, %c0] : !tile.partition<out, 8x4xf16, tile = [1, 4]>
  // expected-error @+1 {{'scf.for' op yields a '!tile.owned<out, 1x4xf16>' through control flow}}
  %r = scf.for %i = %c0 to %c8 step %c1 iter_args(%it = %b) -> !tile.owned<out, 1x4xf16> {
    scf.yield %it : !tile.owned<out, 1x4xf16>
  }
  tile.return
}

// -----

tile.kernel @owned_block_argument(%y: !tile.view<out, 8x4xf16>) {
  %c0 = arith.constant 0 : index
  %p = tile.partition %y : !tile.partition<out, 8x4xf16, tile = [1, 4]>
  %b = tile.own %p[%c0, %c0] : !tile.partition<out, 8x4xf16, tile = [1, 4]>
  // expected-error @+1 {{'scf.execute_region' op region argument #0: yields a '!tile.owned<out, 1x4xf16>' through control flow}}
  scf.execute_region {
    cf.br ^bb1(%b : !tile.owned<out, 1x4xf16>)
  ^bb1(%a: !tile.owned<out, 1x4xf16>):
    scf.yield
  }
  tile.return
}

// -----

tile.kernel @unchecked_without_reason() {
  // expected-error @+1 {{'tile.unchecked' op needs a non-empty reason}}
  tile.unchecked " " {
  }
  tile.return
}

// -----

tile.kernel @unchecked_yield_types(%s: f32) {
  // expected-error @+1 {{'tile.unchecked' op yields 1 values whose types do not match its results}}
  %r = tile.unchecked "why" -> i32 {
    tile.yield %s : f32
  }
  tile.return
}

// -----

tile.kernel @grid_arity(%n: index) {
  // expected-error @+1 {{'tile.grid' op takes 1 to 3 extents (x, y, z), got 4}}
  tile.grid %n, %n, %n, %n
  tile.return
}

// -----

tile.kernel @two_grids(%n: index) {
  // expected-error @+1 {{'tile.grid' op appears 2 times in kernel @two_grids; a kernel has one launch grid}}
  tile.grid %n
  tile.grid %n
  tile.return
}

// -----

tile.kernel @grid_from_program_id(%n: index) {
  // expected-note @+1 {{depends on this 'tile.program_id'}}
  %p = tile.program_id x
  %g = arith.addi %p, %n : index
  // expected-error @+1 {{'tile.grid' op extent #0 must be computable on the host from the launch arguments (constants, scalar arguments, tile.dim, tile.num_tiles, integer arith)}}
  tile.grid %g
  tile.return
}

// -----

tile.kernel @grid_in_loop(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    // expected-error @+1 {{'tile.grid' op expects parent op 'tile.kernel'}}
    tile.grid %i
  }
  tile.return
}

// -----

tile.kernel @assume_on_device_data(%x: !tile.view<in, 4xi32>) {
  %c0 = arith.constant 0 : index
  %p = tile.partition %x : !tile.partition<in, 4xi32, tile = [4]>
  %t = tile.load %p[%c0] : !tile.partition<in, 4xi32, tile = [4]> -> tensor<4xi32>
  // expected-note @+1 {{depends on this 'tile.extract'}}
  %v = tile.extract %t [0] : tensor<4xi32>
  %c0i = arith.constant 0 : i32
  %ok = arith.cmpi sge, %v, %c0i : i32
  // expected-error @+1 {{'tile.assume' op the condition must be computable on the host from the launch arguments}}
  tile.assume %ok, "data in device memory is not known at launch"
  tile.return
}

// -----

tile.kernel @assume_without_message(%n: index) {
  %c0 = arith.constant 0 : index
  %ok = arith.cmpi sge, %n, %c0 : index
  // expected-error @+1 {{'tile.assume' op needs a message saying what is assumed}}
  tile.assume %ok, ""
  tile.return
}

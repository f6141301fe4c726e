// The invalid half of the ownership corpus: each kernel has a race or an
// out-of-bounds access that tile-verify-ownership (or an op verifier it
// builds on) must reject, with a diagnostic that names the programs, the
// region and the launch values. Aliasing between arguments, which only the
// launch contract can catch, is tested in test/unittests (LaunchContract*).
// RUN: tile-opt %s -split-input-file --tile-verify-ownership -verify-diagnostics -o /dev/null

// Every program claims block 0.
tile.kernel @all_claim_block_zero(%y: !tile.view<out, ?x64xf32>, %s: f32) {
  %c0 = arith.constant 0 : index
  %p = tile.partition %y : !tile.partition<out, ?x64xf32, tile = [1, 64]>
  %n = tile.num_tiles %p, 0 : !tile.partition<out, ?x64xf32, tile = [1, 64]>
  tile.grid %n
  // expected-error @+1 {{programs (0) and (1) both own elements [0, 1) x [0, 64) of %arg0 (with grid = (2), dim(%arg0, 0) = 2)}}
  %b = tile.own %p[%c0, %c0] : !tile.partition<out, ?x64xf32, tile = [1, 64]>
  tile.return
}

// -----

// One program too many.
tile.kernel @off_by_one_grid(%y: !tile.view<out, ?x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pid = tile.program_id x
  %p = tile.partition %y : !tile.partition<out, ?x64xf32, tile = [1, 64]>
  %n = tile.num_tiles %p, 0 : !tile.partition<out, ?x64xf32, tile = [1, 64]>
  %n1 = arith.addi %n, %c1 : index
  tile.grid %n1
  // expected-error @+1 {{program (1) claims tile index 1 along dim 0 of %arg0, outside its index space [0, 1) (with grid = (2), dim(%arg0, 0) = 1)}}
  %b = tile.own %p[%pid, %c0] : !tile.partition<out, ?x64xf32, tile = [1, 64]>
  tile.return
}

// -----

// Off by one in the map: the last program claims past the end.
tile.kernel @claim_pid_plus_one(%y: !tile.view<out, ?x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pid = tile.program_id x
  %p = tile.partition %y : !tile.partition<out, ?x64xf32, tile = [1, 64]>
  %n = tile.num_tiles %p, 0 : !tile.partition<out, ?x64xf32, tile = [1, 64]>
  tile.grid %n
  %i = arith.addi %pid, %c1 : index
  // expected-error @+1 {{program (0) claims tile index 1 along dim 0 of %arg0, outside its index space [0, 1) (with grid = (1), dim(%arg0, 0) = 1)}}
  %b = tile.own %p[%i, %c0] : !tile.partition<out, ?x64xf32, tile = [1, 64]>
  tile.return
}

// -----

// pid / 2: two programs per block.
tile.kernel @half_map(%y: !tile.view<out, ?x64xf32>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %pid = tile.program_id x
  %p = tile.partition %y : !tile.partition<out, ?x64xf32, tile = [1, 64]>
  %n = tile.num_tiles %p, 0 : !tile.partition<out, ?x64xf32, tile = [1, 64]>
  tile.grid %n
  %i = arith.divui %pid, %c2 : index
  // expected-error @+1 {{programs (0) and (1) both own elements [0, 1) x [0, 64) of %arg0 (with grid = (2), dim(%arg0, 0) = 2)}}
  %b = tile.own %p[%i, %c0] : !tile.partition<out, ?x64xf32, tile = [1, 64]>
  tile.return
}

// -----

// pid % 4 wraps around once there are more than 4 programs.
tile.kernel @modulo_map(%y: !tile.view<out, ?x64xf32>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %pid = tile.program_id x
  %p = tile.partition %y : !tile.partition<out, ?x64xf32, tile = [1, 64]>
  %n = tile.num_tiles %p, 0 : !tile.partition<out, ?x64xf32, tile = [1, 64]>
  tile.grid %n
  %i = arith.remui %pid, %c4 : index
  // expected-error @+1 {{programs (3) and (7) both own elements [3, 4) x [0, 64) of %arg0 (with grid = (8), dim(%arg0, 0) = 8)}}
  %b = tile.own %p[%i, %c0] : !tile.partition<out, ?x64xf32, tile = [1, 64]>
  tile.return
}

// -----

// A 2-D grid whose claim ignores pid.y.
tile.kernel @grid_2d_ignores_y(%y: !tile.view<out, ?x?xf32, strides = [?, 1]>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %px = tile.program_id x
  %p = tile.partition %y : !tile.partition<out, ?x?xf32, strides = [?, 1], tile = [16, 16]>
  %n = tile.num_tiles %p, 0 : !tile.partition<out, ?x?xf32, strides = [?, 1], tile = [16, 16]>
  tile.grid %n, %c2
  // expected-error @+1 {{programs (0, 0) and (0, 1) both own elements [0, 16) x [0, 16) of %arg0}}
  %b = tile.own %p[%px, %c0] : !tile.partition<out, ?x?xf32, strides = [?, 1], tile = [16, 16]>
  tile.return
}

// -----

// Program (x, y) claims (x, x): every row of programs collides.
tile.kernel @diagonal_claim(%y: !tile.view<out, 64x64xf32>) {
  %c4 = arith.constant 4 : index
  %px = tile.program_id x
  %p = tile.partition %y : !tile.partition<out, 64x64xf32, tile = [16, 16]>
  tile.grid %c4, %c4
  // expected-error @+1 {{programs (1, 0) and (1, 1) both own elements [16, 32) x [16, 32) of %arg0 (with grid = (4, 4))}}
  %b = tile.own %p[%px, %px] : !tile.partition<out, 64x64xf32, tile = [16, 16]>
  tile.return
}

// -----

// A grouped tile order with the wrong divisor for the column: not a
// bijection (columns (pid % 256) / 4 reach 63 > 31 and collide).
tile.kernel @bad_swizzle(%c: !tile.view<out, ?x4096xf16>) {
  %pid = tile.program_id x
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  %c256 = arith.constant 256 : index
  %pc = tile.partition %c : !tile.partition<out, ?x4096xf16, tile = [128, 128]>
  %tm = tile.num_tiles %pc, 0 : !tile.partition<out, ?x4096xf16, tile = [128, 128]>
  %r = arith.remui %tm, %c8 : index
  %whole = arith.cmpi eq, %r, %c0 : index
  tile.assume %whole, "row tiles come in whole groups of 8"
  %total = arith.muli %tm, %c32 : index
  tile.grid %total
  %group = arith.divui %pid, %c256 : index
  %first = arith.muli %group, %c8 : index
  %inm = arith.remui %pid, %c8 : index
  %m = arith.addi %first, %inm : index
  %ing = arith.remui %pid, %c256 : index
  %n = arith.divui %ing, %c4 : index
  // expected-error @+1 {{along dim 1 of %arg0, outside its index space [0, 32)}}
  %blk = tile.own %pc[%m, %n] : !tile.partition<out, ?x4096xf16, tile = [128, 128]>
  tile.return
}

// -----

// Two partitions of one view with different tiles: program i claims row i
// of the first and rows [2i, 2i+2) of the second.
tile.kernel @overlapping_partitions(%y: !tile.view<out, 64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %pid = tile.program_id x
  tile.grid %c32
  %p1 = tile.partition %y : !tile.partition<out, 64x64xf32, tile = [1, 64]>
  %p2 = tile.partition %y : !tile.partition<out, 64x64xf32, tile = [2, 64]>
  // expected-error @+1 {{programs (1) and (0) both own elements [1, 2) x [0, 64) of %arg0 (with grid = (32))}}
  %a = tile.own %p1[%pid, %c0] : !tile.partition<out, 64x64xf32, tile = [1, 64]>
  // expected-note @+1 {{the other claim}}
  %b = tile.own %p2[%pid, %c0] : !tile.partition<out, 64x64xf32, tile = [2, 64]>
  tile.return
}

// -----

// Each program claims its block and the next one.
tile.kernel @claims_next_block(%y: !tile.view<out, 64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c63 = arith.constant 63 : index
  %pid = tile.program_id x
  tile.grid %c63
  %p = tile.partition %y : !tile.partition<out, 64x64xf32, tile = [1, 64]>
  %next = arith.addi %pid, %c1 : index
  // expected-error @+1 {{programs (1) and (0) both own elements [1, 2) x [0, 64) of %arg0 (with grid = (63))}}
  %a = tile.own %p[%pid, %c0] : !tile.partition<out, 64x64xf32, tile = [1, 64]>
  // expected-note @+1 {{the other claim}}
  %b = tile.own %p[%next, %c0] : !tile.partition<out, 64x64xf32, tile = [1, 64]>
  tile.return
}

// -----

// Claims in a loop that overlap the next program's.
tile.kernel @overlapping_loop_claims(%y: !tile.view<out, ?x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %pid = tile.program_id x
  %p = tile.partition %y : !tile.partition<out, ?x64xf32, tile = [1, 64]>
  %n = tile.num_tiles %p, 0 : !tile.partition<out, ?x64xf32, tile = [1, 64]>
  %g = arith.subi %n, %c1 : index
  tile.grid %g
  scf.for %i = %c0 to %c2 step %c1 {
    %r = arith.addi %pid, %i : index
    // expected-error @+1 {{programs (1) and (2) both own elements [2, 3) x [0, 64) of %arg0 (with grid = (3), dim(%arg0, 0) = 4)}}
    %b = tile.own %p[%r, %c0] : !tile.partition<out, ?x64xf32, tile = [1, 64]>
  }
  tile.return
}

// -----

// The sub-tile loop runs one step too far, into the next program's block.
tile.kernel @subtile_loop_off_by_one(%y: !tile.view<out, ?x256xf32>, %s: f32) {
  %pid = tile.program_id x
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c5 = arith.constant 5 : index
  %py = tile.partition %y : !tile.partition<out, ?x256xf32, tile = [64, 256]>
  %n = tile.num_tiles %py, 0 : !tile.partition<out, ?x256xf32, tile = [64, 256]>
  tile.grid %n
  %blk = tile.own %py[%pid, %c0] : !tile.partition<out, ?x256xf32, tile = [64, 256]>
  %v = tile.splat %s : tensor<64x64xf32>
  scf.for %j = %c0 to %c5 step %c1 {
    // expected-error @+1 {{sub-tile index along dim 1 can be 4, outside the owned block's [0, 4) (in program (0), with grid = (1), dim(%arg0, 0) = 1); a sub-tile outside the block belongs to another program}}
    tile.store %v, %blk[%c0, %j] : tensor<64x64xf32>, !tile.owned<out, 64x256xf32>
  }
  tile.return
}

// -----

// A sub-tile index taken from the program id is unbounded in the block.
tile.kernel @subtile_from_pid(%y: !tile.view<out, 4x256xf32>, %s: f32) {
  %pid = tile.program_id x
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  tile.grid %c4
  %py = tile.partition %y : !tile.partition<out, 4x256xf32, tile = [1, 256]>
  %blk = tile.own %py[%pid, %c0] : !tile.partition<out, 4x256xf32, tile = [1, 256]>
  %v = tile.splat %s : tensor<1x128xf32>
  // expected-error @+1 {{sub-tile index along dim 1 can be 2, outside the owned block's [0, 2) (in program (2), with grid = (4))}}
  tile.store %v, %blk[%c0, %pid] : tensor<1x128xf32>, !tile.owned<out, 1x256xf32>
  tile.return
}

// -----

// j - 1 reaches -1: the previous program's block.
tile.kernel @subtile_negative(%y: !tile.view<inout, ?x256xf32>) {
  %pid = tile.program_id x
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %py = tile.partition %y : !tile.partition<inout, ?x256xf32, tile = [1, 256]>
  %n = tile.num_tiles %py, 0 : !tile.partition<inout, ?x256xf32, tile = [1, 256]>
  tile.grid %n
  %blk = tile.own %py[%pid, %c0] : !tile.partition<inout, ?x256xf32, tile = [1, 256]>
  scf.for %j = %c0 to %c4 step %c1 {
    %jm = arith.subi %j, %c1 : index
    // expected-error @+1 {{sub-tile index along dim 1 can be -1, outside the owned block's [0, 4)}}
    %t = tile.load %blk[%c0, %jm] : !tile.owned<inout, 1x256xf32> -> tensor<1x64xf32>
  }
  tile.return
}

// -----

// Nested sub-tiles with the bound of a finer split: 8 steps of 32 columns
// in a block that holds 4 sub-tiles of 64.
tile.kernel @nested_subtile_wrong_bound(%y: !tile.view<out, 128x256xf32>, %s: f32) {
  %pid = tile.program_id x
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  tile.grid %c2
  %py = tile.partition %y : !tile.partition<out, 128x256xf32, tile = [64, 256]>
  %blk = tile.own %py[%pid, %c0] : !tile.partition<out, 128x256xf32, tile = [64, 256]>
  %v = tile.splat %s : tensor<32x64xf32>
  scf.for %i = %c0 to %c2 step %c1 {
    scf.for %j = %c0 to %c8 step %c1 {
      // expected-error @+1 {{sub-tile index along dim 1 can be 4, outside the owned block's [0, 4)}}
      tile.store %v, %blk[%i, %j] : tensor<32x64xf32>, !tile.owned<out, 64x256xf32>
    }
  }
  tile.return
}

// -----

// Without tile.grid, program ids are unbounded.
tile.kernel @no_grid(%y: !tile.view<out, ?x64xf32>) {
  %c0 = arith.constant 0 : index
  %pid = tile.program_id x
  %p = tile.partition %y : !tile.partition<out, ?x64xf32, tile = [1, 64]>
  // expected-error @+2 {{program (1, 0, 0) claims tile index 1 along dim 0 of %arg0, outside its index space [0, 1) (with grid = (2, 1, 1), dim(%arg0, 0) = 1); the kernel declares no tile.grid, so program ids are unbounded: declare the launch grid}}
  // expected-error @+1 {{programs (1, 0, 0) and (1, 1, 0) both own elements [1, 2) x [0, 64) of %arg0 (with grid = (2, 2, 1))}}
  %b = tile.own %p[%pid, %c0] : !tile.partition<out, ?x64xf32, tile = [1, 64]>
  tile.return
}

// -----

// A KV-cache write at a scalar position with no bound on it.
tile.kernel @kv_write_unbounded_pos(%cache: !tile.view<inout, ?x8x128xf16>, %pos: i32) {
  %h = tile.program_id x
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  tile.grid %c8
  %p = arith.index_cast %pos : i32 to index
  %pc = tile.partition %cache : !tile.partition<inout, ?x8x128xf16, tile = [1, 1, 128]>
  // expected-error @+1 {{program (1) claims tile index -1 along dim 0 of %arg0, outside its index space [0, 1) (with grid = (8), dim(%arg0, 0) = 1, %arg1 = -1)}}
  %b = tile.own %pc[%p, %h, %c0] : !tile.partition<inout, ?x8x128xf16, tile = [1, 1, 128]>
  tile.return
}

// -----

// A position read from device memory without a clamp is not known to be in
// range.
tile.kernel @kv_write_device_pos_unclamped(%cache: !tile.view<inout, 4096x8x128xf16>, %posbuf: !tile.view<in, 1xi32>) {
  %h = tile.program_id x
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  tile.grid %c8
  %pp = tile.partition %posbuf : !tile.partition<in, 1xi32, tile = [1]>
  %pt = tile.load %pp[%c0] : !tile.partition<in, 1xi32, tile = [1]> -> tensor<1xi32>
  %pv = tile.extract %pt [0] : tensor<1xi32>
  %p = arith.index_cast %pv : i32 to index
  %pc = tile.partition %cache : !tile.partition<inout, 4096x8x128xf16, tile = [1, 1, 128]>
  // expected-error @+1 {{claims tile index -1 along dim 0 of %arg0, outside its index space [0, 4096)}}
  %b = tile.own %pc[%p, %h, %c0] : !tile.partition<inout, 4096x8x128xf16, tile = [1, 1, 128]>
  tile.return
}

// -----

// A claim at a data-dependent, per-program index (a scatter): two programs
// may read the same id.
tile.kernel @data_dependent_claim(%ids: !tile.view<in, 16xi32>, %y: !tile.view<out, 16x64xf32>) {
  %pid = tile.program_id x
  %c0 = arith.constant 0 : index
  %c15 = arith.constant 15 : index
  %c16 = arith.constant 16 : index
  tile.grid %c16
  %pi = tile.partition %ids : !tile.partition<in, 16xi32, tile = [1]>
  %t = tile.load %pi[%pid] : !tile.partition<in, 16xi32, tile = [1]> -> tensor<1xi32>
  %v = tile.extract %t [0] : tensor<1xi32>
  %r0 = arith.index_cast %v : i32 to index
  %r1 = arith.maxsi %r0, %c0 : index
  %r = arith.minsi %r1, %c15 : index
  %p = tile.partition %y : !tile.partition<out, 16x64xf32, tile = [1, 64]>
  // expected-error @+1 {{programs (0) and (1) both own elements [0, 1) x [0, 64) of %arg1 (with grid = (16), 'tile.extract' (not affine)@A = 0, 'arith.maxsi' (min/max)@A = 0, 'arith.minsi' (min/max)@A = 0, 'tile.extract' (not affine)@B = 0, 'arith.maxsi' (min/max)@B = 0, 'arith.minsi' (min/max)@B = 0)}}
  %b = tile.own %p[%r, %c0] : !tile.partition<out, 16x64xf32, tile = [1, 64]>
  tile.return
}

// -----

// min(pid, 3): every program from 3 on claims block 3.
tile.kernel @clamp_collision(%y: !tile.view<out, ?x64xf32>) {
  %pid = tile.program_id x
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %p = tile.partition %y : !tile.partition<out, ?x64xf32, tile = [1, 64]>
  %n = tile.num_tiles %p, 0 : !tile.partition<out, ?x64xf32, tile = [1, 64]>
  tile.grid %n
  %i = arith.minsi %pid, %c3 : index
  // expected-error @+1 {{programs (3) and (4) both own elements [3, 4) x [0, 64) of %arg0 (with grid = (5), dim(%arg0, 0) = 5, 'arith.minsi' (min/max)@A = 3, 'arith.minsi' (min/max)@B = 3)}}
  %b = tile.own %p[%i, %c0] : !tile.partition<out, ?x64xf32, tile = [1, 64]>
  tile.return
}

// -----

// select(c, pid, 0): programs that take the else branch all claim block 0.
tile.kernel @select_collision(%y: !tile.view<out, ?x64xf32>, %flag: i1) {
  %pid = tile.program_id x
  %c0 = arith.constant 0 : index
  %p = tile.partition %y : !tile.partition<out, ?x64xf32, tile = [1, 64]>
  %n = tile.num_tiles %p, 0 : !tile.partition<out, ?x64xf32, tile = [1, 64]>
  tile.grid %n
  %i = arith.select %flag, %pid, %c0 : index
  // The select is one of its operands, both inside the index space.
  // expected-error @+1 {{programs (0) and (1) both own elements [0, 1) x [0, 64) of %arg0 (with grid = (2), dim(%arg0, 0) = 2, 'arith.select' (select)@A = 0, 'arith.select' (select)@B = 0)}}
  %b = tile.own %p[%i, %c0] : !tile.partition<out, ?x64xf32, tile = [1, 64]>
  tile.return
}

// -----

// 2*pid skips every other block and runs past the end.
tile.kernel @stride_two_runs_past_end(%y: !tile.view<out, ?x64xf32>) {
  %pid = tile.program_id x
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %p = tile.partition %y : !tile.partition<out, ?x64xf32, tile = [1, 64]>
  %n = tile.num_tiles %p, 0 : !tile.partition<out, ?x64xf32, tile = [1, 64]>
  tile.grid %n
  %i = arith.muli %pid, %c2 : index
  // expected-error @+1 {{program (1) claims tile index 2 along dim 0 of %arg0, outside its index space [0, 2) (with grid = (2), dim(%arg0, 0) = 2)}}
  %b = tile.own %p[%i, %c0] : !tile.partition<out, ?x64xf32, tile = [1, 64]>
  tile.return
}

// -----

// Off by one along y of a 2-D grid.
tile.kernel @grid_y_off_by_one(%y: !tile.view<out, ?x?xf32, strides = [?, 1]>) {
  %i = tile.program_id x
  %j = tile.program_id y
  %c1 = arith.constant 1 : index
  %p = tile.partition %y : !tile.partition<out, ?x?xf32, strides = [?, 1], tile = [16, 16]>
  %ni = tile.num_tiles %p, 0 : !tile.partition<out, ?x?xf32, strides = [?, 1], tile = [16, 16]>
  %nj = tile.num_tiles %p, 1 : !tile.partition<out, ?x?xf32, strides = [?, 1], tile = [16, 16]>
  %nj1 = arith.addi %nj, %c1 : index
  tile.grid %ni, %nj1
  // expected-error @+1 {{program (0, 1) claims tile index 1 along dim 1 of %arg0, outside its index space [0, 1) (with grid = (1, 2), dim(%arg0, 0) = 1, dim(%arg0, 1) = 1)}}
  %b = tile.own %p[%i, %j] : !tile.partition<out, ?x?xf32, strides = [?, 1], tile = [16, 16]>
  tile.return
}

// -----

// The grid follows %y, but %z may have fewer rows: a missing tile.assume.
tile.kernel @second_output_shorter(%y: !tile.view<out, ?x64xf32>, %z: !tile.view<out, ?x64xf32>) {
  %pid = tile.program_id x
  %c0 = arith.constant 0 : index
  %py = tile.partition %y : !tile.partition<out, ?x64xf32, tile = [1, 64]>
  %pz = tile.partition %z : !tile.partition<out, ?x64xf32, tile = [1, 64]>
  %n = tile.num_tiles %py, 0 : !tile.partition<out, ?x64xf32, tile = [1, 64]>
  tile.grid %n
  %a = tile.own %py[%pid, %c0] : !tile.partition<out, ?x64xf32, tile = [1, 64]>
  // expected-error @+1 {{program (1) claims tile index 1 along dim 0 of %arg1, outside its index space [0, 1) (with grid = (2), dim(%arg0, 0) = 2, dim(%arg1, 0) = 1)}}
  %b = tile.own %pz[%pid, %c0] : !tile.partition<out, ?x64xf32, tile = [1, 64]>
  tile.return
}

// -----

// Writing an `in` view: rejected even inside tile.unchecked.
tile.kernel @store_into_input(%x: !tile.view<in, ?x64xf32>, %s: f32) {
  %c0 = arith.constant 0 : index
  %v = tile.splat %s : tensor<1x64xf32>
  %p = tile.partition %x : !tile.partition<in, ?x64xf32, tile = [1, 64]>
  tile.unchecked "write the input" {
    // expected-error @+1 {{'tile.store' op cannot store into an 'in' partition: shared views are read-only}}
    tile.store %v, %p[%c0, %c0] : tensor<1x64xf32>, !tile.partition<in, ?x64xf32, tile = [1, 64]>
  }
  tile.return
}

// -----

// Claiming a block of an input.
tile.kernel @own_input(%x: !tile.view<in, ?x64xf32>) {
  %c0 = arith.constant 0 : index
  %p = tile.partition %x : !tile.partition<in, ?x64xf32, tile = [1, 64]>
  // expected-error @+1 {{'tile.own' op cannot own a block of an 'in' partition: shared views are read-only}}
  %b = tile.own %p[%c0, %c0] : !tile.partition<in, ?x64xf32, tile = [1, 64]>
  tile.return
}

// -----

// Reading another program's output block.
tile.kernel @read_other_output(%y: !tile.view<out, ?x64xf32>) {
  %pid = tile.program_id x
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %p = tile.partition %y : !tile.partition<out, ?x64xf32, tile = [1, 64]>
  %next = arith.addi %pid, %c1 : index
  // expected-error @+1 {{'tile.load' op cannot load from an 'out' partition: 'out' views are write-only, and their blocks belong to other programs}}
  %t = tile.load %p[%next, %c0] : !tile.partition<out, ?x64xf32, tile = [1, 64]> -> tensor<1x64xf32>
  tile.return
}

// -----

// Reading an inout view through the partition (another program's data).
tile.kernel @read_inout_partition(%y: !tile.view<inout, ?x64xf32>) {
  %pid = tile.program_id x
  %c0 = arith.constant 0 : index
  %p = tile.partition %y : !tile.partition<inout, ?x64xf32, tile = [1, 64]>
  // expected-error @+1 {{'tile.load' op cannot load from an 'inout' partition directly: read an inout view only through the block this program owns (tile.own)}}
  %t = tile.load %p[%pid, %c0] : !tile.partition<inout, ?x64xf32, tile = [1, 64]> -> tensor<1x64xf32>
  tile.return
}

// -----

// A claim carried through a loop hides which block a store goes to.
tile.kernel @loop_carried_claim(%y: !tile.view<out, 8x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %p = tile.partition %y : !tile.partition<out, 8x64xf32, tile = [1, 64]>
  %b = tile.own %p[%c0, %c0] : !tile.partition<out, 8x64xf32, tile = [1, 64]>
  // expected-error @+1 {{'scf.for' op yields a '!tile.owned<out, 1x64xf32>' through control flow}}
  %r = scf.for %i = %c0 to %c8 step %c1 iter_args(%it = %b) -> !tile.owned<out, 1x64xf32> {
    scf.yield %it : !tile.owned<out, 1x64xf32>
  }
  tile.return
}

// Index arithmetic in narrow integers: the generated code computes an iN op
// modulo 2^N, so the proof takes its exact result only where that result is
// proven to fit iN (or, inside tile.grid and tile.assume, where the launch
// contract checks it); otherwise the value is unknown, bounded by its type,
// and a failed proof names the op that may wrap.
// RUN: tile-opt %s -split-input-file --tile-verify-ownership=report=true -verify-diagnostics | FileCheck %s

// i32 row arithmetic under a declared grid of 64: 2 * pid + 1 < 2^31, so the
// model is exact and the claims are disjoint and in bounds.
// CHECK-LABEL: tile.kernel @i32_rows_small_grid
// expected-remark @+1 {{kernel @i32_rows_small_grid: 2 claims, 3 claim pairs proven disjoint, 2 claims in bounds}}
tile.kernel @i32_rows_small_grid(%y: !tile.view<out, 128x64xf32>) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %one = arith.constant 1 : i32
  %two = arith.constant 2 : i32
  tile.grid %c64
  %pid = tile.program_id x
  %p = tile.partition %y : !tile.partition<out, 128x64xf32, tile = [1, 64]>
  %p32 = arith.index_cast %pid : index to i32
  %even = arith.muli %p32, %two : i32
  %odd = arith.addi %even, %one : i32
  %r0 = arith.index_cast %even : i32 to index
  %r1 = arith.index_cast %odd : i32 to index
  %b0 = tile.own %p[%r0, %c0] : !tile.partition<out, 128x64xf32, tile = [1, 64]>
  %b1 = tile.own %p[%r1, %c0] : !tile.partition<out, 128x64xf32, tile = [1, 64]>
  tile.return
}

// -----

// The same rows for a grid sized by the view: 2 * pid may pass 2^31 and
// wrap to a negative row. Still injective (2 * pid < 2^32): no collision.
tile.kernel @i32_rows_large_grid(%y: !tile.view<out, ?x64xf32>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %one = arith.constant 1 : i32
  %two = arith.constant 2 : i32
  %p = tile.partition %y : !tile.partition<out, ?x64xf32, tile = [1, 64]>
  %n = tile.num_tiles %p, 0 : !tile.partition<out, ?x64xf32, tile = [1, 64]>
  %g = arith.divui %n, %c2 : index
  tile.grid %g
  %pid = tile.program_id x
  %p32 = arith.index_cast %pid : index to i32
  // expected-note @+1 {{this i32 'arith.muli' may wrap: its exact result is not proven to fit i32 [-2147483648, 2147483647], so the proof takes its value modulo 2^32}}
  %even = arith.muli %p32, %two : i32
  %r0 = arith.index_cast %even : i32 to index
  // expected-error @+1 {{program (2147483646) claims tile index -4 along dim 0 of %arg0, outside its index space [0, 4294967294) (with grid = (2147483647), dim(%arg0, 0) = 4294967294, 'arith.muli' (may wrap in i32)@A = -4)}}
  %b0 = tile.own %p[%r0, %c0] : !tile.partition<out, ?x64xf32, tile = [1, 64]>
  tile.return
}

// -----

// A narrowing cast of the program id: an index -> i16 cast of up to 2^31
// programs wraps.
tile.kernel @i16_cast_wraps(%y: !tile.view<out, ?x64xf32>) {
  %c0 = arith.constant 0 : index
  %p = tile.partition %y : !tile.partition<out, ?x64xf32, tile = [1, 64]>
  %n = tile.num_tiles %p, 0 : !tile.partition<out, ?x64xf32, tile = [1, 64]>
  tile.grid %n
  %pid = tile.program_id x
  // expected-note @+1 {{this i16 'arith.index_cast' may wrap}}
  %p16 = arith.index_cast %pid : index to i16
  %r = arith.extsi %p16 : i16 to i64
  %i = arith.index_cast %r : i64 to index
  // expected-error @+2 {{program (65535) claims tile index -1 along dim 0 of %arg0, outside its index space [0, 65536) (with grid = (65536), dim(%arg0, 0) = 65536, 'arith.index_cast' (may wrap in i16)@A = -1)}}
  // expected-error @+1 {{programs (32767) and (98303) both own elements [32767, 32768) x [0, 64) of %arg0}}
  %b = tile.own %p[%i, %c0] : !tile.partition<out, ?x64xf32, tile = [1, 64]>
  tile.return
}

// -----

// The same cast under a grid of at most 32767 programs (assumed, so checked
// at launch) cannot wrap: the row is exact.
// CHECK-LABEL: tile.kernel @i16_cast_bounded_grid
// expected-remark @+1 {{kernel @i16_cast_bounded_grid: 1 claims, 1 claim pairs proven disjoint, 1 claims in bounds}}
tile.kernel @i16_cast_bounded_grid(%y: !tile.view<out, ?x64xf32>) {
  %c0 = arith.constant 0 : index
  %cmax = arith.constant 32767 : index
  %p = tile.partition %y : !tile.partition<out, ?x64xf32, tile = [1, 64]>
  %n = tile.num_tiles %p, 0 : !tile.partition<out, ?x64xf32, tile = [1, 64]>
  tile.grid %n
  %small = arith.cmpi ule, %n, %cmax : index
  tile.assume %small, "at most 32767 rows"
  %pid = tile.program_id x
  %p16 = arith.index_cast %pid : index to i16
  %r = arith.extsi %p16 : i16 to i32
  %i = arith.index_cast %r : i32 to index
  %b = tile.own %p[%i, %c0] : !tile.partition<out, ?x64xf32, tile = [1, 64]>
  tile.return
}

// -----

// i8 truncation, unsigned division and remainder, zero extension: 100
// programs fit i8, pid = 4 * q + r exactly, and the claims are disjoint.
// CHECK-LABEL: tile.kernel @i8_divui_remui
// expected-remark @+1 {{kernel @i8_divui_remui: 1 claims, 1 claim pairs proven disjoint, 1 claims in bounds}}
tile.kernel @i8_divui_remui(%y: !tile.view<out, 25x4xf32>) {
  %c100 = arith.constant 100 : index
  %four = arith.constant 4 : i8
  tile.grid %c100
  %pid = tile.program_id x
  %p = tile.partition %y : !tile.partition<out, 25x4xf32, tile = [1, 1]>
  %p32 = arith.index_cast %pid : index to i32
  %p8 = arith.trunci %p32 : i32 to i8
  %q8 = arith.divui %p8, %four : i8
  %r8 = arith.remui %p8, %four : i8
  %q = arith.extui %q8 : i8 to i64
  %qi = arith.index_cast %q : i64 to index
  %ri = arith.index_castui %r8 : i8 to index
  %b = tile.own %p[%qi, %ri] : !tile.partition<out, 25x4xf32, tile = [1, 1]>
  tile.return
}

// -----

// 200 programs do not fit i8: the truncation wraps (program 128 becomes
// -128), and the unsigned division of a value that may be negative is
// unknown. Read as unsigned, the i8 is the program id again: no two
// programs collide and no index leaves its space, so the model's candidates
// do not reproduce and there is no witness (a rejection the referee counts
// as imprecise).
tile.kernel @i8_trunc_wraps(%y: !tile.view<out, 50x4xf32>) {
  %c200 = arith.constant 200 : index
  %four = arith.constant 4 : i8
  tile.grid %c200
  %pid = tile.program_id x
  %p = tile.partition %y : !tile.partition<out, 50x4xf32, tile = [1, 1]>
  %p32 = arith.index_cast %pid : index to i32
  // expected-note @+1 {{this i8 'arith.trunci' may wrap}}
  %p8 = arith.trunci %p32 : i32 to i8
  %q8 = arith.divui %p8, %four : i8
  %r8 = arith.remui %p8, %four : i8
  %qi = arith.index_castui %q8 : i8 to index
  %ri = arith.index_castui %r8 : i8 to index
  // expected-error @+2 {{cannot prove that the claimed tile index along dim 0 stays inside the index space of %arg0 (no witness: the model's candidate index is inside when the kernel's index arithmetic is run)}}
  // expected-error @+1 {{cannot prove that distinct programs claim disjoint blocks of %arg0 (no witness: the model's candidate collision does not happen when the kernel's index arithmetic is run)}}
  %b = tile.own %p[%qi, %ri] : !tile.partition<out, 50x4xf32, tile = [1, 1]>
  tile.return
}

// -----

// Shifts by constants: shl is a product (proven not to wrap for 64
// programs), shrsi a floor division, shrui one of a non-negative value.
// CHECK-LABEL: tile.kernel @i32_shifts
// expected-remark @+1 {{kernel @i32_shifts: 2 claims, 2 claim pairs proven disjoint, 2 claims in bounds}}
tile.kernel @i32_shifts(%y: !tile.view<out, 128x64xf32>, %z: !tile.view<out, 16x64xf32>) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %one = arith.constant 1 : i32
  %two = arith.constant 2 : i32
  tile.grid %c64
  %pid = tile.program_id x
  %py = tile.partition %y : !tile.partition<out, 128x64xf32, tile = [1, 64]>
  %pz = tile.partition %z : !tile.partition<out, 16x64xf32, tile = [1, 64]>
  %p32 = arith.index_cast %pid : index to i32
  %s = arith.shli %p32, %one : i32
  %r = arith.index_cast %s : i32 to index
  %b = tile.own %py[%r, %c0] : !tile.partition<out, 128x64xf32, tile = [1, 64]>
  // Rows pid >> 2 for the programs pid % 4 == 0 only.
  %u = arith.shrui %p32, %two : i32
  %back = arith.shli %u, %two : i32
  %first = arith.cmpi eq, %back, %p32 : i32
  scf.if %first {
    %t = arith.shrsi %p32, %two : i32
    %ri = arith.index_cast %t : i32 to index
    %bz = tile.own %pz[%ri, %c0] : !tile.partition<out, 16x64xf32, tile = [1, 64]>
  }
  tile.return
}

// -----

// shrui modelled exactly finds the real race: programs 0 and 1 both claim
// row 0.
tile.kernel @i32_shrui_race(%y: !tile.view<out, 64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %one = arith.constant 1 : i32
  tile.grid %c64
  %pid = tile.program_id x
  %p = tile.partition %y : !tile.partition<out, 64x64xf32, tile = [1, 64]>
  %p32 = arith.index_cast %pid : index to i32
  %h = arith.shrui %p32, %one : i32
  %r = arith.index_cast %h : i32 to index
  // expected-error @+1 {{programs (0) and (1) both own elements [0, 1) x [0, 64) of %arg0}}
  %b = tile.own %p[%r, %c0] : !tile.partition<out, 64x64xf32, tile = [1, 64]>
  tile.return
}

// -----

// An i16 scalar offset: s * 8 fits i16 only where s < 4096, which the
// assumptions (on s itself, in 64 bits) say.
// CHECK-LABEL: tile.kernel @i16_scalar_bounded
// expected-remark @+1 {{kernel @i16_scalar_bounded: 1 claims, 1 claim pairs proven disjoint, 1 claims in bounds}}
tile.kernel @i16_scalar_bounded(%y: !tile.view<out, 40000x8xf32>, %s: i16) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %lim = arith.constant 4000 : i64
  %zero = arith.constant 0 : i64
  %eight = arith.constant 8 : i16
  tile.grid %c8
  %s64 = arith.extsi %s : i16 to i64
  %lo = arith.cmpi sge, %s64, %zero : i64
  %hi = arith.cmpi slt, %s64, %lim : i64
  %ok = arith.andi %lo, %hi : i1
  tile.assume %ok, "s in [0, 4000)"
  %pid = tile.program_id x
  %p = tile.partition %y : !tile.partition<out, 40000x8xf32, tile = [1, 8]>
  %base16 = arith.muli %s, %eight : i16
  %base = arith.index_cast %base16 : i16 to index
  %row = arith.addi %base, %pid : index
  %b = tile.own %p[%row, %c0] : !tile.partition<out, 40000x8xf32, tile = [1, 8]>
  tile.return
}

// -----

// Without the upper bound, s * 8 may wrap in i16: the row may be negative.
tile.kernel @i16_scalar_unbounded(%y: !tile.view<out, 40000x8xf32>, %s: i16) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0 : i16
  %eight = arith.constant 8 : i16
  tile.grid %c8
  %lo = arith.cmpi sge, %s, %zero : i16
  tile.assume %lo, "s is not negative"
  %pid = tile.program_id x
  %p = tile.partition %y : !tile.partition<out, 40000x8xf32, tile = [1, 8]>
  // expected-note @+1 {{this i16 'arith.muli' may wrap}}
  %base16 = arith.muli %s, %eight : i16
  %base = arith.index_cast %base16 : i16 to index
  %row = arith.addi %base, %pid : index
  // expected-error @+1 {{claims tile index}}
  %b = tile.own %p[%row, %c0] : !tile.partition<out, 40000x8xf32, tile = [1, 8]>
  tile.return
}

// -----

// Narrow ops inside tile.assume and tile.grid become launch-contract rules
// (the runtime computes them in exact 64-bit arithmetic and checks that
// the kernel's iN result is that value); the proof then takes them exactly.
// CHECK-LABEL: tile.kernel @i32_contracted
// CHECK-SAME: \22message\22:\22'arith.addi' does not wrap: its value fits i32\22
// CHECK-SAME: \22message\22:\22the operands of 'arith.index_castui' are non-negative\22
// CHECK-SAME: \22message\22:\22end of the window\22
// expected-remark @+1 {{kernel @i32_contracted: 1 claims, 1 claim pairs proven disjoint, 1 claims in bounds, 0 sub-tile accesses in bounds, 4 launch-contract rules}}
tile.kernel @i32_contracted(%y: !tile.view<out, ?x8xf32>, %s: i32) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %eight = arith.constant 8 : i32
  tile.grid %c8
  %end32 = arith.addi %s, %eight : i32
  %end = arith.index_castui %end32 : i32 to index
  %rows = tile.dim %y, 0 : !tile.view<out, ?x8xf32>
  %fits = arith.cmpi ule, %end, %rows : index
  tile.assume %fits, "end of the window"
  %zero = arith.constant 0 : i32
  %pos = arith.cmpi sge, %s, %zero : i32
  tile.assume %pos, "s is not negative"
  %pid = tile.program_id x
  %p = tile.partition %y : !tile.partition<out, ?x8xf32, tile = [1, 8]>
  %start = arith.index_castui %end32 : i32 to index
  %first = arith.subi %start, %c8 : index
  %row = arith.addi %first, %pid : index
  %b = tile.own %p[%row, %c0] : !tile.partition<out, ?x8xf32, tile = [1, 8]>
  tile.return
}

// -----

// An i8 loop with step 100 up to 127: after 100 the iv steps to 200, which
// wraps to -56, still below the bound: the iv leaves [0, 127), which the
// model and range analysis take it in. The loop is rejected.
tile.kernel @i8_loop_iv_wraps(%y: !tile.view<out, 127x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %lb = arith.constant 0 : i8
  %ub = arith.constant 127 : i8
  %step = arith.constant 100 : i8
  tile.grid %c1
  %p = tile.partition %y : !tile.partition<out, 127x8xf32, tile = [1, 8]>
  // expected-error @+1 {{the induction variable of this i8 loop may wrap: its last value plus the step is not proven to fit i8 [-128, 127]}}
  scf.for %i = %lb to %ub step %step : i8 {
    %r = arith.index_cast %i : i8 to index
    %b = tile.own %p[%r, %c0] : !tile.partition<out, 127x8xf32, tile = [1, 8]>
  }
  tile.return
}

// -----

// Up to 100 with step 20 the iv never passes 99 + 20 < 128: exact.
// CHECK-LABEL: tile.kernel @i8_loop_iv_fits
// expected-remark @+1 {{kernel @i8_loop_iv_fits: 1 claims, 1 claim pairs proven disjoint, 1 claims in bounds}}
tile.kernel @i8_loop_iv_fits(%y: !tile.view<out, 100x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %lb = arith.constant 0 : i8
  %ub = arith.constant 100 : i8
  %step = arith.constant 20 : i8
  tile.grid %c1
  %p = tile.partition %y : !tile.partition<out, 100x8xf32, tile = [1, 8]>
  scf.for %i = %lb to %ub step %step : i8 {
    %r = arith.index_cast %i : i8 to index
    %b = tile.own %p[%r, %c0] : !tile.partition<out, 100x8xf32, tile = [1, 8]>
  }
  tile.return
}

// -----

// A sub-tile index (s * 4) / 4 % 4 in i32: exact, s % 4 is in [0, 4) for
// s >= 0; but s * 4 may wrap to a negative value, whose truncating division
// and remainder are negative: a sub-tile outside the block (s = 2^29 + 1
// gives -3). The model's candidate has a small s, which does not wrap, and
// only programs are searched, not scalars: no witness.
tile.kernel @i32_subtile_may_wrap(%y: !tile.view<out, 8x256xf32>, %s: i32, %v: f32) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0 : i32
  %four = arith.constant 4 : i32
  tile.grid %c8
  %pos = arith.cmpi sge, %s, %zero : i32
  tile.assume %pos, "s is not negative"
  %pid = tile.program_id x
  %p = tile.partition %y : !tile.partition<out, 8x256xf32, tile = [1, 256]>
  %blk = tile.own %p[%pid, %c0] : !tile.partition<out, 8x256xf32, tile = [1, 256]>
  // expected-note @+1 {{this i32 'arith.muli' may wrap}}
  %m = arith.muli %s, %four : i32
  %q = arith.divsi %m, %four : i32
  %r = arith.remsi %q, %four : i32
  %j = arith.index_cast %r : i32 to index
  %t = tile.splat %v : tensor<1x64xf32>
  // expected-error @+1 {{sub-tile index along dim 1 cannot be proven inside the owned block's [0, 4) (no witness: the model's candidate index is inside when the kernel's index arithmetic is run)}}
  tile.store %t, %blk[%c0, %j] : tensor<1x64xf32>, !tile.owned<out, 1x256xf32>
  tile.return
}

// -----

// With s below 2^20, s * 4 fits i32 and the sub-tile index is s % 4.
// CHECK-LABEL: tile.kernel @i32_subtile_bounded
// expected-remark @+1 {{kernel @i32_subtile_bounded: 1 claims, 1 claim pairs proven disjoint, 1 claims in bounds, 1 sub-tile accesses in bounds}}
tile.kernel @i32_subtile_bounded(%y: !tile.view<out, 8x256xf32>, %s: i32, %v: f32) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0 : i32
  %max = arith.constant 1048576 : i32
  %four = arith.constant 4 : i32
  tile.grid %c8
  %pos = arith.cmpi sge, %s, %zero : i32
  tile.assume %pos, "s is not negative"
  %small = arith.cmpi slt, %s, %max : i32
  tile.assume %small, "s is below 2^20"
  %pid = tile.program_id x
  %p = tile.partition %y : !tile.partition<out, 8x256xf32, tile = [1, 256]>
  %blk = tile.own %p[%pid, %c0] : !tile.partition<out, 8x256xf32, tile = [1, 256]>
  %m = arith.muli %s, %four : i32
  %q = arith.divsi %m, %four : i32
  %r = arith.remsi %q, %four : i32
  %j = arith.index_cast %r : i32 to index
  %t = tile.splat %v : tensor<1x64xf32>
  tile.store %t, %blk[%c0, %j] : tensor<1x64xf32>, !tile.owned<out, 1x256xf32>
  tile.return
}

// tile-verify-ownership on tile.join: the region's claims are disjoint
// between groups, its loads of inout partitions touch nothing another
// group claims, and there is a counter per group.
// RUN: tile-opt %s -split-input-file --tile-verify-ownership=report=1 -verify-diagnostics

// The shares of row g are stored by programs (g, 0..3); the join of row g
// reads them and writes y[g].
// expected-remark @+1 {{kernel @merge: 2 claims, 2 claim pairs proven disjoint, 2 claims in bounds, 0 sub-tile accesses in bounds, 8 launch-contract rules, 0 unchecked regions, a join with 1 group reads proven}}
tile.kernel @merge(%x: !tile.view<in, ?x4xf32>, %parts: !tile.view<inout, ?x4xf32>,
                   %y: !tile.view<out, ?xf32>, %t: !tile.view<ticket, ?xi32>) {
  %pp = tile.partition %parts : !tile.partition<inout, ?x4xf32, tile = [1, 1]>
  %py = tile.partition %y : !tile.partition<out, ?xf32, tile = [1]>
  %g = tile.program_id x
  %s = tile.program_id y
  %rows = tile.dim %parts, 0 : !tile.view<inout, ?x4xf32>
  %c4 = arith.constant 4 : index
  tile.grid %rows, %c4
  %nt = tile.dim %t, 0 : !tile.view<ticket, ?xi32>
  %enough = arith.cmpi sge, %nt, %rows : index
  tile.assume %enough, "a counter per row"
  %ny = tile.dim %y, 0 : !tile.view<out, ?xf32>
  %same = arith.cmpi eq, %ny, %rows : index
  tile.assume %same, "one sum per row"
  %b = tile.own %pp[%g, %s] : !tile.partition<inout, ?x4xf32, tile = [1, 1]>
  %px = tile.partition %x : !tile.partition<in, ?x4xf32, tile = [1, 1]>
  %v = tile.load %px[%g, %s] : !tile.partition<in, ?x4xf32, tile = [1, 1]> -> tensor<1x1xf32>
  tile.store %v, %b : tensor<1x1xf32>, !tile.owned<inout, 1x1xf32>
  tile.join %t by x {
    %yb = tile.own %py[%g] : !tile.partition<out, ?xf32, tile = [1]>
    %pr = tile.partition %parts : !tile.partition<inout, ?x4xf32, tile = [1, 4]>
    %c0 = arith.constant 0 : index
    %row = tile.load %pr[%g, %c0] : !tile.partition<inout, ?x4xf32, tile = [1, 4]> -> tensor<1x4xf32>
    %r = tile.reduce %row dim = 1 : (tensor<1x4xf32>) -> tensor<1x1xf32> {
    ^bb0(%a: f32, %c: f32):
      %sum = arith.addf %a, %c : f32
      tile.yield %sum : f32
    }
    %r1 = tile.reshape %r : tensor<1x1xf32> -> tensor<1xf32>
    tile.store %r1, %yb : tensor<1xf32>, !tile.owned<out, 1xf32>
  } : !tile.view<ticket, ?xi32>
  tile.return
}

// -----

// The join of row g reads row g + 1, which programs of the next group own.
tile.kernel @reads_next_group(%parts: !tile.view<inout, ?x4xf32>, %t: !tile.view<ticket, ?xi32>) {
  %pp = tile.partition %parts : !tile.partition<inout, ?x4xf32, tile = [1, 1]>
  %g = tile.program_id x
  %s = tile.program_id y
  %rows = tile.dim %parts, 0 : !tile.view<inout, ?x4xf32>
  %c4 = arith.constant 4 : index
  tile.grid %rows, %c4
  %nt = tile.dim %t, 0 : !tile.view<ticket, ?xi32>
  %enough = arith.cmpi sge, %nt, %rows : index
  tile.assume %enough, "a counter per row"
  // expected-note @+1 {{the other program's claim}}
  %b = tile.own %pp[%g, %s] : !tile.partition<inout, ?x4xf32, tile = [1, 1]>
  %v = arith.constant dense<1.0> : tensor<1x1xf32>
  tile.store %v, %b : tensor<1x1xf32>, !tile.owned<inout, 1x1xf32>
  tile.join %t by x {
    %pr = tile.partition %parts : !tile.partition<inout, ?x4xf32, tile = [1, 4]>
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %next = arith.addi %g, %c1 : index
    // expected-error @+1 {{the join of program (0, 0) reads elements [1, 2) x [0, 1) of %arg0 that program (1, 0), of another group, owns (with grid = (2, 4)}}
    %row = tile.load %pr[%next, %c0] : !tile.partition<inout, ?x4xf32, tile = [1, 4]> -> tensor<1x4xf32>
  } : !tile.view<ticket, ?xi32>
  tile.return
}

// -----

// Every group's join writes y[0].
tile.kernel @joins_share_a_block(%y: !tile.view<out, ?xf32>, %t: !tile.view<ticket, ?xi32>) {
  %py = tile.partition %y : !tile.partition<out, ?xf32, tile = [1]>
  %g = tile.program_id x
  %c8 = arith.constant 8 : index
  %c2 = arith.constant 2 : index
  tile.grid %c8, %c2
  %nt = tile.dim %t, 0 : !tile.view<ticket, ?xi32>
  %enough = arith.cmpi sge, %nt, %c8 : index
  tile.assume %enough, "a counter per group"
  %ny = tile.dim %y, 0 : !tile.view<out, ?xf32>
  %one = arith.cmpi sge, %ny, %c8 : index
  tile.assume %one, "a sum per group"
  tile.join %t by x {
    %c0 = arith.constant 0 : index
    // expected-error @+1 {{the join regions of programs (0, 0) and (1, 0) both own elements [0, 1) of %arg0}}
    %yb = tile.own %py[%c0] : !tile.partition<out, ?xf32, tile = [1]>
    %v = arith.constant dense<1.0> : tensor<1xf32>
    tile.store %v, %yb : tensor<1xf32>, !tile.owned<out, 1xf32>
  } : !tile.view<ticket, ?xi32>
  tile.return
}

// -----

// A join writing y[g] is fine per group, and programs (0, s) writing y[s]
// are fine among themselves, but program (0, 1) races with the join of
// group 1.
tile.kernel @join_and_program_share(%y: !tile.view<out, ?xf32>, %t: !tile.view<ticket, ?xi32>) {
  %py = tile.partition %y : !tile.partition<out, ?xf32, tile = [1]>
  %g = tile.program_id x
  %s = tile.program_id y
  %c4 = arith.constant 4 : index
  tile.grid %c4, %c4
  %nt = tile.dim %t, 0 : !tile.view<ticket, ?xi32>
  %enough = arith.cmpi sge, %nt, %c4 : index
  tile.assume %enough, "a counter per group"
  %ny = tile.dim %y, 0 : !tile.view<out, ?xf32>
  %fits = arith.cmpi sge, %ny, %c4 : index
  tile.assume %fits, "y fits"
  %c0 = arith.constant 0 : index
  %first = arith.cmpi eq, %g, %c0 : index
  %v = arith.constant dense<1.0> : tensor<1xf32>
  scf.if %first {
    // expected-error @+1 {{the join regions of programs (0, 1) and (1, 0) both own elements [1, 2) of %arg0}}
    %b = tile.own %py[%s] : !tile.partition<out, ?xf32, tile = [1]>
    tile.store %v, %b : tensor<1xf32>, !tile.owned<out, 1xf32>
  }
  tile.join %t by x {
    // expected-note @+1 {{the other claim}}
    %yb = tile.own %py[%g] : !tile.partition<out, ?xf32, tile = [1]>
    tile.store %v, %yb : tensor<1xf32>, !tile.owned<out, 1xf32>
  } : !tile.view<ticket, ?xi32>
  tile.return
}

// -----

tile.kernel @too_few_tickets(%t: !tile.view<ticket, ?xi32>) {
  %c8 = arith.constant 8 : index
  tile.grid %c8
  // expected-error @+1 {{cannot prove one counter per group: %arg0 needs at least as many elements as the grid has programs along x (with grid = (8), dim(%arg0, 0) = 1, it has 1 for 8 groups); state it with tile.assume}}
  tile.join %t by x {
  } : !tile.view<ticket, ?xi32>
  tile.return
}

//===- Passes.td - tile dialect passes ---------------------*- tablegen -*-===//

#ifndef TILE_DIALECT_TILE_TRANSFORMS_PASSES_TD
#define TILE_DIALECT_TILE_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def TileReportUnchecked : Pass<"tile-report-unchecked", "::tile::KernelOp"> {
  let summary = "counts the tile.unchecked regions of each kernel";
  let description = [{
    Counts the `tile.unchecked` regions of every kernel (nested ones too) and
    records the count on the kernel as `tile.unchecked_regions`, the figure the
    compile tools report and the safe subset keeps at zero. With `remarks`,
    it also emits a remark per region naming its reason, and one per kernel
    with the count. With `forbid`, any unchecked region is an error: the
    switch a build of a safe-only kernel set turns on.

    ```mlir
    // tile-opt --tile-report-unchecked
    tile.kernel @k(...) attributes {tile.unchecked_regions = 1 : i64} { ... }
    ```
  }];
  let options = [
    Option<"remarks", "remarks", "bool", /*default=*/"false",
           "emit a remark per unchecked region and per kernel">,
    Option<"forbid", "forbid", "bool", /*default=*/"false",
           "fail on any unchecked region (safe-subset builds)">
  ];
}

def TileVerifyOwnership : Pass<"tile-verify-ownership", "::tile::KernelOp"> {
  let summary = "proves each kernel race-free and in bounds, and emits its launch contract";
  let description = [{
    The safety proof, first in every compile pipeline. For each kernel it
    proves, with MLIR's Presburger library and integer range analysis:

    * **disjoint writes**: no two distinct programs of the declared grid
      (`tile.grid`) claim (`tile.own`) overlapping elements of a view, for
      every loop iteration and every launch-time dim and scalar value allowed
      by the kernel's `tile.assume` conditions;
    * **claims inside the index space**: every claimed tile index lies in
      `[0, ceildiv(dim, tile))`, so an off-by-one grid is rejected;
    * **sub-tiles inside their block**: every dynamic sub-tile index of a
      load or store through an owned block stays inside the block.

    What cannot be proven is an error with a witness: the two program ids,
    the overlapping region and the launch values that produce it. The rest of
    the discipline (`in` views never written, `out` views never read, no raw
    memory) is enforced by the op verifiers. Code inside `tile.unchecked` is
    exempt and counted.

    The kernel then gets its launch contract as JSON in the
    `tile.launch_contract` attribute (docs/contracts.md): the grid rule, a
    no-overlap rule between each exclusive view and every other view, a
    layout rule for exclusive views with dynamic strides, and each
    `tile.assume`. It also records `tile.unchecked_regions`, and marks the
    kernel `tile.ownership_verified`, which lowerings require before they use
    the proof (docs/safety.md, "What the proof buys the code generator").
  }];
  let options = [
    Option<"printContract", "print-contract", "bool", /*default=*/"false",
           "emit a remark per launch-contract item">,
    Option<"report", "report", "bool", /*default=*/"false",
           "emit a remark with where each obligation was discharged">
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def TileMarkInBoundsLoads : Pass<"tile-mark-in-bounds-loads", "::tile::KernelOp"> {
  let summary = "marks partition loads proven to read whole tiles inside their view";
  let description = [{
    A partition load pads the elements that fall outside its view, so a
    lowering guards each access with a bounds check and keeps an
    element-by-element path for the edges. This pass proves, with the model
    of `tile-verify-ownership` (Presburger sets over program ids, loop
    induction variables, view dims and scalars, under the kernel's
    `tile.assume` conditions and enclosing `scf.if` conditions), that the
    tile of a load lies entirely inside its view:
    `0 <= index * tile` and `(index + 1) * tile <= dim` along every dim.
    Such loads get the unit attribute `tile.in_bounds`, and the GPU
    lowering issues them without guards: a loop of them is straight-line
    code the backend can unroll and pipeline.

    Only kernels marked `tile.ownership_verified` are considered: their
    assumptions are launch-contract rules the runtime checks before every
    launch, which is what makes a fact derived from them hold at run time.
    Loads inside `tile.unchecked` are left alone.

    ```mlir
    // with tile.assume (dim(w, 1) % 512 == 0), in a loop over num_tiles(pw, 1):
    %t = tile.load %pw[%n, %k] {tile.in_bounds} : ...
    ```

    With MLIR's remark engine on (category `tile-mark-in-bounds-loads`), a
    passed remark per kernel counts the loads marked, and a missed remark
    per guarded load names the bound that could not be proven.
  }];
}

#endif // TILE_DIALECT_TILE_TRANSFORMS_PASSES_TD

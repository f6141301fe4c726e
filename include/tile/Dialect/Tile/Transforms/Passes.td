//===- Passes.td - tile dialect passes ---------------------*- tablegen -*-===//

#ifndef TILE_DIALECT_TILE_TRANSFORMS_PASSES_TD
#define TILE_DIALECT_TILE_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def TileReportUnchecked : Pass<"tile-report-unchecked", "::mlir::tile::KernelOp"> {
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

#endif // TILE_DIALECT_TILE_TRANSFORMS_PASSES_TD

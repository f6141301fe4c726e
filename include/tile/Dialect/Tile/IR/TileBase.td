//===- TileBase.td - The tile dialect definition -----------*- tablegen -*-===//
//
// The `tile` dialect: tile-based GPU kernels whose arguments carry ownership.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_DIALECT_TILE_IR_TILEBASE_TD
#define TILE_DIALECT_TILE_IR_TILEBASE_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"

def Tile_Dialect : Dialect {
  let name = "tile";
  let cppNamespace = "::tile";
  let summary = "Memory-safe, race-free tile kernels with ownership-typed arguments";
  let description = [{
    The `tile` dialect describes GPU kernels in the single-program, tile-based
    style of Triton and CUDA Tile IR, with one difference that the rest of the
    toolchain builds on: **global memory is only reachable through kernel
    arguments whose type carries an ownership mode**.

    * `!tile.view<in, ...>` is shared and read-only: every program may load any
      part of it, nobody may store to it.
    * `!tile.view<out, ...>` is exclusively owned and write-only. It is split by
      `tile.partition` into an aligned grid of non-overlapping tiles, and a
      program writes only into blocks it has claimed with `tile.own`.
    * `!tile.view<inout, ...>` is exclusively owned like `out`, and its data may
      also be read back, but only through the claimed block.
    * `!tile.view<add, ...>` is add-only: every program may add into any of
      its elements with `tile.atomic_add`, and nothing reads or stores it.
      Atomic additions commute, so concurrent ones are not a race (the
      floating-point rounding of the sum depends on their order).
    * `!tile.view<ticket, ...>` holds the counters of `tile.join`: the
      programs of a group each take a ticket after their stores, and the one
      holding the last ticket runs the join's region, which may read what
      the whole group stored and writes blocks owned by the group.

    Tile values are builtin statically shaped tensors (`tensor<64x128xf16>`),
    so `arith`, `math` and `scf` operate on them unchanged. There are no raw
    pointers and no memrefs in the safe subset. A `tile.unchecked` region is the
    one explicit escape; it is counted and reported per kernel.

    With this structure, freedom from data races reduces to a property the
    compiler can prove (the map from program ids to owned blocks is
    injective), and freedom from out-of-bounds accesses follows from the
    partition semantics (partial edge tiles are padded on load and masked on
    store). See `docs/safety.md`.
  }];
  let useDefaultTypePrinterParser = 1;
  let dependentDialects = ["::mlir::arith::ArithDialect"];
  let hasConstantMaterializer = 1;
  let extraClassDeclaration = [{
    /// Registers the types; defined beside their storage in TileTypes.cpp.
    void registerTypes();

    /// The largest number of elements a tile value may hold. Tiles live in
    /// registers and shared memory of one program; the cap is Triton's.
    static constexpr int64_t kMaxTileElements = int64_t(1) << 20;
  }];
}

class Tile_Op<string mnemonic, list<Trait> traits = []>
    : Op<Tile_Dialect, mnemonic, traits>;

class Tile_Type<string name, string typeMnemonic, list<Trait> traits = []>
    : TypeDef<Tile_Dialect, name, traits> {
  let mnemonic = typeMnemonic;
}

#endif // TILE_DIALECT_TILE_IR_TILEBASE_TD

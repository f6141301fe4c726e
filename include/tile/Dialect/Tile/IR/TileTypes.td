//===- TileTypes.td - tile dialect types -------------------*- tablegen -*-===//

#ifndef TILE_DIALECT_TILE_IR_TILETYPES_TD
#define TILE_DIALECT_TILE_IR_TILETYPES_TD

include "tile/Dialect/Tile/IR/TileBase.td"
include "tile/Dialect/Tile/IR/TileAttrs.td"
include "mlir/IR/BuiltinTypeInterfaces.td"

//===----------------------------------------------------------------------===//
// ViewType
//===----------------------------------------------------------------------===//

def Tile_ViewType : Tile_Type<"View", "view"> {
  let summary = "an ownership-typed view of global memory (kernel arguments only)";
  let description = [{
    A strided view of a region of global memory, passed to a kernel as an
    argument. The type states how the kernel may access it:

    * `in`: shared and read-only; loaded through a partition by any program.
    * `frozen`: like `in`, from frozen memory, which no kernel writes at
      all (the runtime checks that the buffer was frozen, and refuses a
      frozen buffer to every written argument, copy and fill). Its loads
      keep the read-only data path even in a kernel that overlaps the grid
      before it (programmatic dependent launch); meant for weights.
    * `settled`: like `in`, from memory that no launch earlier in the
      kernel's programmatic chain writes (the launches since the last one
      that waited for everything before it in stream order). Written by
      kernels, but not by any this one can overlap: the runtime checks the
      launches queued before it and launches it without the programmatic
      edge when one of them writes the view. Its loads may be issued
      before the kernel's grid-dependency wait, ahead of the grid before
      it; meant for per-step state (a decode position) and small tables.
    * `out`: exclusively owned and write-only; written only through blocks
      claimed with `tile.own`.
    * `inout`: exclusively owned; read and written only through claimed
      blocks.
    * `add`: add-only; any program adds into any element with
      `tile.atomic_add` (f32 only); never read or stored by the kernel, and,
      like an owned view, aliased by no other argument.
    * `ticket`: a rank-1 `i32` view of counters, one per group of a
      `tile.join`; only `tile.join` touches it (atomically). Every launch
      leaves the counters it uses at 0, so the buffer must hold zeros when
      it is first launched with. Aliased by no other argument.

    Dims and strides are static or dynamic (`?`); dynamic values are known at
    launch and become part of the kernel's launch contract. Strides are in
    elements and positive. When `strides` is omitted the view is row-major
    contiguous (innermost stride 1); it is printed only when it differs from
    that.

    An exclusively owned (`out`/`inout`) or `add` view with fully static dims and strides
    must not overlap itself (no two indices address the same element): that is
    what makes disjoint tiles disjoint memory. With dynamic strides the same
    property is checked at launch.

    Element types: `i1`, `i8`, `i16`, `i32`, `i64`, `f16`, `bf16`, `f32`,
    `f64`, and `f8E4M3FN` (e4m3 FP8 weights: tiles of it are loaded and
    widened with `tile.convert`, never computed on or stored from a
    narrower conversion).

    Example:

    ```mlir
    !tile.view<in, ?x4096xbf16>
    !tile.view<out, 4096x?xf32>                      // strides [?, 1]
    !tile.view<inout, ?x8x128xf16, strides = [2048, 128, 1]>
    ```
  }];
  let parameters = (ins
    "::tile::OwnershipMode":$mode,
    ArrayRefParameter<"int64_t", "dims; ShapedType::kDynamic for `?`">:$shape,
    "::mlir::Type":$elementType,
    ArrayRefParameter<"int64_t", "strides in elements">:$strides
  );
  let builders = [
    TypeBuilderWithInferredContext<(ins "::tile::OwnershipMode":$mode,
        "::llvm::ArrayRef<int64_t>":$shape, "::mlir::Type":$elementType), [{
      return $_get(elementType.getContext(), mode, shape, elementType,
                   getContiguousStrides(shape));
    }]>
  ];
  let skipDefaultBuilders = 0;
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    int64_t getRank() const { return getShape().size(); }
    bool isDynamicDim(unsigned i) const {
      return ::mlir::ShapedType::isDynamic(getShape()[i]);
    }
    bool hasStaticShape() const {
      return !::llvm::any_of(getShape(), ::mlir::ShapedType::isDynamic);
    }
    bool hasStaticStrides() const {
      return !::llvm::any_of(getStrides(), ::mlir::ShapedType::isDynamic);
    }
    /// True when distinct indices address distinct elements for every value
    /// of the dynamic dims: strides are static and nested (sorted by stride,
    /// each is at least the previous stride times its extent), and only the
    /// outermost dim may be dynamic. Otherwise it is checked at launch.
    bool isProvablyNonOverlapping() const;
    /// True for `in`, `frozen` and `inout`.
    bool isReadable() const {
      return isShared() || getMode() == OwnershipMode::InOut;
    }
    /// True for `in` and `frozen`: read-only, any program loads any tile.
    bool isShared() const { return ::tile::isSharedMode(getMode()); }
    /// True for `out`, `inout`, `add` and `ticket`: the kernel writes the view, so no
    /// other argument may alias it.
    bool isExclusive() const { return !isShared(); }

    /// Row-major contiguous strides for `shape`: innermost 1, and `?` outward
    /// of the first dynamic dim.
    static ::llvm::SmallVector<int64_t>
    getContiguousStrides(::llvm::ArrayRef<int64_t> shape);
    /// True when `type` may be the element type of a view or tile.
    static bool isValidElementType(::mlir::Type type);
  }];
}

//===----------------------------------------------------------------------===//
// PartitionType
//===----------------------------------------------------------------------===//

def Tile_PartitionType : Tile_Type<"Partition", "partition"> {
  let summary = "an aligned grid of non-overlapping tiles of a view";
  let description = [{
    A view split into tiles of a static shape. Tile `(i0, ..., in)` covers
    elements `[i_k * tile_k, (i_k + 1) * tile_k)` along each dim `k`, so the
    tiles of a partition never overlap. The index space along dim `k` is
    `ceildiv(dim_k, tile_k)`: the last tile along a dim may be partial; its
    missing elements read as the padding value of a load and are masked out of
    a store.

    The partition carries its view's mode: tiles of an `in` partition are
    loaded, tiles of an `out`/`inout` partition are claimed with `tile.own`,
    tiles of an `add` partition are added into with `tile.atomic_add`.
    A tile holds at most 2^20 elements.

    Example:

    ```mlir
    !tile.partition<in, ?x4096xf16, tile = [1, 4096]>
    !tile.partition<out, ?x?xf16, strides = [?, 1], tile = [128, 256]>
    ```
  }];
  let parameters = (ins
    "::tile::ViewType":$view,
    ArrayRefParameter<"int64_t", "static tile shape">:$tileShape
  );
  let builders = [
    TypeBuilderWithInferredContext<(ins "::tile::ViewType":$view,
        "::llvm::ArrayRef<int64_t>":$tileShape), [{
      return $_get(view.getContext(), view, tileShape);
    }]>
  ];
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    ::tile::OwnershipMode getMode() const { return getView().getMode(); }
    bool isShared() const { return getView().isShared(); }
    ::mlir::Type getElementType() const { return getView().getElementType(); }
    int64_t getRank() const { return getTileShape().size(); }
    /// The number of tiles along each dim (ceil-div); `?` where the view's
    /// dim is dynamic.
    ::llvm::SmallVector<int64_t> getGridShape() const;
    /// The tensor type of one tile.
    ::mlir::RankedTensorType getTileType() const;
    /// The type of the handle `tile.own` returns for one tile.
    ::tile::OwnedType getOwnedType() const;
  }];
}

//===----------------------------------------------------------------------===//
// OwnedType
//===----------------------------------------------------------------------===//

def Tile_OwnedType : Tile_Type<"Owned", "owned"> {
  let summary = "a block of an out/inout partition owned by the current program";
  let description = [{
    The handle `tile.own` returns: the one tile of an exclusively owned
    partition that the current program has claimed. `tile.store` writes only
    through such handles (whole block or aligned sub-tiles of it); for an
    `inout` view, `tile.load` reads the block back through the same handle.

    Example:

    ```mlir
    !tile.owned<out, 1x4096xf16>
    ```
  }];
  let parameters = (ins
    "::tile::OwnershipMode":$mode,
    ArrayRefParameter<"int64_t", "static block shape">:$shape,
    "::mlir::Type":$elementType
  );
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    int64_t getRank() const { return getShape().size(); }
    ::mlir::RankedTensorType getBlockType() const {
      return ::mlir::RankedTensorType::get(getShape(), getElementType());
    }
  }];
}

#endif // TILE_DIALECT_TILE_IR_TILETYPES_TD

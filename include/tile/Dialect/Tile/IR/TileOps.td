//===- TileOps.td - tile dialect operations ----------------*- tablegen -*-===//
//
// Operation semantics and examples live in each op's description; they are
// rendered into docs/dialect/ by the build (target tile-doc).
//
//===----------------------------------------------------------------------===//

#ifndef TILE_DIALECT_TILE_IR_TILEOPS_TD
#define TILE_DIALECT_TILE_IR_TILEOPS_TD

include "tile/Dialect/Tile/IR/TileBase.td"
include "tile/Dialect/Tile/IR/TileAttrs.td"
include "tile/Dialect/Tile/IR/TileTypes.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"
include "mlir/IR/OpAsmInterface.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/FunctionInterfaces.td"
include "mlir/Interfaces/InferIntRangeInterface.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

//===----------------------------------------------------------------------===//
// Constraints and traits
//===----------------------------------------------------------------------===//

// Every op but `tile.kernel` lives inside a kernel.
def Tile_InKernel : NativeOpTrait<"InKernel"> {
  let cppNamespace = "::mlir::OpTrait::tile";
}

def Tile_Tensor : Type<And<[AnyRankedTensor.predicate, HasStaticShapePred,
    CPred<"::llvm::cast<::mlir::ShapedType>($_self).getRank() >= 1">]>,
    "statically shaped tile (tensor of rank >= 1)",
    "::mlir::RankedTensorType">;

def Tile_Scalar : AnyTypeOf<[AnySignlessInteger, Index, AnyFloat]>;

def Tile_LoadSource : AnyTypeOf<[Tile_PartitionType, Tile_OwnedType],
    "partition or owned block">;
def Tile_StoreDest : AnyTypeOf<[Tile_OwnedType, Tile_PartitionType],
    "owned block (or, inside tile.unchecked, a partition)">;

//===----------------------------------------------------------------------===//
// Kernel structure
//===----------------------------------------------------------------------===//

def Tile_KernelOp : Tile_Op<"kernel", [
    AutomaticAllocationScope, FunctionOpInterface, IsolatedFromAbove]> {
  let summary = "a tile kernel: one program of a launch grid";
  let description = [{
    Defines a kernel. Its body runs once per program of the launch grid, with
    single-program semantics: values are scalars or tiles of one program.

    Arguments are views (`!tile.view<...>`, the only way to reach global
    memory, each with its ownership mode) or scalars (signless integers,
    `index`, floats). A kernel returns nothing; its body is one block ended by
    `tile.return`.

    The region verifier checks what the safe subset promises for every value
    in the body: tiles are statically shaped tensors of at most 2^20 elements
    of a supported element type, and no memref or pointer value appears
    outside `tile.unchecked`.

    Example:

    ```mlir
    tile.kernel @copy_rows(%src: !tile.view<in, ?x4096xf16>,
                           %dst: !tile.view<out, ?x4096xf16>) {
      %pid = tile.program_id x
      %ps = tile.partition %src : !tile.partition<in, ?x4096xf16, tile = [1, 4096]>
      %pd = tile.partition %dst : !tile.partition<out, ?x4096xf16, tile = [1, 4096]>
      %c0 = arith.constant 0 : index
      %row = tile.load %ps[%pid, %c0] : !tile.partition<in, ?x4096xf16, tile = [1, 4096]> -> tensor<1x4096xf16>
      %blk = tile.own %pd[%pid, %c0] : !tile.partition<out, ?x4096xf16, tile = [1, 4096]>
      tile.store %row, %blk : tensor<1x4096xf16>, !tile.owned<out, 1x4096xf16>
      tile.return
    }
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       TypeAttrOf<FunctionType>:$function_type,
                       OptionalAttr<StrAttr>:$sym_visibility,
                       OptionalAttr<DictArrayAttr>:$arg_attrs,
                       OptionalAttr<DictArrayAttr>:$res_attrs);
  let regions = (region SizedRegion<1>:$body);
  let builders = [OpBuilder<(ins "::llvm::StringRef":$name,
                                 "::mlir::FunctionType":$type)>];
  let extraClassDeclaration = [{
    /// FunctionOpInterface: a kernel always has a body.
    ::mlir::Region *getCallableRegion() { return &getBody(); }
    ::llvm::ArrayRef<::mlir::Type> getArgumentTypes() {
      return getFunctionType().getInputs();
    }
    ::llvm::ArrayRef<::mlir::Type> getResultTypes() {
      return getFunctionType().getResults();
    }
  }];
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
}

def Tile_ReturnOp : Tile_Op<"return", [Pure, HasParent<"KernelOp">,
    ReturnLike, Terminator]> {
  let summary = "ends a kernel";
  let description = [{
    Terminates the body of a `tile.kernel`. Kernels produce no values: results
    leave a kernel only through stores into owned blocks.

    ```mlir
    tile.return
    ```
  }];
  let assemblyFormat = "attr-dict";
}

def Tile_YieldOp : Tile_Op<"yield", [Pure, ReturnLike, Terminator,
    ParentOneOf<["ReduceOp", "UncheckedOp", "JoinOp"]>]> {
  let summary = "yields values from a tile.reduce combiner or tile.unchecked region (ends a tile.join region)";
  let description = [{
    Terminates the combiner region of `tile.reduce` (the combined scalars) and
    the region of `tile.unchecked` (the region's results).

    ```mlir
    tile.yield %sum : f32
    ```
  }];
  let arguments = (ins Variadic<AnyType>:$values);
  let builders = [OpBuilder<(ins), [{ /* nothing to yield */ }]>];
  let assemblyFormat = "attr-dict ($values^ `:` type($values))?";
}

def Tile_ProgramIdOp : Tile_Op<"program_id", [Pure, Tile_InKernel,
    DeclareOpInterfaceMethods<InferIntRangeInterface, ["inferResultRanges"]>]> {
  let summary = "the current program's index along a grid dimension";
  let description = [{
    Returns the index of the running program along grid dimension `x`, `y` or
    `z`, in `[0, tile.num_programs)`. Integer range analysis sees that range
    (the hardware grid limits bound `tile.num_programs`).

    ```mlir
    %pid = tile.program_id x
    ```
  }];
  let arguments = (ins Tile_Dimension:$dim);
  let results = (outs Index:$result);
  let assemblyFormat = "$dim attr-dict";
}

def Tile_NumProgramsOp : Tile_Op<"num_programs", [Pure, Tile_InKernel,
    DeclareOpInterfaceMethods<InferIntRangeInterface, ["inferResultRanges"]>]> {
  let summary = "the number of programs along a grid dimension";
  let description = [{
    Returns the launch grid's extent along `x`, `y` or `z`: at least 1, at
    most 2^31 - 1 along `x` and 65535 along `y` and `z` (CUDA's limits).

    ```mlir
    %n = tile.num_programs y
    ```
  }];
  let arguments = (ins Tile_Dimension:$dim);
  let results = (outs Index:$result);
  let assemblyFormat = "$dim attr-dict";
}

def Tile_UncheckedOp : Tile_Op<"unchecked", [Tile_InKernel,
    SingleBlockImplicitTerminator<"YieldOp">, RecursiveMemoryEffects]> {
  let summary = "the explicit escape from the safety proof";
  let description = [{
    Code inside a `tile.unchecked` region is exempt from the ownership proof,
    like Rust's `unsafe` block: there `tile.store` may write a partition of an
    `out`/`inout` view directly at any tile index, `tile.load` may read any
    partition, and memref values may appear. The `reason` string is mandatory
    and shows up in reports. Every region is counted per kernel
    (`tile-report-unchecked`) and by the compile tools; the safe subset never
    needs one.

    ```mlir
    tile.unchecked "scatter rows by a permutation read from memory" {
      tile.store %v, %part[%i, %c0] : tensor<1x64xf32>, !tile.partition<out, ?x64xf32, tile = [1, 64]>
    }
    ```
  }];
  let arguments = (ins StrAttr:$reason);
  let results = (outs Variadic<AnyType>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat =
      "$reason (`->` type($results)^)? $body attr-dict";
  let hasVerifier = 1;
}

def Tile_JoinOp : Tile_Op<"join", [HasParent<"KernelOp">,
    SingleBlockImplicitTerminator<"YieldOp">, NoRegionArguments,
    RecursiveMemoryEffects]> {
  let summary = "runs a region in the last program of each group to finish";
  let description = [{
    Groups the programs of the launch by their index along grid dimension
    `dim`: programs with equal `tile.program_id dim` form a group, as many
    as the grid has programs along the other dimensions. Each program takes
    a ticket from its group's counter (`tickets[program_id dim]`) after
    every store it made before the join; the program that takes the
    group's last ticket resets the counter to 0 and runs the region. The
    others do nothing more.

    So the region runs once per group, after the whole group's stores. It
    may therefore read what the group wrote: inside it, `tile.load` may read
    an `inout` partition directly (outside a join, an `inout` view is read
    only through the block a program owns). `tile-verify-ownership` proves
    that no program of another group claims what such a load reads, and
    that the region's claims are disjoint between groups (one program per
    group runs it). This is the merge step of a split reduction (a
    split-K GEMV, flash-decoding's shares of the key length) without a
    launch of its own.

    Structure: at most one `tile.join` per kernel, directly in the body and
    last before `tile.return`, so every program reaches it once, and no
    store follows the tickets. `tickets` is a `ticket` view (rank 1, `i32`)
    with at least one counter per group (proven from `tile.assume` and the
    grid). It must hold zeros at the first launch; every launch leaves them
    at 0.

    The GPU lowering orders the group's stores before the last program's
    reads with a block barrier and `fence.acq_rel.gpu` around one atomic add per
    program; the CPU lowering takes the ticket with an atomic add too.

    ```mlir
    tile.join %tickets by x {
      %parts = tile.load %pp[%h, %c0] : !tile.partition<inout, ?x16xf32, tile = [1, 16]> -> tensor<1x16xf32>
      ...
    } : !tile.view<ticket, ?xi32>
    ```
  }];
  let arguments = (ins Tile_ViewType:$tickets, Tile_Dimension:$dim);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat =
      "$tickets `by` $dim $body attr-dict `:` qualified(type($tickets))";
  let hasVerifier = 1;
}

def Tile_GridSyncOp : Tile_Op<"grid_sync", [HasParent<"KernelOp">]> {
  let summary = "waits until every program of the launch has reached it";
  let description = [{
    A barrier across the whole grid: no program continues past it until
    every program of the launch has arrived, so what any program stored
    before it is visible to every program after it. It splits the kernel
    body into phases (the ops before the first `tile.grid_sync`, between
    two, after the last), which is what a persistent kernel needs: one
    launch whose programs run the stages of a computation in turn, each
    stage reading what the stage before wrote.

    The ownership proof extends per phase (`tile-verify-ownership`):
    claims are proven disjoint between programs within a phase (claims in
    different phases are ordered by the barrier); after a barrier,
    `tile.load` may read an `inout` partition directly (what any program
    stored in an earlier phase), and such a load is proven to touch nothing
    another program claims in its own phase. Deadlock freedom: the op sits
    directly in the kernel body, so every program reaches every barrier,
    in the same order; and every program must be resident at once, which
    the runtime checks at launch against the occupancy the compiled
    kernel gets (a grid that does not fit is refused, never run).

    Values computed before a barrier may be used after it only when they
    are recomputable from the program's ids, the views' sizes, scalar
    arguments and constants (index arithmetic, partitions, claims): the CPU
    lowering runs each phase for every program before the next phase and
    recomputes them there; loaded data crosses a barrier through memory. A
    claim (`tile.own`) counts in every phase it is made or used in, so a
    block written after a barrier through a claim made before it is proven
    against that phase's claims and reads.

    `tickets` is a `ticket` view (rank 1, `i32`) whose first counter the
    barriers use: zero at the first launch, left at zero by every launch.
    The GPU lowering: a block barrier, then thread 0 fences
    (`fence.acq_rel.gpu`), adds one to the counter and spins (relaxed
    atomic loads) until it
    reaches the barrier's index times the grid's program count, fences
    again, and a block barrier releases the program; at the end each
    program adds one more, and the last to do so resets the counter. The
    CPU lowering runs the phases one after another, each over every
    program.

    ```mlir
    tile.grid_sync %tickets : !tile.view<ticket, ?xi32>
    ```
  }];
  let arguments = (ins Tile_ViewType:$tickets);
  let assemblyFormat = "$tickets attr-dict `:` qualified(type($tickets))";
  let hasVerifier = 1;
}

def Tile_GridOp : Tile_Op<"grid", [HasParent<"KernelOp">]> {
  let summary = "declares the launch grid of the kernel";
  let description = [{
    States the grid the kernel must be launched with: one to three extents
    (`x`, then `y`, `z`; missing ones are 1). The extents are computed on the
    host from the launch arguments, so they may only use constants, scalar
    kernel arguments, `tile.dim`, `tile.num_tiles` and integer `arith` ops
    (never data in device memory). They become the grid rule of the launch
    contract: the runtime derives the grid from them.

    `tile-verify-ownership` proves its claims for exactly this grid: program
    ids range over `[0, extent)`, and a claim outside its partition's index
    space (an off-by-one grid) is an error. At most one per kernel, directly
    in the kernel body.

    ```mlir
    %rows = tile.num_tiles %py, 0 : !tile.partition<out, ?x4096xf16, tile = [1, 4096]>
    tile.grid %rows
    ```
  }];
  let arguments = (ins Variadic<Index>:$extents);
  let assemblyFormat = "$extents attr-dict";
  let hasVerifier = 1;
}

def Tile_AssumeOp : Tile_Op<"assume", [HasParent<"KernelOp">]> {
  let summary = "a condition on the launch arguments, checked at launch";
  let description = [{
    Declares a fact about the launch arguments (shape equalities,
    divisibility, scalar bounds such as `pos + T <= dim(kv_cache, 0)`) that
    the kernel relies on. Like `tile.grid`, the condition is computed on the
    host from constants, scalar arguments, `tile.dim`, `tile.num_tiles` and
    integer `arith` ops. It becomes a rule of the launch contract, which the
    runtime checks before every launch (a violation is an error naming the
    message, and nothing is launched), and `tile-verify-ownership` may use it
    as a hypothesis.

    ```mlir
    %k_x = tile.dim %x, 1 : !tile.view<in, ?x?xf16, strides = [?, 1]>
    %k_w = tile.dim %w, 1 : !tile.view<in, ?x?xf16, strides = [?, 1]>
    %same = arith.cmpi eq, %k_x, %k_w : index
    tile.assume %same, "x and w have the same K"
    ```
  }];
  let arguments = (ins I1:$condition, StrAttr:$message);
  let assemblyFormat = "$condition `,` $message attr-dict";
  let hasVerifier = 1;
}

def Tile_AssumeDistinctOp : Tile_Op<"assume_distinct", [HasParent<"KernelOp">]> {
  let summary = "the entries of an index table are distinct and in range";
  let description = [{
    Declares that the integer entries of the 1-D `frozen` view `table` are
    pairwise distinct and lie in `[lo, hi)`, where `lo` and `hi` are
    host-computable like a `tile.assume` condition. It becomes a
    `distinct_in_range` rule of the launch contract: the runtime reads the
    table at launch (its buffer must be frozen and host-visible) and checks
    it in O(n). `tile-verify-ownership` may then take an entry read at an
    index inside the table as one of distinct values in range, so a program
    may own the block `table[program_id]` of an output (a paged KV cache).

    ```mlir
    %nb = tile.dim %cache, 0 : !tile.view<inout, ?x16x128xf16>
    tile.assume_distinct %blocks, %c0, %nb, "block table entries are distinct"
        : !tile.view<frozen, ?xi32>
    ```
  }];
  let arguments = (ins Tile_ViewType:$table, Index:$lo, Index:$hi,
                       StrAttr:$message);
  let assemblyFormat = [{
    $table `,` $lo `,` $hi `,` $message attr-dict `:` type($table)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Views and partitions
//===----------------------------------------------------------------------===//

def Tile_DimOp : Tile_Op<"dim", [Pure, Tile_InKernel,
    DeclareOpInterfaceMethods<InferIntRangeInterface, ["inferResultRanges"]>]> {
  let summary = "a dim of a view";
  let description = [{
    Returns dim `index` of a view: a constant when the dim is static (the op
    folds), else the value the launch supplies.

    ```mlir
    %rows = tile.dim %x, 0 : !tile.view<in, ?x4096xf16>
    ```
  }];
  let arguments = (ins Tile_ViewType:$view, I64Attr:$index);
  let results = (outs Index:$result);
  let assemblyFormat = "$view `,` $index attr-dict `:` qualified(type($view))";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Tile_PartitionOp : Tile_Op<"partition", [Pure, Tile_InKernel,
    TypesMatchWith<"the view is the partition's view", "result", "view",
                   "::llvm::cast<::tile::PartitionType>($_self).getView()">]> {
  let summary = "splits a view into an aligned grid of non-overlapping tiles";
  let description = [{
    Splits a view argument into tiles of the static shape given by the result
    type. The view's type (mode, dims, strides) is the partition's.

    ```mlir
    %p = tile.partition %x : !tile.partition<in, ?x4096xf16, tile = [16, 4096]>
    ```
  }];
  let arguments = (ins Tile_ViewType:$view);
  let results = (outs Tile_PartitionType:$result);
  let assemblyFormat = "$view attr-dict `:` qualified(type($result))";
  let hasVerifier = 1;
}

def Tile_NumTilesOp : Tile_Op<"num_tiles", [Pure, Tile_InKernel,
    DeclareOpInterfaceMethods<InferIntRangeInterface, ["inferResultRanges"]>]> {
  let summary = "the number of tiles of a partition along a dim";
  let description = [{
    Returns `ceildiv(dim, tile)` along dim `index` of a partition: the extent
    of its index space. Folds to a constant for static dims.

    ```mlir
    %kt = tile.num_tiles %w, 1 : !tile.partition<in, ?x?xf16, strides = [?, 1], tile = [64, 64]>
    ```
  }];
  let arguments = (ins Tile_PartitionType:$partition, I64Attr:$index);
  let results = (outs Index:$result);
  let assemblyFormat =
      "$partition `,` $index attr-dict `:` qualified(type($partition))";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Tile_OwnOp : Tile_Op<"own", [Pure, Tile_InKernel,
    TypesMatchWith<"the result is the partition's owned block type",
                   "partition", "result",
                   "::llvm::cast<::tile::PartitionType>($_self).getOwnedType()">]> {
  let summary = "claims one block of an out/inout partition for this program";
  let description = [{
    Claims the tile at `indices` of an exclusively owned (`out`/`inout`)
    partition for the current program and returns a handle to it. Stores go
    only through such handles.

    The claim is what `tile-verify-ownership` proves race-free: the map from
    program ids (and loop iterations) to claimed tile indices must be
    injective over the launch grid, so no two programs own the same block.
    The op itself only checks types.

    ```mlir
    %blk = tile.own %p[%pid, %c0] : !tile.partition<out, ?x4096xf16, tile = [1, 4096]>
    ```
  }];
  let arguments = (ins Tile_PartitionType:$partition, Variadic<Index>:$indices);
  let results = (outs Tile_OwnedType:$result);
  let assemblyFormat =
      "$partition `[` $indices `]` attr-dict `:` qualified(type($partition))";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Memory access
//===----------------------------------------------------------------------===//

def Tile_LoadOp : Tile_Op<"load", [Tile_InKernel,
    MemoryEffects<[MemRead]>]> {
  let summary = "loads a tile of an in partition, or (a sub-tile of) an owned inout block";
  let description = [{
    With a partition source, loads the tile at tile `indices` (one per dim);
    the result shape is the partition's tile shape. The partition must be
    `in`: data of an `inout` view is read only through an owned block, and
    an `out` view is write-only (outside `tile.unchecked`).

    With an owned-block source (mode `inout`), loads the whole block (no
    indices) or the aligned sub-tile at `indices`, in units of the result
    shape, which must divide the block shape.

    Elements outside the view (a partial edge tile, or a tile index beyond
    the index space) read as `padding` (zero when absent). A load never
    touches memory outside its view.

    ```mlir
    %t = tile.load %p[%i, %c0] padding = 0xFC00 : f16 : !tile.partition<in, ?x4096xf16, tile = [1, 4096]> -> tensor<1x4096xf16>
    %s = tile.load %blk[%c0, %k] : !tile.owned<inout, 64x128xf32> -> tensor<64x32xf32>
    ```
  }];
  let arguments = (ins Tile_LoadSource:$source, Variadic<Index>:$indices,
                       OptionalAttr<TypedAttrInterface>:$padding);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = [{
    $source (`[` $indices^ `]`)? (`padding` `=` $padding^)? attr-dict `:`
    qualified(type($source)) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Tile_PrefetchOp : Tile_Op<"prefetch", [Tile_InKernel,
    MemoryEffects<[MemRead]>]> {
  let summary = "asks for the tile of an in partition to be brought into L2";
  let description = [{
    A hint with no effect on any value: the cache lines of the tile at tile
    `indices` of an `in` partition are fetched into the GPU's L2 cache, so
    the loads of that tile that follow hit it. Lines outside the view are
    not touched (partial edge tiles and tile indices past the index space
    prefetch only what lies inside). The CPU lowering drops it.

    Because it changes no value and L2 is the GPU's point of coherence, a
    prefetch may run before the kernel waits for the grid it depends on
    (`griddepcontrol.wait`): the GPU lowering places that wait after the
    prefetches that open the kernel, so a kernel launched as a programmatic
    dependent streams its first weights while the kernel before it runs.

    ```mlir
    tile.prefetch %pw[%n, %c0] : !tile.partition<in, ?x?xbf16, tile = [2, 1024]>
    ```
  }];
  let arguments = (ins Tile_PartitionType:$source, Variadic<Index>:$indices);
  let assemblyFormat = [{
    $source `[` $indices `]` attr-dict `:` qualified(type($source))
  }];
  let hasVerifier = 1;
}

def Tile_StoreOp : Tile_Op<"store", [Tile_InKernel,
    MemoryEffects<[MemWrite]>]> {
  let summary = "stores a tile into an owned block or an aligned sub-tile of it";
  let description = [{
    Writes `value` into the owned block `dest`: the whole block (no indices)
    or the aligned sub-tile at `indices`, in units of the value's shape,
    which must divide the block shape. Elements that fall outside the view
    (partial edge tiles) are masked: a store never writes memory outside its
    view.

    Inside `tile.unchecked` only, `dest` may be an `out`/`inout` partition,
    written at any tile index without an ownership proof.

    ```mlir
    tile.store %row, %blk : tensor<1x4096xf16>, !tile.owned<out, 1x4096xf16>
    tile.store %sub, %blk[%c0, %j] : tensor<64x32xf32>, !tile.owned<out, 64x128xf32>
    ```
  }];
  let arguments = (ins Tile_Tensor:$value, Tile_StoreDest:$dest,
                       Variadic<Index>:$indices);
  let assemblyFormat = [{
    $value `,` $dest (`[` $indices^ `]`)? attr-dict `:` type($value) `,`
    qualified(type($dest))
  }];
  let hasVerifier = 1;
}

def Tile_AtomicAddOp : Tile_Op<"atomic_add", [Tile_InKernel,
    MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "adds a tile into a tile of an add-only partition, atomically";
  let description = [{
    Adds each element of `value` into the element of the tile at `indices` of
    an `add` partition, as one atomic read-modify-write per element. Any
    program may add into any tile, any number of times: additions commute,
    so the result does not depend on which program ran first, only the
    rounding of the floating-point sum does (it is not bitwise
    reproducible). Elements that fall outside the view (partial edge tiles)
    are skipped. The kernel never reads an `add` view back; a kernel launched
    after this one sees the complete sum.

    f32 only. The use it serves: a reduction over all programs of a launch
    (the sum of squares an RMSNorm needs, from the programs that each write
    a few elements of the row) without a launch of its own.

    ```mlir
    tile.atomic_add %ss, %p[%c0] : tensor<1xf32>, !tile.partition<add, ?xf32, tile = [1]>
    ```
  }];
  let arguments = (ins Tile_Tensor:$value, Tile_PartitionType:$dest,
                       Variadic<Index>:$indices);
  let assemblyFormat = [{
    $value `,` $dest `[` $indices `]` attr-dict `:` type($value) `,`
    qualified(type($dest))
  }];
  let hasVerifier = 1;
}

def Tile_GatherOp : Tile_Op<"gather", [Tile_InKernel,
    MemoryEffects<[MemRead]>]> {
  let summary = "loads rows of an in partition selected by an index tile";
  let description = [{
    Gathers rows of a partition whose tile shape is `[1, t1, ..., tn]`: for
    each element `r` of the 1-D integer tile `rows`, the tile at
    `[r, indices...]`. The result has shape `[N, t1, ..., tn]` for `N` rows.
    Rows are element indices of dim 0 (the tile there is one row). A row
    index outside `[0, dim 0)`, such as a bad token id, reads `padding` (zero
    when absent), never foreign memory. The embedding lookup is this op.

    ```mlir
    %e = tile.gather %emb[%ids, %c0] : !tile.partition<in, ?x1024xbf16, tile = [1, 1024]>, tensor<1xi32> -> tensor<1x1024xbf16>
    ```
  }];
  let arguments = (ins Tile_PartitionType:$source,
                       1DTensorOf<[AnySignlessInteger, Index]>:$rows,
                       Variadic<Index>:$indices,
                       OptionalAttr<TypedAttrInterface>:$padding);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = [{
    $source `[` $rows (`,` $indices^)? `]` (`padding` `=` $padding^)? attr-dict
    `:` qualified(type($source)) `,` type($rows) `->` type($result)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Tile construction and shape manipulation
//===----------------------------------------------------------------------===//

def Tile_SplatOp : Tile_Op<"splat", [Pure, Tile_InKernel,
    TypesMatchWith<"the scalar is the tile's element type", "result", "value",
                   "::llvm::cast<::mlir::ShapedType>($_self).getElementType()">]> {
  let summary = "a tile with every element equal to a scalar";
  let description = [{
    ```mlir
    %t = tile.splat %eps : tensor<1x4096xf32>
    ```
  }];
  let arguments = (ins Tile_Scalar:$value);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = "$value attr-dict `:` type($result)";
}

def Tile_BroadcastOp : Tile_Op<"broadcast", [Pure, Tile_InKernel]> {
  let summary = "expands dims of size 1";
  let description = [{
    Repeats the operand along each dim where its size is 1 and the result's
    is larger. Ranks and element types match; every other dim is equal.

    ```mlir
    %b = tile.broadcast %r : tensor<16x1xf32> -> tensor<16x4096xf32>
    ```
  }];
  let arguments = (ins Tile_Tensor:$source);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = "$source attr-dict `:` type($source) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_IotaOp : Tile_Op<"iota", [Pure, Tile_InKernel]> {
  let summary = "the 1-D tile 0, 1, ..., n-1";
  let description = [{
    A 1-D integer tile holding `0, 1, ..., n-1`; with offsets and
    comparisons it builds masks (causal attention) and indices (argmax).

    ```mlir
    %i = tile.iota : tensor<128xi32>
    ```
  }];
  let results = (outs 1DTensorOf<[AnySignlessInteger, Index]>:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Tile_ReshapeOp : Tile_Op<"reshape", [Pure, Tile_InKernel]> {
  let summary = "reinterprets a tile's shape (row-major order kept)";
  let description = [{
    Same elements in the same row-major order, another shape with the same
    element count and element type.

    ```mlir
    %r = tile.reshape %t : tensor<1x4096xf16> -> tensor<32x128xf16>
    ```
  }];
  let arguments = (ins Tile_Tensor:$source);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = "$source attr-dict `:` type($source) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_PermuteOp : Tile_Op<"permute", [Pure, Tile_InKernel]> {
  let summary = "transposes the dims of a tile";
  let description = [{
    Result dim `i` is operand dim `permutation[i]`.

    ```mlir
    %t = tile.permute %k [1, 0] : tensor<64x128xf16> -> tensor<128x64xf16>
    ```
  }];
  let arguments = (ins Tile_Tensor:$source, DenseI64ArrayAttr:$permutation);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat =
      "$source $permutation attr-dict `:` type($source) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_SliceOp : Tile_Op<"slice", [Pure, Tile_InKernel]> {
  let summary = "a static rectangular part of a tile";
  let description = [{
    The part of the operand starting at the static `offsets`, with the
    result's shape, unit stride. It must lie inside the operand.

    ```mlir
    %lo = tile.slice %q [0, 0] : tensor<1x128xf32> -> tensor<1x64xf32>
    %hi = tile.slice %q [0, 64] : tensor<1x128xf32> -> tensor<1x64xf32>
    ```
  }];
  let arguments = (ins Tile_Tensor:$source, DenseI64ArrayAttr:$offsets);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat =
      "$source $offsets attr-dict `:` type($source) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_ConcatOp : Tile_Op<"concat", [Pure, Tile_InKernel]> {
  let summary = "joins tiles along one dim";
  let description = [{
    Concatenates the operands along `dim`; all other dims and the element
    type agree, and the result's `dim` is the sum of the operands'.

    ```mlir
    %r = tile.concat %a, %b dim = 1 : tensor<1x64xf32>, tensor<1x64xf32> -> tensor<1x128xf32>
    ```
  }];
  let arguments = (ins Variadic<Tile_Tensor>:$inputs, I64Attr:$dim);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = [{
    $inputs `dim` `=` $dim attr-dict `:` type($inputs) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Tile_RollOp : Tile_Op<"roll", [Pure, Tile_InKernel, SameOperandsAndResultType]> {
  let summary = "rotates a tile's elements along one dim";
  let description = [{
    Element `i` along `dim` of the result is element `(i - shift) mod n` of
    the operand (`n` its size along `dim`), as `torch.roll` and
    `numpy.roll`: the elements move `shift` places up, those past the end
    coming round to the front. Any integer `shift`; the other dims are
    unchanged.

    NeoX RoPE's rotate-half of a head is a roll by half the head with the
    first half negated: `concat(-x[64:], x[:64]) == roll(x, 64) * sign`.
    On the GPU, a roll along the last dim by whole vectors whose rows each
    lie within one warp is a register shuffle between lanes of that warp.

    ```mlir
    %r = tile.roll %x shift = 64 dim = 1 : tensor<16x128xf32>
    ```
  }];
  let arguments = (ins Tile_Tensor:$source, I64Attr:$shift, I64Attr:$dim);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat =
      "$source `shift` `=` $shift `dim` `=` $dim attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Tile_ExtractOp : Tile_Op<"extract", [Pure, Tile_InKernel,
    TypesMatchWith<"the result is the tile's element type", "source", "result",
                   "::llvm::cast<::mlir::ShapedType>($_self).getElementType()">]> {
  let summary = "one element of a tile, as a scalar";
  let description = [{
    Reads the element at the static `position`. Used to turn a value loaded
    from device memory (a decode position, a sampled token) into a scalar.

    ```mlir
    %pos = tile.extract %t [0] : tensor<1xi32>
    ```
  }];
  let arguments = (ins Tile_Tensor:$source, DenseI64ArrayAttr:$position);
  let results = (outs Tile_Scalar:$result);
  let assemblyFormat = "$source $position attr-dict `:` type($source)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Computation
//===----------------------------------------------------------------------===//

def Tile_ReduceOp : Tile_Op<"reduce", [Pure, Tile_InKernel,
    SameOperandsShape]> {
  let summary = "reduces tiles along one dim with a combiner region";
  let description = [{
    Reduces `N` tiles of one shape together along `dim` with the combiner
    region, keeping the dim with size 1. The region has one block of `2N`
    scalar arguments (`N` accumulated values, then `N` incoming values) and
    yields `N` combined scalars. The combiner must be associative and
    commutative: the order of combination is unspecified. Several operands
    reduce together, so argmax is a reduction of (value, index) pairs.

    ```mlir
    %s = tile.reduce %x dim = 1 : (tensor<1x4096xf32>) -> tensor<1x1xf32> {
    ^bb0(%a: f32, %b: f32):
      %r = arith.addf %a, %b : f32
      tile.yield %r : f32
    }
    ```
  }];
  let arguments = (ins Variadic<Tile_Tensor>:$inputs, I64Attr:$dim);
  let results = (outs Variadic<Tile_Tensor>:$results);
  let regions = (region SizedRegion<1>:$combiner);
  let assemblyFormat = [{
    $inputs `dim` `=` $dim attr-dict `:` functional-type($inputs, $results)
    $combiner
  }];
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
}

def Tile_DotOp : Tile_Op<"dot", [Pure, Tile_InKernel,
    AllTypesMatch<["acc", "result"]>]> {
  let summary = "matrix multiply-accumulate of 2-D tiles (f32 accumulator)";
  let description = [{
    `result = a * b + acc` with `a: MxK`, `b: KxN`, `acc: MxN`. The operands
    are both `f16` or both `bf16`; the accumulator and result are `f32`.
    On the GPU it lowers to tensor-core MMA.

    ```mlir
    %c = tile.dot %a, %b, %acc : tensor<64x32xf16>, tensor<32x128xf16> -> tensor<64x128xf32>
    ```
  }];
  let arguments = (ins Tile_Tensor:$a, Tile_Tensor:$b, Tile_Tensor:$acc);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = [{
    $a `,` $b `,` $acc attr-dict `:` type($a) `,` type($b) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Tile_ConvertOp : Tile_Op<"convert", [Pure, Tile_InKernel]> {
  let summary = "element type conversion of a tile";
  let description = [{
    Converts each element to the result's element type; shapes are equal.

    * float to float: exact when widening; when narrowing, rounded per
      `rounding` (`rne`, round to nearest even, when absent, or `rtz`).
    * integer to float: rounded per `rounding`. Integers are signed.
    * float to integer: truncated toward zero; NaN and out-of-range values
      saturate. `rounding` is not allowed.
    * integer to integer: sign-extended or truncated. `rounding` is not
      allowed.
    * `f8E4M3FN` widens to any float, exactly; nothing converts to it.

    ```mlir
    %h = tile.convert %acc : tensor<64x128xf32> -> tensor<64x128xbf16>
    %z = tile.convert %acc rounding = rtz : tensor<64x128xf32> -> tensor<64x128xf16>
    ```
  }];
  let arguments = (ins Tile_Tensor:$source,
                       OptionalAttr<Tile_RoundingMode>:$rounding);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = [{
    $source (`rounding` `=` $rounding^)? attr-dict `:` type($source) `->`
    type($result)
  }];
  let hasVerifier = 1;
}

#endif // TILE_DIALECT_TILE_IR_TILEOPS_TD

//===- LowerGlobalMemory.cpp - loads, stores and gathers of tiles ---------===//
//
// Global memory access of the GPU lowering: claimed blocks, partition
// addressing, 16-byte vector loads and stores with masked edges, gathers,
// L2 prefetches, and loads re-issued in the layout of a broadcast that
// consumes them.
//
//===----------------------------------------------------------------------===//

#include "OpLowerings.h"
#include "Remarks.h"

#include "llvm/Support/FormatVariadic.h"

#include "tile/Conversion/Utils/BlockAccess.h"
#include "tile/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace tile;
using namespace tile::gpu_lowering;
//===----------------------------------------------------------------------===//
// Global memory
//===----------------------------------------------------------------------===//

/// Why `vec` consecutive elements along the last dim of `memref` cannot be
/// contiguous and aligned to their size; none when they can: a static unit
/// inner stride, and every static outer stride a multiple of `vec`. Dynamic
/// outer strides are checked at run time (GlobalAccess::stridesAligned).
static std::optional<std::string> whyNotVectorizable(MemRefType type,
                                                     int64_t vec) {
  auto [strides, offset] = type.getStridesAndOffset();
  if (strides.empty() || strides.back() != 1)
    return std::string("the view's inner stride is not 1");
  for (int64_t s : ArrayRef<int64_t>(strides).drop_back())
    if (!ShapedType::isDynamic(s) && s % vec != 0)
      return llvm::formatv("an outer stride ({0}) is not a multiple of {1}",
                           s, vec)
          .str();
  return std::nullopt;
}

/// Addresses of the vector slots of a tile at `offsets` of `base`. Tile dim
/// d indexes memref dim dimMap[d], or none when dimMap[d] < 0 (the tile
/// repeats along d: a broadcast); an empty dimMap is the identity. With
/// `inBounds` the tile is proven inside the view and its rows aligned by the
/// launch contract (tile.in_bounds, aligned_rows): no bounds or alignment
/// conditions are built.
struct GlobalAccess {
  GlobalAccess(GlobalMemoryLowering &L, Location loc, Value base,
               ArrayRef<Value> offsets, const Layout &layout,
               ArrayRef<int64_t> dimMap = {}, bool inBounds = false)
      : L(L), loc(loc), base(base), offsets(offsets), layout(layout), inBounds(inBounds) {
    auto memrefType = cast<MemRefType>(base.getType());
    for (int64_t d = 0; d < memrefType.getRank(); ++d)
      bounds.push_back(memref::DimOp::create(L.b, loc, base, d));
    if (dimMap.empty())
      for (int64_t d = 0; d < layout.type.getRank(); ++d)
        this->dimMap.push_back(d);
    else
      this->dimMap.assign(dimMap.begin(), dimMap.end());
    assert(this->dimMap.back() == memrefType.getRank() - 1 &&
           "lanes run along the memref's last dim");
    std::optional<std::string> why;
    if (layout.vec > 1)
      why = whyNotVectorizable(memrefType, layout.vec);
    vectorize = layout.vec > 1 && !why;
    if (why && remarksEnabled(L.b.getContext()))
      missedFastPath(loc, L.func.getName(), "vector-access")
          << remark::reason("element accesses instead of {0}-element "
                            "vectors: {1}",
                            layout.vec, *why);
    eltBytes = std::max<int64_t>(1, layout.type.getElementTypeBitWidth() / 8);
    if (vectorize && !inBounds)
      stridesAligned = dynamicStridesAligned(base, memrefType);
  }

  /// With dynamic outer strides (a weight `Tensor<T, [?, ?]>`), whether they
  /// are multiples of the vector width, as a uniform run-time condition; null
  /// when every stride is static. The view's start is 16-byte aligned by the
  /// runtime's launch check, so this makes every vector slot aligned.
  Value dynamicStridesAligned(Value base, MemRefType type) {
    OpBuilder &b = L.b;
    auto [strides, offset] = type.getStridesAndOffset();
    Value aligned;
    memref::ExtractStridedMetadataOp meta;
    for (size_t d = 0; d + 1 < strides.size(); ++d) {
      if (!ShapedType::isDynamic(strides[d]))
        continue;
      if (!meta)
        meta = memref::ExtractStridedMetadataOp::create(b, loc, base);
      Value rem = arith::RemUIOp::create(b, loc, meta.getStrides()[d],
                                         L.emit.index(layout.vec));
      Value ok = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, rem,
                                       L.emit.index(0));
      aligned = aligned ? arith::AndIOp::create(b, loc, aligned, ok) : ok;
    }
    return aligned;
  }

  /// For slot `k` of this thread: the element indices of its first lane, the
  /// condition that the slot exists and its row is inside the view, and the
  /// condition that all its lanes are inside the view and aligned. With
  /// `inBounds` only the slot's existence is checked: both conditions are
  /// that, or null where the slot always exists.
  std::tuple<SmallVector<Value>, Value, Value> slot(int64_t k) {
    OpBuilder &b = L.b;
    Value p =
        arith::AddIOp::create(b, loc, L.tid, L.emit.index(k * layout.threads));
    Value e0 = arith::MulIOp::create(b, loc, p, L.emit.index(layout.vec));
    SmallVector<Value> idx = L.emit.delinearize(e0, layout.type.getShape());
    SmallVector<Value> at(offsets.begin(), offsets.end());
    for (auto [d, m] : llvm::enumerate(dimMap))
      if (m >= 0)
        at[m] = arith::AddIOp::create(b, loc, at[m], idx[d]);
    if (inBounds) {
      Value exists;
      if ((k + 1) * layout.threads > layout.positions)
        exists = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, p,
                                       L.emit.index(layout.positions));
      return {at, exists, exists};
    }
    Value ok = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, p,
                                     L.emit.index(layout.positions));
    for (size_t m = 0; m + 1 < at.size(); ++m)
      ok = arith::AndIOp::create(b, loc, ok, isInBounds(b, loc, at[m], bounds[m]));
    Value last = at.back();
    Value lastEnd =
        arith::AddIOp::create(b, loc, last, L.emit.index(layout.vec - 1));
    Value whole = arith::AndIOp::create(
        b, loc, ok,
        arith::AndIOp::create(b, loc, isInBounds(b, loc, last, bounds.back()),
                              isInBounds(b, loc, lastEnd, bounds.back())));
    if (stridesAligned)
      whole = arith::AndIOp::create(b, loc, whole, stridesAligned);
    return {at, ok, whole};
  }

  /// For an in-bounds vector access: the view as one dimension and, per
  /// slot, the element index of its first lane in it. The tile's origin
  /// (the view's offset and `offsets` times the strides) is added once and
  /// each slot after the first adds a fixed step where the layout moves
  /// every thread by the same index delta (a slot is whole rows of the
  /// tile). Per slot, indexing the view at the sum of the tile's and the
  /// thread's indices multiplied each by a dynamic stride: six 64-bit
  /// instructions a load, which LLVM cannot fold across the `or` it turns
  /// the disjoint sum into. Empty where the access is not such.
  std::pair<Value, SmallVector<Value>> flatSlots() {
    if (!inBounds || !vectorize)
      return {};
    OpBuilder &b = L.b;
    ArrayRef<int64_t> shape = layout.type.getShape();
    const int64_t rank = shape.size();
    auto delin = [&](int64_t e) {
      SmallVector<int64_t> idx(rank);
      for (int64_t d = rank - 1; d >= 0; --d) {
        idx[d] = d == 0 ? e : e % shape[d];
        e /= shape[d];
      }
      return idx;
    };
    // Slot k's indices are slot 0's plus delta[k] for every thread.
    const int64_t T = layout.threads * layout.vec;
    SmallVector<SmallVector<int64_t>> delta;
    for (int64_t k = 0; k < layout.slots; ++k) {
      SmallVector<int64_t> dk = delin(k * T);
      for (int64_t t = 0; t < layout.threads; ++t) {
        if (k * T + t * layout.vec >= layout.positions * layout.vec)
          break;
        SmallVector<int64_t> a = delin(t * layout.vec), c = delin(k * T + t * layout.vec);
        for (int64_t d = 0; d < rank; ++d)
          if (a[d] + dk[d] != c[d])
            return {};
      }
      delta.push_back(dk);
    }
    auto type = cast<MemRefType>(base.getType());
    auto meta = memref::ExtractStridedMetadataOp::create(b, loc, base);
    auto strides = meta.getStrides();
    Value origin = meta.getOffset();
    for (auto [m, o] : llvm::enumerate(offsets))
      origin = arith::AddIOp::create(
          b, loc, origin, arith::MulIOp::create(b, loc, o, strides[m]));
    Value e0 = arith::MulIOp::create(b, loc, L.tid, L.emit.index(layout.vec));
    SmallVector<Value> idx = L.emit.delinearize(e0, shape);
    Value at = origin;
    for (auto [d, m] : llvm::enumerate(dimMap))
      if (m >= 0)
        at = arith::AddIOp::create(
            b, loc, at, arith::MulIOp::create(b, loc, idx[d], strides[m]));
    SmallVector<Value> slots{at};
    for (int64_t k = 1; k < layout.slots; ++k) {
      Value step;
      for (auto [d, m] : llvm::enumerate(dimMap)) {
        const int64_t dd = delta[k][d] - delta[k - 1][d];
        if (m < 0 || dd == 0)
          continue;
        Value term = arith::MulIOp::create(b, loc, strides[m], L.emit.index(dd));
        step = step ? arith::AddIOp::create(b, loc, step, term).getResult() : term;
      }
      at = step ? arith::AddIOp::create(b, loc, at, step).getResult() : at;
      slots.push_back(at);
    }
    // The size is not read: the access is proven inside the view.
    const int64_t extent = int64_t(1) << 40;
    auto flatType = MemRefType::get({extent}, type.getElementType(),
                                    MemRefLayoutAttrInterface(), type.getMemorySpace());
    Value flat = memref::ReinterpretCastOp::create(
        b, loc, flatType, meta.getBaseBuffer(), /*offset=*/int64_t(0),
        /*sizes=*/ArrayRef<int64_t>{extent}, /*strides=*/ArrayRef<int64_t>{1});
    return {flat, slots};
  }

  GlobalMemoryLowering &L;
  Location loc;
  Value base;
  ArrayRef<Value> offsets;
  const Layout &layout;
  bool inBounds;
  SmallVector<int64_t> dimMap;
  SmallVector<Value> bounds;
  bool vectorize = false;
  Value stridesAligned;
  int64_t eltBytes = 1;
};

/// Loads the tile of `layout` at element `offsets` of `base`: vec-wide
/// loads where the whole vector is inside `base`, element loads with
/// padding at the edges. `dimMap` as for GlobalAccess. With `inBounds` (the
/// tile is proven inside `base`: tile.in_bounds, with an aligned_rows
/// contract rule for dynamic strides) there are no edges: a slot is one
/// unguarded vector load, so a loop of them is straight-line code. (A
/// guarded fallback would not do: the backend merges the two arms into one
/// load with the weaker alignment.)
static Value maskedLoad(GlobalMemoryLowering &L, Location loc, Value base,
                        ArrayRef<Value> offsets, const Layout &layout,
                        TypedAttr padding, ArrayRef<int64_t> dimMap = {},
                        bool inBounds = false) {
  OpBuilder &b = L.b;
  GlobalAccess access(L, loc, base, offsets, layout, dimMap, inBounds);
  Value pad = padding ? arith::ConstantOp::create(b, loc, padding).getResult()
                      : L.emit.zeroOf(layout.type.getElementType());
  bool vectorize = access.vectorize;
  int64_t eltBytes = access.eltBytes;
  SmallVector<Value> &bounds = access.bounds;
  auto [flat, flatAt] = access.flatSlots();
  // The fast path of slot k: one vector load, or vec element loads (no
  // padding).
  auto loadWhole = [&, flat = flat, &flatAt = flatAt](int64_t k, ArrayRef<Value> at) -> Value {
    if (flat) {
      auto load = vector::LoadOp::create(b, loc, layout.slotType(), flat,
                                         ValueRange{flatAt[k]});
      load.setAlignmentAttr(b.getI64IntegerAttr(layout.vec * eltBytes));
      return load;
    }
    if (vectorize) {
      auto load = vector::LoadOp::create(b, loc, layout.slotType(), base, at);
      load.setAlignmentAttr(b.getI64IntegerAttr(layout.vec * eltBytes));
      return load;
    }
    Value v = L.emit.zeroOf(layout.slotType());
    for (int64_t i = 0; i < layout.vec; ++i) {
      SmallVector<Value> ai(at);
      ai.back() = arith::AddIOp::create(b, loc, at.back(), L.emit.index(i));
      v = vector::InsertOp::create(
          b, loc, memref::LoadOp::create(b, loc, base, ai), v, i);
    }
    return v;
  };
  Value regs = L.emit.zeroOf(layout.registerType());
  for (int64_t k = 0; k < layout.slots; ++k) {
    auto [at, ok, whole] = access.slot(k);
    if (!whole) { // in bounds, and the slot always exists
      regs = L.emit.insertSlot(loc, regs, loadWhole(k, at), k);
      continue;
    }
    auto branch = scf::IfOp::create(b, loc, TypeRange{layout.slotType()},
                                    whole, /*withElse=*/true);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(branch.thenBlock());
      scf::YieldOp::create(b, loc, loadWhole(k, at));
      b.setInsertionPointToStart(branch.elseBlock());
      Value slot = L.emit.zeroOf(layout.slotType());
      // In bounds, the else is a slot past the tile's end: no element. Else
      // the edge (or unaligned strides): element by element, padding outside.
      if (!inBounds)
        for (int64_t i = 0; i < layout.vec; ++i) {
          SmallVector<Value> ai(at);
          ai.back() = arith::AddIOp::create(b, loc, at.back(), L.emit.index(i));
          Value inb = arith::AndIOp::create(
              b, loc, ok, isInBounds(b, loc, ai.back(), bounds.back()));
          slot = vector::InsertOp::create(
              b, loc, loadOrPad(b, loc, base, ai, inb, pad), slot, i);
        }
      scf::YieldOp::create(b, loc, slot);
    }
    regs = L.emit.insertSlot(loc, regs, branch.getResult(0), k);
  }
  return regs;
}

void GlobalMemoryLowering::copyTileAsync(
    Location loc, Value base, ArrayRef<Value> offsets, const Layout &layout,
    Value buf, function_ref<Value(Value element)> address) {
  GlobalAccess access(*this, loc, base, offsets, layout, /*dimMap=*/{},
                      /*inBounds=*/true);
  for (int64_t k = 0; k < layout.slots; ++k) {
    auto [at, exists, whole] = access.slot(k);
    OpBuilder::InsertionGuard guard(b);
    if (exists) { // a slot past the tile's end
      auto branch = scf::IfOp::create(b, loc, exists, /*withElse=*/false);
      b.setInsertionPointToStart(branch.thenBlock());
    }
    Value e0 = arith::MulIOp::create(
        b, loc,
        arith::AddIOp::create(b, loc, tid, emit.index(k * layout.threads)),
        emit.index(layout.vec));
    nvgpu::DeviceAsyncCopyOp::create(
        b, loc, buf, ValueRange{address(e0)}, base, at,
        b.getIndexAttr(layout.vec), /*srcElements=*/Value(),
        /*bypassL1=*/b.getUnitAttr());
  }
}

/// Stores the tile registers `regs` of `layout` at `offsets` of `base`,
/// skipping elements outside it; with `accumulate`, adds them atomically
/// instead, element by element (tile.atomic_add).
static void maskedStore(GlobalMemoryLowering &L, Location loc, Value regs,
                        Value base, ArrayRef<Value> offsets,
                        const Layout &layout, bool accumulate = false) {
  OpBuilder &b = L.b;
  GlobalAccess access(L, loc, base, offsets, layout);
  for (int64_t k = 0; k < layout.slots; ++k) {
    auto [at, ok, whole] = access.slot(k);
    Value slot = L.emit.extractSlot(loc, regs, k, layout.vec);
    Value last = at.back();
    bool vectorize = access.vectorize && !accumulate;
    int64_t eltBytes = access.eltBytes;
    auto put = [&](Value v, ValueRange ai) {
      if (accumulate)
        memref::AtomicRMWOp::create(b, loc, arith::AtomicRMWKind::addf, v,
                                    base, ai);
      else
        memref::StoreOp::create(b, loc, v, base, ai);
    };
    auto branch = scf::IfOp::create(b, loc, whole, /*withElse=*/true);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(branch.thenBlock());
    if (vectorize) {
      auto store = vector::StoreOp::create(b, loc, slot, base, at);
      store.setAlignmentAttr(b.getI64IntegerAttr(layout.vec * eltBytes));
    } else {
      for (int64_t i = 0; i < layout.vec; ++i) {
        SmallVector<Value> ai(at);
        ai.back() = arith::AddIOp::create(b, loc, last, L.emit.index(i));
        put(vector::ExtractOp::create(b, loc, slot, i), ai);
      }
    }
    b.setInsertionPointToStart(branch.elseBlock());
    for (int64_t i = 0; i < layout.vec; ++i) {
      SmallVector<Value> ai(at);
      ai.back() = arith::AddIOp::create(b, loc, last, L.emit.index(i));
      Value inb = arith::AndIOp::create(
          b, loc, ok, isInBounds(b, loc, ai.back(), access.bounds.back()));
      auto one = scf::IfOp::create(b, loc, inb, /*withElse=*/false);
      OpBuilder::InsertionGuard inner(b);
      b.setInsertionPointToStart(one.thenBlock());
      put(vector::ExtractOp::create(b, loc, slot, i), ai);
    }
  }
}

/// Whether tile-mark-in-bounds-loads proved `load`'s tile inside its view.
static bool isProvenInBounds(LoadOp load) {
  return load->hasAttr(kInBoundsAttrName);
}

static SmallVector<Value> scaledIndices(GlobalMemoryLowering &L, Location loc,
                                        ValueRange indices,
                                        ArrayRef<int64_t> scale) {
  SmallVector<Value> out;
  for (auto [i, s] : llvm::zip_equal(indices, scale))
    out.push_back(
        arith::MulIOp::create(L.b, loc, L.map.lookup(i), L.emit.index(s)));
  return out;
}

LogicalResult GlobalMemoryLowering::lowerPartition(PartitionOp op) {
  state.partitions[op.getResult()] = {map.lookup(op.getView()),
                                      op.getResult().getType().getTileShape()};
  return success();
}

LogicalResult GlobalMemoryLowering::lowerNumTiles(NumTilesOp op) {
  auto [memref, tile] = state.partitions.lookup(op.getPartition());
  Value dim = memref::DimOp::create(b, op.getLoc(), memref, op.getIndex());
  map.map(op.getResult(),
          arith::CeilDivUIOp::create(b, op.getLoc(), dim,
                                     emit.index(tile[op.getIndex()])));
  return success();
}

LogicalResult GlobalMemoryLowering::lowerDim(DimOp op) {
  map.map(op.getResult(),
          memref::DimOp::create(b, op.getLoc(), map.lookup(op.getView()),
                                op.getIndex()));
  return success();
}

LogicalResult GlobalMemoryLowering::lowerOwn(OwnOp op) {
  Location loc = op.getLoc();
  auto [memref, tile] = state.partitions.lookup(op.getPartition());
  SmallVector<Value> offsets = scaledIndices(*this, loc, op.getIndices(), tile);
  state.blocks[op.getResult()] =
      createClippedBlock(b, loc, memref, offsets, tile);
  return success();
}

/// The memref and element offsets a load or store at `indices` of a
/// partition or claimed block `handle` addresses, for a tile of `type`.
std::pair<Value, SmallVector<Value>>
GlobalMemoryLowering::resolveAccess(Location loc, Value handle,
                                    ValueRange indices, RankedTensorType type) {
  if (auto it = state.partitions.find(handle); it != state.partitions.end())
    return {it->second.first,
            scaledIndices(*this, loc, indices, it->second.second)};
  // A claimed block: the whole block, or the aligned sub-tile at indices.
  SmallVector<Value> offsets =
      indices.empty() ? SmallVector<Value>(type.getRank(), emit.index(0))
                      : scaledIndices(*this, loc, indices, type.getShape());
  return {state.blocks.lookup(handle), offsets};
}

LogicalResult GlobalMemoryLowering::lowerLoad(LoadOp op) {
  Location loc = op.getLoc();
  Layout layout = Layout::get(op.getResult().getType(), threads);
  auto [base, offsets] =
      resolveAccess(loc, op.getSource(), op.getIndices(), layout.type);
  TypedAttr pad = op.getPadding() ? *op.getPadding() : TypedAttr();
  // A single element (a position, a norm's sum) is loaded by every thread
  // as if each were thread 0: one address, one transaction per warp, and
  // its uses need no shared memory to reach the other threads.
  bool single = layout.positions == 1;
  Value realTid = tid;
  if (single)
    tid = emit.index(0);
  Value regs = maskedLoad(*this, loc, base, offsets, layout, pad,
                          /*dimMap=*/{}, isProvenInBounds(op));
  tid = realTid;
  map.map(op.getResult(), regs);
  if (single)
    state.setReplicated(op.getResult(), threads);
  return success();
}

LogicalResult GlobalMemoryLowering::lowerStore(StoreOp op) {
  Location loc = op.getLoc();
  Layout layout = Layout::get(op.getValue().getType(), threads);
  auto [base, offsets] =
      resolveAccess(loc, op.getDest(), op.getIndices(), layout.type);
  maskedStore(*this, loc, map.lookup(op.getValue()), base, offsets, layout);
  return success();
}

LogicalResult GlobalMemoryLowering::lowerAtomicAdd(AtomicAddOp op) {
  Location loc = op.getLoc();
  Layout layout = Layout::get(op.getValue().getType(), threads);
  auto [base, offsets] =
      resolveAccess(loc, op.getDest(), op.getIndices(), layout.type);
  maskedStore(*this, loc, map.lookup(op.getValue()), base, offsets, layout,
              /*accumulate=*/true);
  return success();
}

LogicalResult GlobalMemoryLowering::lowerGather(GatherOp op) {
  Location loc = op.getLoc();
  auto entry = state.partitions.lookup(op.getSource());
  Value memref = entry.first;
  ArrayRef<int64_t> tile = entry.second;
  RankedTensorType type = op.getResult().getType();
  Layout layout = Layout::get(type, threads);
  Value rows = shared.toShared(loc, op.getRows());
  SmallVector<Value> offsets{emit.index(0)};
  llvm::append_range(offsets,
                     scaledIndices(*this, loc, op.getIndices(), tile.drop_front()));
  SmallVector<Value> bounds;
  for (unsigned d = 0; d < tile.size(); ++d)
    bounds.push_back(memref::DimOp::create(b, loc, memref, d));
  TypedAttr padding = op.getPadding() ? *op.getPadding() : TypedAttr();
  Value pad = padding ? arith::ConstantOp::create(b, loc, padding).getResult()
                      : emit.zeroOf(type.getElementType());
  map.map(op.getResult(),
          emit.buildRegisters(loc, layout, [&](int64_t, int64_t, Value e) {
            SmallVector<Value> idx = emit.delinearize(e, type.getShape());
            return gatherElement(b, loc, memref,
                                 memref::LoadOp::create(b, loc, rows, idx[0]),
                                 offsets, idx, bounds, pad);
          }));
  return success();
}

/// The L2 line a prefetch brings in.
static constexpr int64_t kL2LineBytes = 128;

/// One prefetch.L2 per cache line of the tile, spread over the block's
/// threads: along the last dim, the lines starting at every line's worth of
/// elements from the tile's first, and the one holding its last element (the
/// tile need not start on a line). Probes outside the view are skipped: a
/// prefetch never names an address outside it.
LogicalResult GlobalMemoryLowering::lowerPrefetch(PrefetchOp op) {
  Location loc = op.getLoc();
  if (!state.l2Prefetch) {
    // A hint: dropped where the backend has no instruction for it.
    if (remarksEnabled(b.getContext()))
      missedFastPath(loc, func.getName(), "l2-prefetch")
          << remark::reason("prefetch dropped: the target has no L2 "
                            "prefetch (sm_90 and later)");
    return success();
  }
  PartitionType type = op.getSource().getType();
  ArrayRef<int64_t> tile = type.getTileShape();
  auto [base, offsets] =
      resolveAccess(loc, op.getSource(), op.getIndices(), type.getTileType());
  int64_t rank = tile.size();
  int64_t eltBytes =
      std::max<int64_t>(1, type.getElementType().getIntOrFloatBitWidth() / 8);
  int64_t lineElems = std::max<int64_t>(1, kL2LineBytes / eltBytes);
  int64_t inner = tile.back();
  int64_t perRow = llvm::divideCeil(inner, lineElems) + (inner > 1 ? 1 : 0);
  int64_t rows = 1;
  for (int64_t s : tile.drop_back())
    rows *= s;
  int64_t probes = rows * perRow;

  SmallVector<Value> bounds;
  for (int64_t d = 0; d < rank; ++d)
    bounds.push_back(memref::DimOp::create(b, loc, base, d));
  auto meta = memref::ExtractStridedMetadataOp::create(b, loc, base);
  Value start = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, base);
  auto ptrType = LLVM::LLVMPointerType::get(b.getContext());
  auto level = NVVM::PrefetchCacheLevelAttr::get(b.getContext(),
                                                 NVVM::PrefetchCacheLevel::L2);
  for (int64_t s = 0; s * threads < probes; ++s) {
    Value q = arith::AddIOp::create(b, loc, tid, emit.index(s * threads));
    Value ok;
    if ((s + 1) * threads > probes)
      ok = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, q,
                                 emit.index(probes));
    Value row = arith::DivUIOp::create(b, loc, q, emit.index(perRow));
    Value j = arith::RemUIOp::create(b, loc, q, emit.index(perRow));
    Value col = arith::MinUIOp::create(
        b, loc, arith::MulIOp::create(b, loc, j, emit.index(lineElems)),
        emit.index(inner - 1));
    SmallVector<Value> at = emit.delinearize(row, tile.drop_back());
    at.push_back(col);
    Value linear = meta.getOffset();
    for (int64_t d = 0; d < rank; ++d) {
      at[d] = arith::AddIOp::create(b, loc, offsets[d], at[d]);
      Value inb = isInBounds(b, loc, at[d], bounds[d]);
      ok = ok ? arith::AndIOp::create(b, loc, ok, inb).getResult() : inb;
      linear = arith::AddIOp::create(
          b, loc, linear,
          arith::MulIOp::create(b, loc, at[d], meta.getStrides()[d]));
    }
    auto guard = scf::IfOp::create(b, loc, ok, /*withElse=*/false);
    OpBuilder::InsertionGuard inner(b);
    b.setInsertionPointToStart(guard.thenBlock());
    Value addr = arith::AddIOp::create(
        b, loc, start,
        arith::MulIOp::create(b, loc, linear, emit.index(eltBytes)));
    Value ptr = LLVM::IntToPtrOp::create(
        b, loc, ptrType,
        arith::IndexCastUIOp::create(b, loc, b.getI64Type(), addr),
        /*dereferenceable=*/nullptr);
    NVVM::PrefetchOp::create(b, loc, level, /*evictPriority=*/nullptr, ptr,
                             /*predicate=*/Value());
  }
  return success();
}

/// The dims of `shape` that are not 1, in order.
static SmallVector<int64_t> nonUnitDims(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> dims;
  for (auto [d, s] : llvm::enumerate(shape))
    if (s != 1)
      dims.push_back(d);
  return dims;
}

SmallVector<int64_t> tile::gpu_lowering::nonUnitSizes(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> sizes;
  for (int64_t s : shape)
    if (s != 1)
      sizes.push_back(s);
  return sizes;
}

/// Issues `load` (of a read-only partition) again in the layout of `type`,
/// a broadcast of `from` (the load's shape up to unit dims) to more
/// elements: each thread loads the elements it holds, and repeats hit L1.
/// Sound because nothing writes an `in` view while the kernel runs (the
/// ownership proof and the launch contract). Null where it does not apply.
Value GlobalMemoryLowering::reloadInLayout(LoadOp load, ArrayRef<int64_t> from,
                                           RankedTensorType type) {
  auto partition = dyn_cast<PartitionType>(load.getSource().getType());
  if (!partition || !partition.isShared())
    return {};
  RankedTensorType loadType = load.getResult().getType();
  if (nonUnitSizes(loadType.getShape()) != nonUnitSizes(from))
    return {};
  SmallVector<int64_t> loadDims = nonUnitDims(loadType.getShape());
  SmallVector<int64_t> dimMap;
  size_t next = 0;
  for (int64_t d = 0; d < type.getRank(); ++d) {
    if (from[d] == 1) {
      dimMap.push_back(-1);
      continue;
    }
    if (next == loadDims.size())
      return {};
    dimMap.push_back(loadDims[next++]);
  }
  // Lanes run along the last dim, which must index the view's last dim.
  if (next != loadDims.size() || dimMap.back() != loadType.getRank() - 1)
    return {};
  Location loc = load.getLoc();
  auto [base, offsets] =
      resolveAccess(loc, load.getSource(), load.getIndices(), loadType);
  TypedAttr pad = load.getPadding() ? *load.getPadding() : TypedAttr();
  return maskedLoad(*this, loc, base, offsets, Layout::get(type, threads), pad,
                    dimMap, isProvenInBounds(load));
}

void GlobalMemoryLowering::populatePatterns(RewritePatternSet &patterns) {
  using L = GlobalMemoryLowering;
  addTileOpPattern(patterns, lowering, *this, &L::lowerPartition);
  addTileOpPattern(patterns, lowering, *this, &L::lowerNumTiles);
  addTileOpPattern(patterns, lowering, *this, &L::lowerDim);
  addTileOpPattern(patterns, lowering, *this, &L::lowerOwn);
  addTileOpPattern(patterns, lowering, *this, &L::lowerLoad);
  addTileOpPattern(patterns, lowering, *this, &L::lowerStore);
  addTileOpPattern(patterns, lowering, *this, &L::lowerAtomicAdd);
  addTileOpPattern(patterns, lowering, *this, &L::lowerGather);
  addTileOpPattern(patterns, lowering, *this, &L::lowerPrefetch);
}

//===- LowerAsyncOperands.cpp - dot operands copied ahead with cp.async ---===//
//
// A wgmma dot (LowerWgmmaDots.cpp) reads B from shared memory. Where B is
// a tile loaded from a read-only view in the same loop body (a flash
// attention's K and V blocks), the load goes global -> registers ->
// shared memory: the registers hold the whole block while it is in flight, and
// the store into shared memory waits for it. With `async-dot-operands` such a
// load becomes cp.async copies straight into the swizzled layout the dot
// reads, one iteration ahead: iteration j's copies are issued right after
// iteration j - 1's dot has read the buffer, so they fly behind the rest of
// the body (the softmax, the other dot) instead of in front of the dot.
//
// The schedule is a rotation of the loop: before it, the first iteration's
// copies go out in the order of their dots; after each dot, a barrier (all
// warpgroups are done reading its buffer) and the next iteration's copies
// into the same buffer, guarded by `iv + step < ub`, one commit group each
// (empty where the guard fails). Each operand issues one group per
// iteration, so at any dot exactly R - 1 groups were committed after the
// one it needs (R operands in the loop): `cp.async.wait_group R - 1`, a
// proxy fence (the tensor cores read through the async proxy) and a
// barrier make every thread's copies visible to the wgmma.
//
// Sound because the view is read-only for the whole launch (the ownership
// proof and the launch contract: nothing writes an `in` view while the
// kernel runs), so a load may move earlier; the load's tile is proven in
// bounds (tile.in_bounds) for every iteration the loop runs, and the guard
// keeps the copies to those iterations.
//
//===----------------------------------------------------------------------===//

#include "OpLowerings.h"
#include "Remarks.h"

#include "llvm/Support/FormatVariadic.h"

#include "tile/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace tile;
using namespace tile::gpu_lowering;

/// Bytes of one cp.async (the .cg form copies 16).
static constexpr int64_t kCopyBytes = 16;

/// Whether `v` is defined outside `loop` (or is one of its bounds).
static bool isDefinedOutside(Value v, scf::ForOp loop) {
  return !loop.getRegion().isAncestor(v.getParentRegion());
}

/// The load whose tile dot `dot` stages as B, through reshapes (which keep
/// the row-major order, so linear element indices are the same) and a
/// folded permute; each value on the way used once. Null where there is
/// none in `loop`'s body.
LoadOp tile::gpu_lowering::stagedLoad(DotOp dot, scf::ForOp loop,
                                      const FragmentPlan &fragments,
                                      SmallVectorImpl<Operation *> &chain) {
  Block *body = loop.getBody();
  Value v = dot.getB();
  Operation *permute = v.getDefiningOp();
  if (permute && fragments.foldedPermutes.count(permute)) {
    if (!v.hasOneUse() || permute->getBlock() != body)
      return {};
    v = permute->getOperand(0);
  }
  while (auto reshape = v.getDefiningOp<ReshapeOp>()) {
    if (!v.hasOneUse() || reshape->getBlock() != body)
      return {};
    chain.push_back(reshape);
    v = reshape.getSource();
  }
  auto load = v.getDefiningOp<LoadOp>();
  if (!load || !v.hasOneUse() || load->getBlock() != body)
    return {};
  chain.push_back(load);
  return load;
}

/// What the wgmma lowering stages of `dot`'s B: a folded permute's source
/// (N x K), or B (K x N).
static RankedTensorType stagedTypeOf(DotOp dot, const FragmentPlan &fragments) {
  Operation *permute = dot.getB().getDefiningOp();
  if (permute && fragments.foldedPermutes.count(permute))
    return cast<RankedTensorType>(permute->getOperand(0).getType());
  return dot.getB().getType();
}

/// Whether `load` can be copied ahead with 16-byte cp.async: a read-only
/// partition defined before the loop, indices that are the loop's induction
/// variable or loop-invariant, a tile proven in bounds whose rows are whole
/// 16-byte vectors (aligned: static strides multiples of the vector, dynamic
/// ones by the aligned_rows contract that comes with tile.in_bounds).
std::optional<std::string>
tile::gpu_lowering::whyNotCopyAhead(LoadOp load, scf::ForOp loop, int64_t threads) {
  auto partition = dyn_cast<PartitionType>(load.getSource().getType());
  if (!partition || !partition.isShared() ||
      !isDefinedOutside(load.getSource(), loop))
    return std::string("not a load of a read-only partition made before the "
                       "loop");
  if (!load->hasAttr(kInBoundsAttrName))
    return std::string("the load is not proven in bounds");
  for (Value i : load.getIndices())
    if (i != loop.getInductionVar() && !isDefinedOutside(i, loop) &&
        !matchPattern(i, m_Constant()))
      return std::string("an index varies in the loop other than as its "
                         "induction variable");
  RankedTensorType type = load.getResult().getType();
  if (type.getElementTypeBitWidth() != 16)
    return std::string("not 16-bit elements");
  Layout layout = Layout::get(type, threads);
  if (layout.vec * 2 != kCopyBytes)
    return std::string("the tile's rows are not whole 16-byte vectors");
  ArrayRef<int64_t> strides = partition.getView().getStrides();
  if (strides.empty() || strides.back() != 1)
    return std::string("the view's inner stride is not 1");
  for (int64_t s : strides.drop_back())
    if (!ShapedType::isDynamic(s) && s % layout.vec != 0)
      return llvm::formatv("an outer stride ({0}) is not a multiple of the "
                           "{1}-element vector",
                           s, layout.vec)
          .str();
  return std::nullopt;
}

std::optional<std::string>
tile::gpu_lowering::whyNotAsyncOperand(DotOp dot, scf::ForOp loop, int64_t threads,
                                       const FragmentPlan &fragments,
                                       SmallVectorImpl<Operation *> &chain) {
  // Innermost loops only: a loop inside would commit groups of its own
  // between an operand's copies and its dot.
  bool inner = false;
  loop.getBody()->walk([&](scf::ForOp) { inner = true; });
  if (inner)
    return std::string("a loop inside the dot's loop");
  LoadOp load = stagedLoad(dot, loop, fragments, chain);
  if (!load)
    return std::string("B is not a load in the dot's loop, used once (through "
                       "reshapes and a folded transpose)");
  return whyNotCopyAhead(load, loop, threads);
}

SmallVector<AsyncOperand *> AsyncOperandLowering::planLoop(scf::ForOp loop) {
  // The wgmma dots of the body whose B load tile-plan-async-operands marked
  // tile.copy_ahead. The conditions are checked again (the copies move the
  // load earlier): a mark that fails them is an error of that pass, here
  // the load just stays where it is.
  SmallVector<AsyncOperand *> planned;
  SmallVector<std::pair<DotOp, SmallVector<Operation *>>> found;
  for (Operation &op : *loop.getBody()) {
    auto dot = dyn_cast<DotOp>(op);
    if (!dot || !state.runsOnWgmma(dot))
      continue;
    SmallVector<Operation *> chain;
    if (whyNotAsyncOperand(dot, loop, threads, fragments, chain) ||
        !chain.back()->hasAttr(kCopyAheadAttrName))
      continue;
    found.push_back({dot, std::move(chain)});
  }
  if (found.empty())
    return planned;
  // One buffer per operand, each a whole number of swizzle atoms, placed
  // from the start of the scratch space; the body's other scratch users
  // start after them (the arena's floor) while the loop runs.
  assert(shared.getFloor() == 0 && "async operands of nested loops");
  Location loc = loop.getLoc();
  SmallVector<std::pair<Type, int64_t>> shapes;
  for (auto &[dot, chain] : found) {
    RankedTensorType type = cast<LoadOp>(chain.back()).getResult().getType();
    int64_t atomElements = kSwizzle128Align / 2;
    shapes.push_back(
        {type.getElementType(),
         llvm::alignTo(type.getNumElements(), atomElements)});
  }
  SmallVector<Value> buffers = shared.scratch(loc, shapes);
  shared.align(kSwizzle128Align);
  int64_t groupsAfter = static_cast<int64_t>(found.size()) - 1;
  for (auto [entry, buffer] : llvm::zip(found, buffers)) {
    auto &[dot, chain] = entry;
    for (Operation *op : chain)
      skipped.insert(op);
    AsyncOperand &operand = operands[dot];
    operand.load = cast<LoadOp>(chain.back());
    operand.loop = loop;
    operand.inductionVar = loop.getInductionVar();
    operand.buffer = buffer;
    operand.groupsAfter = groupsAfter;
    operand.staged = stagedTypeOf(dot, fragments);
    planned.push_back(&operand);
  }
  return planned;
}

void AsyncOperandLowering::issue(const AsyncOperand &operand, Value iv,
                                 Value ub) {
  LoadOp load = operand.load;
  Location loc = load.getLoc();
  RankedTensorType type = load.getResult().getType();
  // The staged tile (rows x cols) the dot reads: the load's elements in
  // the same row-major order.
  int64_t rows = operand.staged.getDimSize(0);
  int64_t cols = operand.staged.getDimSize(1);

  auto guard = scf::IfOp::create(
      b, loc,
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, iv, ub),
      /*withElse=*/false);
  {
    OpBuilder::InsertionGuard inside(b);
    b.setInsertionPointToStart(guard.thenBlock());
    // The load's indices with the induction variable at `iv`, and constants
    // of the body made here (the body may not be lowered yet); the entries
    // are put back after.
    SmallVector<std::pair<Value, Value>> replaced;
    auto bind = [&](Value key, Value value) {
      replaced.push_back({key, map.lookupOrNull(key)});
      map.map(key, value);
    };
    bind(operand.inductionVar, iv);
    for (Value i : load.getIndices()) {
      APInt c;
      if (matchPattern(i, m_ConstantInt(&c)))
        bind(i, emit.index(c.getSExtValue()));
    }
    auto [base, offsets] = lowering.memory.resolveAccess(
        loc, load.getSource(), load.getIndices(), type);
    for (auto [key, old] : llvm::reverse(replaced)) {
      if (old)
        map.map(key, old);
      else
        map.erase(key);
    }
    lowering.memory.copyTileAsync(
        loc, base, offsets, Layout::get(type, threads), operand.buffer,
        [&](Value e) {
          return lowering.fragmentOps.swizzledElement(loc, e, rows, cols);
        });
  }
  NVVM::CpAsyncCommitGroupOp::create(b, loc);
}

void AsyncOperandLowering::beginLoop(ArrayRef<AsyncOperand *> operands,
                                     Value lb, Value ub) {
  if (operands.empty())
    return;
  scf::ForOp loop = operands.front()->loop;
  Location loc = loop.getLoc();
  // Readers of the scratch space before the loop must be done with it.
  gpu::BarrierOp::create(b, loc);
  // The first iteration's copies, in the order of their dots (the order
  // the body issues them in).
  for (AsyncOperand *operand : operands)
    issue(*operand, lb, ub);
  int64_t floor = 0;
  for (AsyncOperand *operand : operands) {
    auto type = cast<MemRefType>(operand->buffer.getType());
    floor += type.getNumElements() * type.getElementTypeBitWidth() / 8;
  }
  shared.setFloor(floor);
}

void AsyncOperandLowering::endLoop(ArrayRef<AsyncOperand *> operands) {
  if (operands.empty())
    return;
  // The last iteration's groups are empty (their guard failed): nothing is
  // in flight, and the scratch space is whole again.
  scf::ForOp loop = operands.front()->loop;
  NVVM::CpAsyncWaitGroupOp::create(b, loop.getLoc(), 0);
  shared.setFloor(0);
}

void AsyncOperandLowering::await(const AsyncOperand &operand, Location loc) {
  NVVM::CpAsyncWaitGroupOp::create(b, loc, operand.groupsAfter);
}

void AsyncOperandLowering::prefetchNext(const AsyncOperand &operand,
                                        Location loc) {
  // Every warpgroup's wgmma has read the buffer before it is refilled.
  gpu::BarrierOp::create(b, loc);
  scf::ForOp loop = operand.loop;
  Value iv = map.lookup(operand.inductionVar);
  Value next = arith::AddIOp::create(b, loc, iv, map.lookup(loop.getStep()));
  issue(operand, next, map.lookup(loop.getUpperBound()));
}

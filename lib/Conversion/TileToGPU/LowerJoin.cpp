//===- LowerJoin.cpp - tile.join on the GPU: a ticket per block -----------===//
//
// Every thread block takes one ticket from its group's counter after its
// stores: a block barrier (the block's stores happen before what thread 0
// does next), then thread 0 runs the PTX memory model's release pattern
// (fence.acq_rel.gpu, then a relaxed atomic add on the counter) and its
// acquire pattern (the add, then fence.acq_rel.gpu again), so the thread
// that takes a group's last ticket observes every store the group made
// before its tickets, and the block barrier after passes that on to the
// block's threads. (fence.acq_rel, not membar.gl's fence.sc: nothing here
// needs a single order of all fences.) The last ticket's thread resets the
// counter. The flag crosses the block through shared memory; the region
// runs where it is set, so it is uniform over the block.
//
//===----------------------------------------------------------------------===//

#include "OpLowerings.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;
using namespace tile;
using namespace tile::gpu_lowering;

LogicalResult ControlFlowLowering::lowerJoin(JoinOp op) {
  Location loc = op.getLoc();
  auto dim = static_cast<gpu::Dimension>(op.getDim());
  Value tickets = map.lookup(op.getTickets());
  Value key = gpu::BlockIdOp::create(b, loc, dim);
  // The group: the programs along the other grid dims.
  Value size = emit.index(1);
  for (gpu::Dimension d :
       {gpu::Dimension::x, gpu::Dimension::y, gpu::Dimension::z})
    if (d != dim)
      size = arith::MulIOp::create(b, loc, size,
                                   gpu::GridDimOp::create(b, loc, d));
  Type i32 = b.getI32Type();
  Value lastTicket = arith::IndexCastOp::create(
      b, loc, i32, arith::SubIOp::create(b, loc, size, emit.index(1)));
  Value flag = shared.scratch(loc, {{i32, 1}})[0];
  gpu::BarrierOp::create(b, loc);
  Value first = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                      emit.threadId(), emit.index(0));
  auto taker = scf::IfOp::create(b, loc, first, /*withElseRegion=*/false);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(taker.thenBlock());
    // syncscope "device": NVPTX's .gpu scope.
    LLVM::FenceOp::create(b, loc, LLVM::AtomicOrdering::acq_rel, "device");
    Value one = arith::ConstantIntOp::create(b, loc, i32, 1);
    Value old = memref::AtomicRMWOp::create(b, loc, arith::AtomicRMWKind::addi,
                                            one, tickets, ValueRange{key});
    Value last = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, old,
                                       lastTicket);
    auto reset = scf::IfOp::create(b, loc, last, /*withElseRegion=*/false);
    b.setInsertionPointToStart(reset.thenBlock());
    memref::StoreOp::create(b, loc, arith::ConstantIntOp::create(b, loc, i32, 0),
                            tickets, ValueRange{key});
    b.setInsertionPointAfter(reset);
    LLVM::FenceOp::create(b, loc, LLVM::AtomicOrdering::acq_rel, "device");
    memref::StoreOp::create(b, loc, arith::ExtUIOp::create(b, loc, i32, last),
                            flag, ValueRange{emit.index(0)});
  }
  gpu::BarrierOp::create(b, loc);
  Value got = memref::LoadOp::create(b, loc, flag, ValueRange{emit.index(0)});
  Value isLast = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, got,
                                       arith::ConstantIntOp::create(b, loc, i32, 0));
  auto region = scf::IfOp::create(b, loc, isLast, /*withElseRegion=*/false);
  // The region's ops move into the branch and are converted there.
  Block &body = op.getBody().front();
  Operation *terminator = body.getTerminator();
  SmallVector<Operation *> inner = llvm::map_to_vector(
      body.without_terminator(), [](Operation &o) { return &o; });
  state.rewriter->inlineBlockBefore(&body, region.thenBlock()->getTerminator());
  for (Operation *o : inner)
    if (failed(lowering.lowerNested(o)))
      return failure();
  state.rewriter->eraseOp(terminator);
  return success();
}

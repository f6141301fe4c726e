//===- LowerGridSync.cpp - tile.grid_sync on the GPU: a counter barrier ---===//
//
// A barrier across the launch: every block's thread 0, after a block
// barrier (the block's stores happen before it), releases them
// (fence.acq_rel.gpu, then an atomic add on the counter), spins (relaxed
// atomic loads) until the counter reaches the barrier's index times the
// grid's block count, and
// acquires (fence.acq_rel.gpu again); a block barrier passes that on to
// the block's threads. The counter only grows within a launch, so a block
// still spinning at one barrier is not confused by another already past
// it. After the last barrier each thread 0 adds one more, and the one that
// makes the count (barriers + 1) x blocks, which every block reaches only
// after passing every barrier, resets it to 0 for the next launch. All
// blocks must be resident at once: the runtime launches such a kernel
// cooperatively, so the driver refuses a grid that does not fit rather
// than letting it spin.
//
//===----------------------------------------------------------------------===//

#include "OpLowerings.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;
using namespace tile;
using namespace tile::gpu_lowering;

LogicalResult ControlFlowLowering::lowerGridSync(GridSyncOp op) {
  Location loc = op.getLoc();
  // This barrier is the index-th of the kernel's count.
  const int64_t index = gridSyncsBefore(op) + 1;
  const int64_t count = llvm::range_size(op->getBlock()->getOps<GridSyncOp>());
  Value tickets = map.lookup(op.getTickets());
  Value blocks = emit.index(1);
  for (gpu::Dimension d : {gpu::Dimension::x, gpu::Dimension::y, gpu::Dimension::z})
    blocks = arith::MulIOp::create(b, loc, blocks, gpu::GridDimOp::create(b, loc, d));
  Type i32 = b.getI32Type();
  auto times = [&](int64_t k) {
    return arith::IndexCastOp::create(b, loc, i32,
                                      arith::MulIOp::create(b, loc, blocks, emit.index(k)));
  };
  Value zero = emit.index(0);
  Value one = arith::ConstantIntOp::create(b, loc, i32, 1);
  gpu::BarrierOp::create(b, loc);
  Value first =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, emit.threadId(), zero);
  auto arriver = scf::IfOp::create(b, loc, first, /*withElseRegion=*/false);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(arriver.thenBlock());
    // syncscope "device": NVPTX's .gpu scope.
    LLVM::FenceOp::create(b, loc, LLVM::AtomicOrdering::acq_rel, "device");
    memref::AtomicRMWOp::create(b, loc, arith::AtomicRMWKind::addi, one, tickets,
                                ValueRange{zero});
    Value target = times(index);
    // The spin reads with a relaxed atomic load (ld.relaxed.gpu), not an
    // atomic add: every block polls one line, which L2 serves as reads (as
    // chained kernels wait, ChainKernels.cpp).
    auto meta = memref::ExtractStridedMetadataOp::create(b, loc, tickets);
    Value base = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, meta.getBaseBuffer());
    Value addr = arith::AddIOp::create(
        b, loc, base, arith::MulIOp::create(b, loc, meta.getOffset(), emit.index(4)));
    Value addrI64 = arith::IndexCastUIOp::create(b, loc, b.getI64Type(), addr);
    Value ptr =
        LLVM::IntToPtrOp::create(b, loc, LLVM::LLVMPointerType::get(b.getContext()), addrI64);
    auto spin = scf::WhileOp::create(b, loc, TypeRange{}, ValueRange{});
    {
      OpBuilder::InsertionGuard inner(b);
      b.createBlock(&spin.getBefore());
      Value now = LLVM::LoadOp::create(b, loc, i32, ptr, /*alignment=*/4,
                                       /*isVolatile=*/false, /*isNonTemporal=*/false,
                                       /*isInvariant=*/false, /*isInvariantGroup=*/false,
                                       LLVM::AtomicOrdering::monotonic, "device");
      Value waiting = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, now, target);
      scf::ConditionOp::create(b, loc, waiting, ValueRange{});
      b.createBlock(&spin.getAfter());
      scf::YieldOp::create(b, loc);
    }
    LLVM::FenceOp::create(b, loc, LLVM::AtomicOrdering::acq_rel, "device");
    if (index == count) {
      Value old = memref::AtomicRMWOp::create(b, loc, arith::AtomicRMWKind::addi, one, tickets,
                                              ValueRange{zero});
      Value lastOut = arith::SubIOp::create(b, loc, times(count + 1), one);
      Value last = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, old, lastOut);
      auto reset = scf::IfOp::create(b, loc, last, /*withElseRegion=*/false);
      b.setInsertionPointToStart(reset.thenBlock());
      memref::AtomicRMWOp::create(b, loc, arith::AtomicRMWKind::assign,
                                  arith::ConstantIntOp::create(b, loc, i32, 0), tickets,
                                  ValueRange{zero});
    }
  }
  gpu::BarrierOp::create(b, loc);
  return success();
}

//===- ChainKernels.cpp - kernels run one after another in one grid -------===//
//
// A dependent launch has a fixed cost on an H200 whatever its kernel does
// (bench/results/2026-11-23-decode-time-h200.md); a counter in L2 that the
// next part of the same grid polls costs less. The chained kernel's
// blocks take their part from a ticket (so every earlier part's blocks are
// resident or done before a later block waits: no deadlock), and each part
// waits where it waited for the grid before, after its early loads.
//
//===----------------------------------------------------------------------===//

#include "tile/Conversion/Passes.h"
#include "tile/Conversion/TileToGPU/HopperMatmul.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"

namespace tile {
#define GEN_PASS_DEF_CHAINKERNELS
#include "tile/Conversion/Passes.h.inc"
} // namespace tile

using namespace mlir;
using namespace tile;

namespace {

/// Builds the chained kernel's body; `counters` is the ticket view.
class ChainBuilder {
public:
  ChainBuilder(OpBuilder &b, Location loc, Value counters)
      : b(b), loc(loc), counters(counters) {}

  Value index(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value i32(int64_t v) {
    return arith::ConstantIntOp::create(b, loc, b.getI32Type(), v);
  }

  /// Thread 0 of the block runs `body`.
  template <typename F> void inThreadZero(F body) {
    Value first =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, tid, index(0));
    auto branch = scf::IfOp::create(b, loc, first, /*withElseRegion=*/false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(branch.thenBlock());
    body();
  }

  /// Thread 0 polls counter `slot` until it reaches `need` (an index),
  /// then acquires; the barrier passes that on to the block.
  void waitFor(int64_t slot, Value need) {
    Value needI32 = arith::IndexCastOp::create(b, loc, b.getI32Type(), need);
    inThreadZero([&] {
      // A relaxed atomic load (ld.relaxed.gpu), not an atomic add: many
      // blocks poll one line, which L2 serves as reads.
      auto meta = memref::ExtractStridedMetadataOp::create(b, loc, counters);
      Value base = memref::ExtractAlignedPointerAsIndexOp::create(
          b, loc, meta.getBaseBuffer());
      Value elem = arith::AddIOp::create(b, loc, meta.getOffset(), index(slot));
      Value addr = arith::AddIOp::create(
          b, loc, base, arith::MulIOp::create(b, loc, elem, index(4)));
      Value addrI64 =
          arith::IndexCastUIOp::create(b, loc, b.getI64Type(), addr);
      Value ptr = LLVM::IntToPtrOp::create(
          b, loc, LLVM::LLVMPointerType::get(b.getContext()), addrI64);
      auto loop = scf::WhileOp::create(b, loc, TypeRange{}, ValueRange{});
      {
        OpBuilder::InsertionGuard guard(b);
        Block *before = b.createBlock(&loop.getBefore());
        b.setInsertionPointToStart(before);
        Value seen = LLVM::LoadOp::create(
            b, loc, b.getI32Type(), ptr, /*alignment=*/4,
            /*isVolatile=*/false, /*isNonTemporal=*/false,
            /*isInvariant=*/false, /*isInvariantGroup=*/false,
            LLVM::AtomicOrdering::monotonic, "device");
        Value short_ = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt,
                                             seen, needI32);
        scf::ConditionOp::create(b, loc, short_, ValueRange{});
        Block *after = b.createBlock(&loop.getAfter());
        b.setInsertionPointToStart(after);
        NVVM::NanosleepOp::create(b, loc, i32(64));
        scf::YieldOp::create(b, loc);
      }
      LLVM::FenceOp::create(b, loc, LLVM::AtomicOrdering::acq_rel, "device");
    });
    gpu::BarrierOp::create(b, loc);
  }

  OpBuilder &b;
  Location loc;
  Value counters;
  Value tid;
};

struct ChainKernelsPass
    : public tile::impl::ChainKernelsBase<ChainKernelsPass> {
  using Base::Base;

  void runOnOperation() override {
    if (chain.empty())
      return;
    ModuleOp module = getOperation();
    auto fail = [&](const Twine &why) {
      module.emitError("tile-chain-kernels: chain '" + chain + "': " + why);
      signalPassFailure();
    };
    auto [name, list] = StringRef(chain).split('=');
    SmallVector<StringRef> partNames;
    list.split(partNames, ',', /*MaxSplit=*/-1, /*KeepEmpty=*/false);
    if (name.empty() || partNames.size() < 2)
      return fail("expected name=part1,part2[,...] (two parts or more)");
    SmallVector<gpu::GPUModuleOp> gpuModules(module.getOps<gpu::GPUModuleOp>());
    if (gpuModules.size() != 1)
      return fail("expected one gpu.module (run convert-tile-to-gpu first)");
    gpu::GPUModuleOp gpuModule = gpuModules.front();
    if (gpuModule.lookupSymbol(name))
      return fail("a symbol named '" + name + "' exists already");

    SmallVector<gpu::GPUFuncOp> parts;
    SmallVector<NVVM::GriddepcontrolOp> waits; // per part
    for (StringRef partName : partNames) {
      auto part = gpuModule.lookupSymbol<gpu::GPUFuncOp>(partName);
      if (!part || !part.isKernel())
        return fail("no kernel named '" + partName + "'");
      if (!part->hasAttr(kWaitsForPriorGridAttrName))
        return fail("'" + partName +
                    "' does not wait for the grid before "
                    "(compile with grid-dependency-control, sm_90a or later)");
      if (part->hasAttr(kTensorMapParamsAttrName))
        return fail("'" + partName + "' takes TMA descriptors (not chainable)");
      if (!part.getBody().hasOneBlock() ||
          !isa<gpu::ReturnOp>(part.getBody().front().getTerminator()))
        return fail("'" + partName + "' is not one block ending in gpu.return");
      NVVM::GriddepcontrolOp wait;
      int returns = 0, waitCount = 0;
      part.walk([&](Operation *op) {
        if (isa<gpu::ReturnOp>(op))
          ++returns;
        if (auto g = dyn_cast<NVVM::GriddepcontrolOp>(op))
          if (g.getKind() == NVVM::GridDepActionKind::wait) {
            wait = g;
            ++waitCount;
          }
      });
      if (returns != 1)
        return fail("'" + partName + "' returns early");
      if (waitCount != 1 || wait->getBlock() != &part.getBody().front())
        return fail("'" + partName +
                    "' does not have one griddepcontrol.wait in its body");
      if (!parts.empty() &&
          part.getKnownBlockSizeAttr() != parts.front().getKnownBlockSizeAttr())
        return fail("'" + partName + "' runs another block size than '" +
                    partNames.front() + "'");
      parts.push_back(part);
      waits.push_back(wait);
    }
    if (!parts.front().getKnownBlockSizeAttr())
      return fail("the parts have no known block size");

    // The signature: the parts' parameters, the counters, the extents.
    Location loc = parts.front().getLoc();
    MLIRContext *ctx = &getContext();
    SmallVector<Type> args;
    SmallVector<int64_t> firstArg;
    for (gpu::GPUFuncOp part : parts) {
      firstArg.push_back(args.size());
      llvm::append_range(args, part.getArgumentTypes());
    }
    const int64_t countersArg = args.size();
    args.push_back(MemRefType::get(
        {ShapedType::kDynamic}, IntegerType::get(ctx, 32),
        StridedLayoutAttr::get(ctx, ShapedType::kDynamic, {1})));
    const int64_t extentsArg = args.size();
    args.append(3 * parts.size(), IntegerType::get(ctx, 64));

    OpBuilder b(ctx);
    b.setInsertionPointToEnd(gpuModule.getBody());
    auto func =
        gpu::GPUFuncOp::create(b, loc, name, b.getFunctionType(args, {}));
    func->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
    func.setKnownBlockSizeAttr(parts.front().getKnownBlockSizeAttr());
    func->setAttr(kWaitsForPriorGridAttrName, b.getUnitAttr());
    if (llvm::all_of(parts, [](gpu::GPUFuncOp p) {
          return p->hasAttr(kInvariantInputsAttrName);
        }))
      func->setAttr(kInvariantInputsAttrName, b.getUnitAttr());
    StringRef minctasm = NVVM::NVVMDialect::getMinctasmAttrName();
    // The loosest register cap a part asks for (1 asks for none): no part
    // gets fewer registers than it would alone under its own cap.
    int64_t fewest = INT64_MAX;
    for (gpu::GPUFuncOp p : parts)
      if (auto n = p->getAttrOfType<IntegerAttr>(minctasm); n && n.getInt() > 1)
        fewest = std::min(fewest, n.getInt());
    if (fewest != INT64_MAX)
      func->setAttr(minctasm,
                    b.getI32IntegerAttr(static_cast<int32_t>(fewest)));
    // Only `frozen` marks carry over: memory no kernel writes. An `in` view
    // of a later part may be what an earlier part writes.
    for (auto [p, part] : llvm::enumerate(parts))
      for (unsigned i = 0; i < part.getNumArguments(); ++i)
        if (part.getArgAttr(i, kFrozenArgAttrName))
          func.setArgAttr(firstArg[p] + i, kFrozenArgAttrName, b.getUnitAttr());

    // Workgroup memory: each part's allocations, and the ticket's slot.
    SmallVector<SmallVector<Value>> shared(parts.size());
    for (auto [p, part] : llvm::enumerate(parts))
      for (auto [i, a] : llvm::enumerate(part.getWorkgroupAttributions())) {
        shared[p].push_back(
            func.addWorkgroupAttribution(a.getType(), a.getLoc()));
        if (Attribute align = part.getWorkgroupAttributionAttr(i, "llvm.align"))
          func.setWorkgroupAttributionAttr(
              func.getNumWorkgroupAttributions() - 1, "llvm.align", align);
      }
    auto space = gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
    Value slot = func.addWorkgroupAttribution(
        MemRefType::get({1}, b.getI32Type(), AffineMap(), space), loc);

    Block &entry = func.getBody().front();
    b.setInsertionPointToStart(&entry);
    ChainBuilder c(b, loc, entry.getArgument(countersArg));
    // The grid before has completed before any ticket is taken: the
    // counters it left at zero are visible, and part 1 reads what it wrote.
    NVVM::GriddepcontrolOp::create(b, loc,
                                   NVVM::GridDepActionKind::launch_dependents);
    NVVM::GriddepcontrolOp::create(b, loc, NVVM::GridDepActionKind::wait);
    c.tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
    c.inThreadZero([&] {
      Value t = memref::AtomicRMWOp::create(b, loc, arith::AtomicRMWKind::addi,
                                            c.i32(1), c.counters,
                                            ValueRange{c.index(0)});
      memref::StoreOp::create(b, loc, t, slot, ValueRange{c.index(0)});
    });
    gpu::BarrierOp::create(b, loc);
    Value ticket = arith::IndexCastOp::create(
        b, loc, b.getIndexType(),
        memref::LoadOp::create(b, loc, slot, ValueRange{c.index(0)}));

    SmallVector<std::array<Value, 3>> extents;
    SmallVector<Value> programs, bases;
    Value base = c.index(0);
    for (size_t p = 0; p < parts.size(); ++p) {
      std::array<Value, 3> e;
      for (int d = 0; d < 3; ++d)
        e[d] = arith::IndexCastOp::create(
            b, loc, b.getIndexType(),
            entry.getArgument(extentsArg + 3 * p + d));
      extents.push_back(e);
      programs.push_back(arith::MulIOp::create(
          b, loc, arith::MulIOp::create(b, loc, e[0], e[1]), e[2]));
      bases.push_back(base);
      base = arith::AddIOp::create(b, loc, base, programs.back());
    }

    for (size_t p = 0; p < parts.size(); ++p) {
      Value end = arith::AddIOp::create(b, loc, bases[p], programs[p]);
      Value mine =
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, ticket, end);
      bool last = p + 1 == parts.size();
      auto branch = scf::IfOp::create(b, loc, mine, /*withElseRegion=*/!last);
      b.setInsertionPointToStart(branch.thenBlock());
      emitPart(c, entry, parts[p], firstArg[p], shared[p], waits[p], p, ticket,
               bases[p], extents, programs, last);
      if (last)
        break;
      b.setInsertionPointToStart(branch.elseBlock());
    }
    b.setInsertionPointToEnd(&entry);
    gpu::ReturnOp::create(b, loc);
    for (gpu::GPUFuncOp part : parts)
      if (part->getParentOp()) // a part may be listed twice
        part.erase();
  }

  /// Part `p`'s body at the insertion point, as blocks ticket - base of it.
  void emitPart(ChainBuilder &c, Block &chainEntry, gpu::GPUFuncOp part,
                int64_t firstArg, ArrayRef<Value> shared,
                NVVM::GriddepcontrolOp wait, size_t p, Value ticket, Value base,
                ArrayRef<std::array<Value, 3>> extents,
                ArrayRef<Value> programs, bool last) {
    OpBuilder &b = c.b;
    Location loc = c.loc;
    const std::array<Value, 3> &e = extents[p];
    Value local = arith::SubIOp::create(b, loc, ticket, base);
    Value rest = arith::DivUIOp::create(b, loc, local, e[0]);
    std::array<Value, 3> id = {arith::RemUIOp::create(b, loc, local, e[0]),
                               arith::RemUIOp::create(b, loc, rest, e[1]),
                               arith::DivUIOp::create(b, loc, rest, e[1])};
    IRMapping map;
    Block &body = part.getBody().front();
    for (unsigned i = 0; i < part.getNumArguments(); ++i)
      map.map(part.getArgument(i), chainEntry.getArgument(firstArg + i));
    for (auto [a, s] : llvm::zip(part.getWorkgroupAttributions(), shared))
      map.map(a, s);
    Operation *waitClone = nullptr;
    for (Operation &op : body.without_terminator()) {
      Operation *clone = b.clone(op, map);
      if (&op == wait.getOperation())
        waitClone = clone;
    }
    // The part's block ids and grid are its own; its wait becomes the
    // wait for the part before (the chain itself waited for the grid
    // before, ahead of the tickets).
    Block *here = b.getInsertionBlock();
    SmallVector<Operation *> dead;
    here->walk([&](Operation *op) {
      if (auto bid = dyn_cast<gpu::BlockIdOp>(op)) {
        bid.replaceAllUsesWith(id[static_cast<int>(bid.getDimension())]);
        dead.push_back(op);
      } else if (auto dim = dyn_cast<gpu::GridDimOp>(op)) {
        dim.replaceAllUsesWith(e[static_cast<int>(dim.getDimension())]);
        dead.push_back(op);
      } else if (isa<NVVM::GriddepcontrolOp>(op)) {
        if (op != waitClone)
          dead.push_back(op);
      }
    });
    for (Operation *op : dead)
      op->erase();
    if (p > 0) {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPoint(waitClone);
      c.waitFor(static_cast<int64_t>(p), programs[p - 1]);
    }
    waitClone->erase();
    // Counted done (the release pattern); the last block of the last part
    // leaves every counter at zero for the next launch.
    gpu::BarrierOp::create(b, loc);
    c.inThreadZero([&] {
      LLVM::FenceOp::create(b, loc, LLVM::AtomicOrdering::acq_rel, "device");
      Value old = memref::AtomicRMWOp::create(
          b, loc, arith::AtomicRMWKind::addi, c.i32(1), c.counters,
          ValueRange{c.index(p + 1)});
      if (!last)
        return;
      Value lastOne = arith::IndexCastOp::create(
          b, loc, b.getI32Type(),
          arith::SubIOp::create(b, loc, programs[p], c.index(1)));
      Value isLast =
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, old, lastOne);
      auto reset = scf::IfOp::create(b, loc, isLast, /*withElseRegion=*/false);
      b.setInsertionPointToStart(reset.thenBlock());
      for (int64_t k = 0; k <= static_cast<int64_t>(extents.size()); ++k)
        memref::StoreOp::create(b, loc, c.i32(0), c.counters,
                                ValueRange{c.index(k)});
    });
  }
};
} // namespace

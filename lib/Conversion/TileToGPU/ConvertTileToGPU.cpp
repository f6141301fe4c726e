//===- ConvertTileToGPU.cpp - the convert-tile-to-gpu pass ----------------===//
//
// The pass driver and the kernel ABI: each verified tile.kernel becomes a
// gpu.func (views as memrefs, TMA descriptors of a Hopper matmul last),
// with its block size, occupancy hint, read-only and frozen argument
// markers and grid dependency control; its body's ops move into it and
// MLIR's dialect conversion lowers them, one pattern per op kind
// (OpLowerings.h), following the plans the plan passes wrote.
//
//===----------------------------------------------------------------------===//

#include "OpLowerings.h"
#include "Remarks.h"

#include <map>

#include "tile/Conversion/Passes.h"
#include "tile/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Transforms/DialectConversion.h"

namespace tile {
#define GEN_PASS_DEF_CONVERTTILETOGPU
#include "tile/Conversion/Passes.h.inc"
} // namespace tile

using namespace mlir;
using namespace tile;
using namespace tile::gpu_lowering;

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

namespace {
struct ConvertTileToGPUPass
    : public tile::impl::ConvertTileToGPUBase<ConvertTileToGPUPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<KernelOp> kernels(module.getOps<KernelOp>());
    if (kernels.empty())
      return;
    if (numWarps < 1 || numWarps > 32) {
      module.emitError("convert-tile-to-gpu: num-warps must be in [1, 32]");
      return signalPassFailure();
    }
    module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                    UnitAttr::get(&getContext()));
    OpBuilder b(&getContext());
    b.setInsertionPointToEnd(module.getBody());
    auto gpuModule =
        gpu::GPUModuleOp::create(b, module.getLoc(), moduleName.getValue());
    for (KernelOp kernel : kernels) {
      if (!allowUnverified && !kernel->hasAttr(kOwnershipVerifiedAttrName)) {
        kernel.emitError("convert-tile-to-gpu: kernel @")
            << kernel.getSymName()
            << " has not been verified; run tile-verify-ownership first";
        return signalPassFailure();
      }
      // The Hopper GEMM is the plan tile-plan-hopper-matmul wrote (or one
      // pinned by hand).
      FailureOr<std::optional<HopperMatmulPlan>> pinned =
          pinnedHopperMatmulPlan(kernel);
      if (failed(pinned))
        return signalPassFailure();
      std::optional<HopperMatmulPlan> plan = *pinned;
      int64_t threads = plan ? plan->numWarps() * 32 : programThreads(kernel, numWarps);
      if (threads < 32 || threads > 1024) {
        kernel.emitError("convert-tile-to-gpu: tile.num_warps must be in [1, 32]");
        return signalPassFailure();
      }
      // Views become memrefs, scalars stay.
      TileTypeConverter signature(threads);
      SmallVector<Type> args;
      for (Type t : kernel.getArgumentTypes())
        args.push_back(signature.convertType(t));
      // A planned matmul takes the TMA descriptors of x and w last, by
      // value (tile-grid-constant-params).
      int64_t tensorMaps = plan ? plan->tensorMaps().size() : 0;
      args.append(tensorMaps, LLVM::LLVMPointerType::get(&getContext()));
      b.setInsertionPointToEnd(gpuModule.getBody());
      auto func = gpu::GPUFuncOp::create(b, kernel.getLoc(), kernel.getSymName(),
                                         b.getFunctionType(args, {}));
      func->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
      if (tensorMaps)
        func->setAttr(kTensorMapParamsAttrName,
                      b.getI64IntegerAttr(tensorMaps));
      func.setKnownBlockSizeAttr(b.getDenseI32ArrayAttr(
          {static_cast<int32_t>(threads), 1, 1}));
      if (auto n = kernel->getAttrOfType<IntegerAttr>(kMinProgramsPerSMAttrName)) {
        if (n.getInt() < 1 || n.getInt() > 32) {
          kernel.emitError("convert-tile-to-gpu: tile.min_programs_per_sm must be in [1, 32]");
          return signalPassFailure();
        }
        func->setAttr(NVVM::NVVMDialect::getMinctasmAttrName(),
                      b.getI32IntegerAttr(static_cast<int32_t>(n.getInt())));
      }
      // `in`, `frozen` and `settled` views are never written by the kernel;
      // with the ownership proof (and the launch contract) nothing else writes
      // them during the launch either, which tile-mark-invariant-loads turns
      // into ld.global.nc (for `in` views, unless the kernel waits for the
      // grid before it: that grid may still be writing them while this one
      // is resident; `frozen` memory is written by no kernel at all).
      for (auto [i, t] : llvm::enumerate(kernel.getArgumentTypes())) {
        auto view = dyn_cast<ViewType>(t);
        if (!view || !view.isShared())
          continue;
        func.setArgAttr(i, kReadonlyArgAttrName, b.getUnitAttr());
        if (view.getMode() == OwnershipMode::Frozen)
          func.setArgAttr(i, kFrozenArgAttrName, b.getUnitAttr());
      }
      if (kernel->hasAttr(kOwnershipVerifiedAttrName))
        func->setAttr(kInvariantInputsAttrName, b.getUnitAttr());
      Block &entry = func.getBody().front();
      KernelLowering lowering(func, threads);
      KernelState &state = lowering.state;
      state.hopper = plan ? &*plan : nullptr;
      state.f8Conversions = f8Conversions;
      state.l2Prefetch = l2Prefetch;
      for (auto [old, neu] : llvm::zip_first(kernel.getArguments(),
                                             entry.getArguments()))
        state.map.map(old, neu);
      // The entry's prologue, built where the lowering builds.
      OpBuilder &pb = state.b;
      pb.setInsertionPointToStart(&entry);
      Block &body = kernel.getBody().front();
      if (gridDependencyControl) {
        // The trigger, then the wait, before any access the grid before may
        // race (KernelLowering::rewrite places the wait, see below). The
        // trigger lets the next kernel's blocks be scheduled as soon as all
        // of this one's are (they then sit in their own wait), so a chain of
        // small kernels is launched ahead of the one running. The next
        // kernel's wait covers this kernel's completion, and this kernel
        // completes only after its own wait: accesses stay in stream order.
        // A kernel that opens with prefetches issues them before its wait:
        // they change no value, and L2 is coherent, so they only start its
        // first weights streaming while the previous kernel runs. Loads of
        // `frozen` and `settled` views that open the kernel go before it too
        // (their memory is written by no launch this one overlaps: the
        // runtime checks the chain for `settled` ones), with the math
        // between them: a decode attention computes its RoPE angles while
        // the projection before it still runs.
        NVVM::GriddepcontrolOp::create(
            pb, kernel.getLoc(), NVVM::GridDepActionKind::launch_dependents);
        if (llvm::any_of(body, accessesBeforeGridWait))
          state.gridWaitBlock = &entry;
        else
          NVVM::GriddepcontrolOp::create(pb, kernel.getLoc(),
                                         NVVM::GridDepActionKind::wait);
        func->setAttr(kWaitsForPriorGridAttrName, b.getUnitAttr());
      }
      state.tid =
          gpu::ThreadIdOp::create(pb, kernel.getLoc(), gpu::Dimension::x);
      if (!plan) {
        // The fragment layouts tile-plan-fragments wrote, if it ran.
        FailureOr<FragmentPlan> fragments = readFragmentPlan(kernel, threads);
        if (failed(fragments))
          return signalPassFailure();
        state.fragments = std::move(*fragments);
      }
      if (!plan && remarksEnabled(&getContext()))
        remarkLayouts(kernel, threads, state.fragments);
      if (!state.fragments.dots.empty()) {
        Location loc = kernel.getLoc();
        RegisterEmitter &emit = lowering.emit;
        Value lane = arith::RemUIOp::create(pb, loc, state.tid, emit.index(32));
        state.laneId = lane;
        state.warpId =
            arith::DivUIOp::create(pb, loc, state.tid, emit.index(32));
        state.laneGroup = arith::DivUIOp::create(pb, loc, lane, emit.index(4));
        state.laneInGroup =
            arith::RemUIOp::create(pb, loc, lane, emit.index(4));
      }
      // The body's ops move after the prologue, and the dialect conversion
      // lowers every one of them (and only them) by its pattern.
      llvm::DenseSet<Operation *> tileOps;
      body.walk([&](Operation *op) { tileOps.insert(op); });
      entry.getOperations().splice(entry.end(), body.getOperations());
      ConversionTarget target(getContext());
      target.markUnknownOpDynamicallyLegal(
          [&](Operation *op) { return !tileOps.contains(op); });
      RewritePatternSet patterns(&getContext());
      lowering.populatePatterns(patterns);
      ConversionConfig config;
      // The plans name the kernel's ops and values, which the lowering reads
      // until the end: replaced ops and moved blocks must stay alive until
      // then, as they do with rollback.
      config.allowPatternRollback = true;
      // The patterns see every op as written (folding a tile op would make
      // a new one no pattern converts).
      config.foldingMode = DialectConversionFoldingMode::Never;
      if (failed(applyPartialConversion(func, target, std::move(patterns),
                                        config)) ||
          state.failed)
        return signalPassFailure();
      pb.setListener(nullptr);
      pb.setInsertionPointToEnd(&entry);
      lowering.finish(kernel.getLoc());
      gpu::ReturnOp::create(pb, kernel.getLoc());
      kernel.erase();
    }
  }

  /// The layouts the kernel's tiles get, as a passed remark (tilec
  /// --explain): the block, the flat tiles by vector width, the tiles in
  /// mma fragment layouts by kind.
  static void remarkLayouts(KernelOp kernel, int64_t threads,
                            const FragmentPlan &fragments) {
    std::map<int64_t, int64_t> byVec;
    int64_t acc = 0, rows = 0, cols = 0;
    kernel.walk([&](Operation *op) {
      for (Value v : op->getResults()) {
        auto type = dyn_cast<RankedTensorType>(v.getType());
        if (!type)
          continue;
        auto f = fragments.layouts.find(v);
        if (f == fragments.layouts.end()) {
          ++byVec[Layout::get(type, threads).vec];
          continue;
        }
        switch (f->second.kind) {
        case FragmentLayout::Kind::Acc: ++acc; break;
        case FragmentLayout::Kind::Rows: ++rows; break;
        case FragmentLayout::Kind::Cols: ++cols; break;
        }
      }
    });
    std::string flat;
    for (auto it = byVec.rbegin(); it != byVec.rend(); ++it)
      flat += (flat.empty() ? "" : ", ") + std::to_string(it->second) +
              " of vectors of " + std::to_string(it->first);
    passedFastPath(kernel.getLoc(), kernel.getSymName(), "layouts")
        << remark::add("{0} threads; flat tiles: {1}; mma fragment tiles: {2} "
                       "accumulator, {3} row, {4} column ({5} fragment dots)",
                       threads, flat.empty() ? std::string("none") : flat, acc,
                       rows, cols, fragments.dots.size());
  }
};
} // namespace

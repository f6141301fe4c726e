//===- HostRunner.cpp - run tile kernels on the host through the JIT -------===//

#include "tile/ExecutionEngine/HostRunner.h"

#include "tile/Dialect/Tile/IR/TileOps.h"
#include "tile/Pipelines/Pipelines.h"
#include "tile/Target/Host/HostCodegen.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "llvm/Support/TargetSelect.h"

#include <thread>

using namespace mlir;
using namespace tile;

HostArg HostArg::view(void *data, std::vector<int64_t> shape,
                      std::vector<int64_t> strides) {
  HostArg a;
  a.kind = Kind::View;
  a.data = data;
  a.shape = std::move(shape);
  a.strides = std::move(strides);
  return a;
}

HostArg HostArg::view(void *data, std::vector<int64_t> shape) {
  std::vector<int64_t> strides(shape.size(), 1);
  for (int i = static_cast<int>(shape.size()) - 2; i >= 0; --i)
    strides[i] = strides[i + 1] * shape[i + 1];
  return view(data, std::move(shape), std::move(strides));
}

HostArg HostArg::i64(int64_t v) {
  HostArg a;
  a.kind = Kind::Int;
  a.intValue = v;
  return a;
}
HostArg HostArg::f32(float v) {
  HostArg a;
  a.kind = Kind::F32;
  a.floatValue = v;
  return a;
}
HostArg HostArg::f64(double v) {
  HostArg a;
  a.kind = Kind::F64;
  a.floatValue = v;
  return a;
}
HostArg HostArg::half(uint16_t bits) {
  HostArg a;
  a.kind = Kind::F16Bits;
  a.bits = bits;
  return a;
}

HostRunner::HostRunner() = default;
HostRunner::~HostRunner() = default;
HostRunner::HostRunner(HostRunner &&) noexcept = default;

static llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

llvm::Expected<HostRunner> HostRunner::compile(ModuleOp module) {
  static bool initialized = [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    return true;
  }();
  (void)initialized;
  MLIRContext *ctx = module.getContext();
  std::string diagnostics;
  llvm::raw_string_ostream os(diagnostics);
  ScopedDiagnosticHandler handler(ctx, [&](Diagnostic &d) {
    os << d.getLocation() << ": " << d.str() << "\n";
    return success();
  });
  DialectRegistry registry;
  registerAllToLLVMIRTranslations(registry);
  ctx->appendDialectRegistry(registry);
  std::vector<std::string> unchecked;
  module.walk([&](UncheckedOp op) {
    unchecked.push_back(op->getParentOfType<KernelOp>().getSymName().str());
  });
  PassManager pm(ctx);
  buildTileToCPUPipeline(pm, TileToCPUOptions());
  if (failed(pm.run(module)))
    return makeError("tile-to-cpu failed:\n" + diagnostics);
  ExecutionEngineOptions options;
  auto optimize = makeOptimizingTransformer(
      /*optLevel=*/2, /*sizeLevel=*/0, /*targetMachine=*/nullptr);
  // LLVM (22.1.8 here) calls __truncsfbf2 for some bf16 stores the pipeline's
  // expansion leaves; the JIT resolves it in the module, as the AOT path.
  options.transformer = [optimize](llvm::Module *m) {
    tile::defineBf16Truncation(*m);
    return optimize(m);
  };
  auto engine = ExecutionEngine::create(module, options);
  if (!engine)
    return makeError("JIT compilation failed: " +
                     llvm::toString(engine.takeError()) + "\n" + diagnostics);
  HostRunner runner;
  runner.engine = std::move(*engine);
  runner.uncheckedKernels = std::move(unchecked);
  return std::move(runner);
}

llvm::Expected<HostRunner> HostRunner::compileSource(llvm::StringRef source) {
  auto context = std::make_unique<MLIRContext>();
  DialectRegistry registry;
  registry.insert<TileDialect>();
  registerAllDialects(registry);
  registerAllExtensions(registry);
  context->appendDialectRegistry(registry);
  std::string diagnostics;
  llvm::raw_string_ostream os(diagnostics);
  OwningOpRef<ModuleOp> module;
  {
    ScopedDiagnosticHandler handler(context.get(), [&](Diagnostic &d) {
      os << d.getLocation() << ": " << d.str() << "\n";
      return success();
    });
    module = parseSourceString<ModuleOp>(source, context.get());
  }
  if (!module)
    return makeError("parse error:\n" + diagnostics);
  auto runner = compile(*module);
  if (!runner)
    return runner.takeError();
  runner->context = std::move(context);
  return runner;
}

llvm::Error HostRunner::run(llvm::StringRef kernel, std::vector<HostArg> args,
                            std::array<int64_t, 3> grid, unsigned threads) {
  // Memref descriptors: {allocated, aligned, offset, sizes[R], strides[R]}.
  std::vector<std::vector<int64_t>> descriptors;
  std::vector<void *> descriptorPtrs;
  std::vector<void *> packed;
  descriptors.reserve(args.size());
  descriptorPtrs.reserve(args.size());
  for (HostArg &a : args) {
    switch (a.kind) {
    case HostArg::Kind::View: {
      std::vector<int64_t> d;
      d.push_back(reinterpret_cast<int64_t>(a.data));
      d.push_back(reinterpret_cast<int64_t>(a.data));
      d.push_back(0);
      d.insert(d.end(), a.shape.begin(), a.shape.end());
      d.insert(d.end(), a.strides.begin(), a.strides.end());
      descriptors.push_back(std::move(d));
      descriptorPtrs.push_back(descriptors.back().data());
      packed.push_back(&descriptorPtrs.back());
      break;
    }
    case HostArg::Kind::Int:
      packed.push_back(&a.intValue);
      break;
    case HostArg::Kind::F32: {
      float f = static_cast<float>(a.floatValue);
      std::memcpy(&a.intValue, &f, sizeof f);
      packed.push_back(&a.intValue);
      break;
    }
    case HostArg::Kind::F64:
      packed.push_back(&a.floatValue);
      break;
    case HostArg::Kind::F16Bits:
      packed.push_back(&a.bits);
      break;
    }
  }
  int64_t programs = grid[0] * grid[1] * grid[2];
  if (programs <= 0)
    return llvm::Error::success(); // an empty grid launches nothing
  if (threads == 0)
    threads = std::max(1u, std::thread::hardware_concurrency());
  bool sequential = threads == 1 || programs == 1 ||
                    llvm::is_contained(uncheckedKernels, kernel.str());
  if (sequential) {
    for (int64_t &n : grid)
      packed.push_back(&n);
    std::string entry = ("_mlir_ciface_" + kernel + "_grid").str();
    if (llvm::Error e = engine->invokePacked(entry, packed))
      return makeError("running " + kernel + ": " +
                       llvm::toString(std::move(e)));
    return llvm::Error::success();
  }
  // Programs in parallel, each thread taking a contiguous range of linear
  // program ids through the per-program entry.
  std::string entry = ("_mlir_ciface_" + kernel).str();
  auto fn = engine->lookupPacked(entry);
  if (!fn)
    return makeError("running " + kernel + ": " +
                     llvm::toString(fn.takeError()));
  unsigned workers = static_cast<unsigned>(
      std::min<int64_t>(threads, programs));
  std::vector<std::thread> pool;
  for (unsigned w = 0; w < workers; ++w)
    pool.emplace_back([&, w] {
      std::vector<void *> mine = packed;
      int64_t ids[6] = {0, 0, 0, grid[0], grid[1], grid[2]};
      for (int64_t &id : ids)
        mine.push_back(&id);
      for (int64_t p = programs * w / workers;
           p < programs * (w + 1) / workers; ++p) {
        ids[0] = p % grid[0];
        ids[1] = (p / grid[0]) % grid[1];
        ids[2] = p / (grid[0] * grid[1]);
        (*fn)(mine.data());
      }
    });
  for (std::thread &t : pool)
    t.join();
  return llvm::Error::success();
}

//===- HostCodegen.cpp - host LLVM IR, objects and shared objects ----------===//

#include "tile/Target/Host/HostCodegen.h"

#include "llvm/MC/MCSubtargetInfo.h"

#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"

using namespace tile;

static llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// For every `_mlir_ciface_<kernel>_grid(args..., gx, gy, gz)`, adds
/// `void _tile_packed_<kernel>(void **args)`: args[i] points to the value of
/// argument i (a view's argument is its memref descriptor pointer), the
/// last three to the grid extents. The runtime's CPU device calls kernels
/// of any signature through it, the way cuLaunchKernel takes kernelParams.
static void addPackedEntries(llvm::Module &module) {
  llvm::LLVMContext &ctx = module.getContext();
  std::vector<llvm::Function *> grids;
  for (llvm::Function &f : module)
    if (!f.isDeclaration() && f.getName().starts_with("_mlir_ciface_") &&
        f.getName().ends_with("_grid"))
      grids.push_back(&f);
  auto *ptrTy = llvm::PointerType::getUnqual(ctx);
  for (llvm::Function *grid : grids) {
    llvm::StringRef kernel = grid->getName()
                                 .drop_front(strlen("_mlir_ciface_"))
                                 .drop_back(strlen("_grid"));
    auto *type =
        llvm::FunctionType::get(llvm::Type::getVoidTy(ctx), {ptrTy}, false);
    auto *packed = llvm::Function::Create(type, llvm::Function::ExternalLinkage,
                                          "_tile_packed_" + kernel, module);
    llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx, "entry", packed));
    std::vector<llvm::Value *> args;
    for (auto [i, param] : llvm::enumerate(grid->args())) {
      llvm::Value *slot = b.CreateConstGEP1_64(ptrTy, packed->getArg(0), i);
      llvm::Value *where = b.CreateLoad(ptrTy, slot);
      args.push_back(b.CreateLoad(param.getType(), where));
    }
    b.CreateCall(grid, args);
    b.CreateRetVoid();
  }
}

/// x86-64 without AVX512-BF16 keeps bf16 values in f32 registers and calls
/// __truncsfbf2 to store them, a builtin of compiler-rt and new libgcc that
/// the OS's libraries here lack: define it in each module (weak, hidden).
void tile::defineBf16Truncation(llvm::Module &module) {
  llvm::LLVMContext &ctx = module.getContext();
  if (module.getFunction("__truncsfbf2"))
    return;
  auto *f32 = llvm::Type::getFloatTy(ctx), *bf16 = llvm::Type::getBFloatTy(ctx);
  auto *i32 = llvm::Type::getInt32Ty(ctx), *i16 = llvm::Type::getInt16Ty(ctx);
  auto *fn = llvm::Function::Create(llvm::FunctionType::get(bf16, {f32}, false),
                                    llvm::Function::WeakAnyLinkage,
                                    "__truncsfbf2", module);
  fn->setVisibility(llvm::GlobalValue::HiddenVisibility);
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx, "entry", fn));
  llvm::Value *bits = b.CreateBitCast(fn->getArg(0), i32);
  llvm::Value *lsb = b.CreateAnd(b.CreateLShr(bits, 16), 1);
  llvm::Value *rounded =
      b.CreateAdd(bits, b.CreateAdd(b.getInt32(0x7FFF), lsb));
  llvm::Value *isNan = b.CreateFCmpUNO(fn->getArg(0), fn->getArg(0));
  llvm::Value *quiet = b.CreateOr(bits, b.getInt32(0x00400000));
  llvm::Value *pick = b.CreateSelect(isNan, quiet, rounded);
  llvm::Value *half = b.CreateTrunc(b.CreateLShr(pick, 16), i16);
  b.CreateRet(b.CreateBitCast(half, bf16));
}

llvm::Expected<std::unique_ptr<llvm::Module>>
tile::translateToHostLLVMIR(ModuleOp module, llvm::LLVMContext &context,
                            int optLevel) {
  DialectRegistry registry;
  registerAllToLLVMIRTranslations(registry);
  module.getContext()->appendDialectRegistry(registry);
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(module, context);
  if (!llvmModule)
    return makeError("translation to LLVM IR failed");
  addPackedEntries(*llvmModule);
  auto optimize = makeOptimizingTransformer(optLevel, /*sizeLevel=*/0,
                                            /*targetMachine=*/nullptr);
  if (llvm::Error e = optimize(llvmModule.get()))
    return std::move(e);
  defineBf16Truncation(*llvmModule);
  return llvmModule;
}

llvm::Expected<std::string> tile::emitHostObject(llvm::Module &module,
                                                 llvm::StringRef cpu,
                                                 int optLevel) {
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  llvm::Triple triple(llvm::sys::getDefaultTargetTriple());
  std::string error;
  const llvm::Target *target = llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return makeError("no LLVM target for " + triple.str() + ": " + error);
  std::string cpuName =
      cpu == "native" ? llvm::sys::getHostCPUName().str() : cpu.str();
  // LLVM only warns about a CPU it does not know and then compiles for a
  // generic one: a misspelt --host-cpu is an error instead.
  std::unique_ptr<llvm::MCSubtargetInfo> subtarget(
      target->createMCSubtargetInfo(triple, cpuName, ""));
  if (!subtarget || !subtarget->isCPUStringValid(cpuName))
    return makeError("--host-cpu=" + cpu.str() + ": '" + cpuName +
                     "' is not a CPU LLVM knows for " + triple.str());
  llvm::TargetOptions options;
  std::unique_ptr<llvm::TargetMachine> machine(target->createTargetMachine(
      triple, cpuName, /*Features=*/"", options, llvm::Reloc::PIC_,
      std::nullopt,
      optLevel >= 2 ? llvm::CodeGenOptLevel::Aggressive
                    : llvm::CodeGenOptLevel::Default));
  if (!machine)
    return makeError("cannot create a target machine for cpu '" + cpuName +
                     "'");
  module.setDataLayout(machine->createDataLayout());
  module.setTargetTriple(triple);
  llvm::SmallString<0> buffer;
  llvm::raw_svector_ostream os(buffer);
  llvm::legacy::PassManager pm;
  if (machine->addPassesToEmitFile(pm, os, nullptr,
                                   llvm::CodeGenFileType::ObjectFile))
    return makeError("the target cannot emit object files");
  pm.run(module);
  return std::string(buffer.str());
}

llvm::Error tile::linkHostSharedObject(llvm::StringRef object,
                                       llvm::StringRef outputPath) {
  llvm::ErrorOr<std::string> lld = llvm::sys::findProgramByName("ld.lld");
  if (!lld)
    return makeError("ld.lld not found on PATH (install the lld package)");
  llvm::SmallString<128> objectPath;
  int fd;
  if (std::error_code ec = llvm::sys::fs::createTemporaryFile(
          "tile-host", "o", fd, objectPath))
    return makeError("cannot create a temporary object file: " + ec.message());
  llvm::FileRemover removeObject(objectPath);
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os << object;
  }
  std::string out = outputPath.str();
  llvm::SmallVector<llvm::StringRef> args = {
      *lld, "-shared", "--as-needed", "-o", out, objectPath,
      "/lib/x86_64-linux-gnu/libm.so.6", "/lib/x86_64-linux-gnu/libgcc_s.so.1"};
  std::string message;
  int rc = llvm::sys::ExecuteAndWait(*lld, args, std::nullopt, {}, 0, 0,
                                     &message);
  if (rc != 0)
    return makeError("ld.lld failed (exit " + llvm::Twine(rc) + ")" +
                     (message.empty() ? "" : ": " + message));
  return llvm::Error::success();
}

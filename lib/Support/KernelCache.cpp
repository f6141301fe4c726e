//===- KernelCache.cpp - content-hashed cache of compiled kernels ----------===//

#include "tile/Support/KernelCache.h"
#include "tile/Support/ToolFiles.h"

#include "mlir/Bytecode/BytecodeWriter.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>

using namespace tile;

#include "tile/Support/CompilerFingerprint.h"

#ifndef TILE_VERSION_STRING
#define TILE_VERSION_STRING "unknown"
#endif

static constexpr llvm::StringLiteral kMagic = "TILECACHE1";

static std::string toHex(llvm::ArrayRef<uint8_t> bytes) {
  static const char digits[] = "0123456789abcdef";
  std::string s;
  for (uint8_t b : bytes) {
    s.push_back(digits[b >> 4]);
    s.push_back(digits[b & 15]);
  }
  return s;
}

static std::string sha256Hex(llvm::StringRef data) {
  llvm::SHA256 h;
  h.update(data);
  return toHex(h.final());
}

static llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

KernelCache::KernelCache(std::string directory)
    : directory(std::move(directory)) {}

std::string KernelCache::defaultDirectory() {
  if (const char *dir = std::getenv("TILE_CACHE_DIR"); dir && *dir)
    return dir;
  llvm::SmallString<256> path;
  if (const char *xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) {
    path = xdg;
  } else {
    const char *home = std::getenv("HOME");
    path = home && *home ? home : "/tmp";
    llvm::sys::path::append(path, ".cache");
  }
  llvm::sys::path::append(path, "tile");
  return std::string(path);
}

KernelCache KernelCache::openDefault() {
  return KernelCache(defaultDirectory());
}

std::string KernelCache::computeKey(const KernelCacheKeyInputs &in) {
  llvm::SHA256 h;
  auto field = [&](llvm::StringRef name, llvm::StringRef value) {
    // name, length, value: no two different inputs hash the same bytes.
    h.update(name);
    h.update(std::to_string(value.size()) + ":");
    h.update(value);
  };
  field("tile", TILE_VERSION_STRING);
  field("compiler", TILE_COMPILER_FINGERPRINT);
  field("llvm", LLVM_VERSION_STRING);
  field("module", in.module);
  field("target", in.target);
  field("features", in.features);
  field("opt", std::to_string(in.optLevel));
  field("pipeline", in.pipelineOptions);
  field("emit", in.emit);
  field("toolchain", in.toolchain);
  return toHex(h.final());
}

std::string KernelCache::entryPath(llvm::StringRef key) const {
  llvm::SmallString<256> path(directory);
  llvm::sys::path::append(path, key + ".entry");
  return std::string(path);
}

std::optional<std::string> KernelCache::lookup(llvm::StringRef key,
                                               std::string *warning) const {
  std::string path = entryPath(key);
  if (!llvm::sys::fs::exists(path) && !llvm::sys::fs::is_symlink_file(path))
    return std::nullopt;
  // An entry that is not a regular file (a FIFO, a device, a directory) is
  // refused without reading it, like any corrupt entry below.
  auto buffer = openToolInput(path);
  if (!buffer) {
    std::string why = llvm::toString(buffer.takeError());
    if (warning)
      *warning = "kernel cache: ignoring entry " + path + " (" + why + "); recompiling";
    llvm::sys::fs::remove(path);
    return std::nullopt;
  }
  llvm::StringRef data = (*buffer)->getBuffer();
  // Header: MAGIC ' ' key ' ' size ' ' sha256 '\n' payload
  auto corrupt = [&](llvm::StringRef why) -> std::optional<std::string> {
    if (warning)
      *warning = ("kernel cache: ignoring corrupt entry " + path + " (" +
                  why + "); recompiling")
                     .str();
    llvm::sys::fs::remove(path);
    return std::nullopt;
  };
  size_t newline = data.find('\n');
  if (newline == llvm::StringRef::npos)
    return corrupt("no header");
  llvm::SmallVector<llvm::StringRef, 4> fields;
  data.take_front(newline).split(fields, ' ');
  if (fields.size() != 4 || fields[0] != kMagic)
    return corrupt("bad header");
  if (fields[1] != key)
    return corrupt("key mismatch");
  uint64_t size;
  if (fields[2].getAsInteger(10, size))
    return corrupt("bad size");
  llvm::StringRef payload = data.drop_front(newline + 1);
  if (payload.size() != size)
    return corrupt("truncated: " + std::to_string(payload.size()) + " of " +
                   std::to_string(size) + " bytes");
  if (sha256Hex(payload) != fields[3])
    return corrupt("checksum mismatch");
  return payload.str();
}

llvm::Error KernelCache::store(llvm::StringRef key,
                               llvm::StringRef payload) const {
  if (std::error_code ec = llvm::sys::fs::create_directories(directory))
    return makeError("kernel cache: cannot create " + directory + ": " +
                     ec.message());
  // A unique temporary name per writer; rename is atomic within the
  // directory, so concurrent writers of one key both succeed.
  llvm::SmallString<256> temp(directory);
  llvm::sys::path::append(temp, key + ".tmp-%%%%%%%%%%%%");
  int fd;
  llvm::SmallString<256> tempPath;
  if (std::error_code ec =
          llvm::sys::fs::createUniqueFile(temp, fd, tempPath))
    return makeError("kernel cache: cannot create a file in " + directory +
                     ": " + ec.message());
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os << kMagic << ' ' << key << ' ' << payload.size() << ' '
       << sha256Hex(payload) << '\n'
       << payload;
    os.close();
    if (os.has_error()) {
      std::error_code ec = os.error();
      os.clear_error();
      llvm::sys::fs::remove(tempPath);
      return makeError("kernel cache: cannot write " + tempPath + ": " +
                       ec.message());
    }
  }
  if (std::error_code ec = llvm::sys::fs::rename(tempPath, entryPath(key))) {
    llvm::sys::fs::remove(tempPath);
    return makeError("kernel cache: cannot rename " + tempPath + ": " +
                     ec.message());
  }
  return llvm::Error::success();
}

KernelCache::Stats KernelCache::stats() const {
  Stats s;
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(directory, ec), end;
       it != end && !ec; it.increment(ec)) {
    if (!llvm::StringRef(it->path()).ends_with(".entry"))
      continue;
    uint64_t size = 0;
    if (!llvm::sys::fs::file_size(it->path(), size)) {
      ++s.entries;
      s.bytes += size;
    }
  }
  return s;
}

llvm::Expected<uint64_t> KernelCache::clear() const {
  uint64_t removed = 0;
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(directory, ec), end;
       it != end && !ec; it.increment(ec)) {
    llvm::StringRef path(it->path());
    if (!path.ends_with(".entry") && !path.contains(".tmp-"))
      continue;
    if (std::error_code rm = llvm::sys::fs::remove(path))
      return makeError("kernel cache: cannot remove " + path + ": " +
                       rm.message());
    ++removed;
  }
  return removed;
}

std::string tile::canonicalModuleBytes(ModuleOp module) {
  OwningOpRef<ModuleOp> copy = module.clone();
  PassManager pm(module.getContext());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  // A module that fails to canonicalize still hashes deterministically.
  (void)pm.run(*copy);
  std::string bytes;
  llvm::raw_string_ostream os(bytes);
  // Locations stay in: diagnostics and launch-contract locations come from
  // them, so a moved kernel must not reuse an entry that names old lines.
  (void)writeBytecodeToFile(*copy, os);
  return bytes;
}

//===- KernelCache.h - content-hashed cache of compiled kernels -*- C++ -*-===//
//
// Every compile entry point looks here before compiling. An entry is keyed by
// a SHA-256 over everything that decides the output: the canonical module
// (MLIR bytecode after canonicalization), the target chip and features, the
// optimization level, the pipeline options, the project and LLVM versions,
// a fingerprint of the compiler's own sources (so a changed compiler never
// reuses what an older one compiled),
// and the toolchain fingerprint (`ptxas --version` for GPU targets).
//
// Entries live in one directory ($TILE_CACHE_DIR, else $XDG_CACHE_HOME/tile,
// else ~/.cache/tile), one file per key, written to a temporary file and
// renamed into place, so concurrent writers of the same key both succeed and
// readers never see a partial entry. Each entry carries a header with the
// key, the payload size and the payload's SHA-256, all verified on read: a
// corrupt or truncated entry is reported, removed and treated as a miss,
// never returned.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_SUPPORT_KERNELCACHE_H
#define TILE_SUPPORT_KERNELCACHE_H

#include "tile/Support/LLVM.h"

#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>
#include <string>

namespace mlir {
class ModuleOp;
} // namespace mlir

namespace tile {

/// What decides a compiled kernel, besides the project and LLVM versions
/// (which computeKey adds itself).
struct KernelCacheKeyInputs {
  /// The canonical module bytes (see canonicalModuleBytes).
  std::string module;
  /// "host", "sm_90a", ...
  std::string target;
  std::string features;
  int optLevel = 2;
  /// Every pipeline option, rendered as text.
  std::string pipelineOptions;
  /// The output kind ("llvmir", "host-so", "ptx", "cubin").
  std::string emit;
  /// `ptxas --version` for GPU targets; empty for the host.
  std::string toolchain;
};

class KernelCache {
public:
  struct Stats {
    uint64_t entries = 0;
    uint64_t bytes = 0;
  };

  /// A cache rooted at `directory` (created on first store).
  explicit KernelCache(std::string directory);
  /// The user's cache: $TILE_CACHE_DIR, $XDG_CACHE_HOME/tile or
  /// ~/.cache/tile.
  static KernelCache openDefault();
  static std::string defaultDirectory();

  /// Hex SHA-256 of the inputs (length-prefixed, so fields cannot run into
  /// each other), the project version and the LLVM version.
  static std::string computeKey(const KernelCacheKeyInputs &inputs);

  /// The payload stored under `key`, or nullopt on a miss. A corrupt entry is
  /// a miss: it is removed and `warning` (if given) says why.
  std::optional<std::string> lookup(llvm::StringRef key,
                                    std::string *warning = nullptr) const;
  /// Stores `payload` under `key` atomically (temporary file + rename).
  llvm::Error store(llvm::StringRef key, llvm::StringRef payload) const;

  Stats stats() const;
  /// Removes every entry; returns how many.
  llvm::Expected<uint64_t> clear() const;

  const std::string &getDirectory() const { return directory; }
  std::string entryPath(llvm::StringRef key) const;

private:
  std::string directory;
};

/// MLIR bytecode of `module` after canonicalization and CSE, on a clone (the
/// module is not changed): the form the cache key hashes, so that textual
/// differences that do not change the program do not miss.
std::string canonicalModuleBytes(ModuleOp module);

} // namespace tile

#endif // TILE_SUPPORT_KERNELCACHE_H

//===- Files.h - reading and writing files that may be hostile --*- C++ -*-===//
//
// Every file the runtime and the Qwen3 engine read comes through here: a
// path must name a regular file (a directory, FIFO, socket or device, or a
// symlink to one, is refused before any read, so nothing blocks) of at
// most a bounded size. Outputs are written whole to a temporary file beside
// the target and renamed over it, so a failed write (a full disk,
// /dev/full) leaves no partial file and names the path.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_RUNTIME_FILES_H
#define TILE_RUNTIME_FILES_H

#include "tile/runtime/Status.h"

#include <cstdint>
#include <string>

namespace tile_runtime {

/// The largest file readFile reads whole (manifests, CUBINs, host objects,
/// tokenizers, configs).
constexpr uint64_t kMaxReadBytes = uint64_t(4) << 30;

/// Opens `path` for reading without blocking and checks that it is a
/// regular file of at most `maxBytes`; on success `fd` is open (the
/// caller closes it) and `size` is its length.
Status openRegularFile(const std::string &path, int &fd, uint64_t &size,
                       uint64_t maxBytes = kMaxReadBytes);

/// Reads a whole regular file; the error names it.
Status readFile(const std::string &path, std::string &bytes);

/// Writes `bytes` to `path` through a temporary file renamed over it.
Status writeFileAtomically(const std::string &path, const std::string &bytes);

} // namespace tile_runtime

#endif // TILE_RUNTIME_FILES_H

//===- ToolFiles.h - the tools' inputs and outputs --------------*- C++ -*-===//
//
// What tilec, tile-translate and tile-opt read and write. An input must be
// stdin ("-") or a regular file of bounded size: a directory, FIFO or
// device (or a symlink to one) is refused before it is read, so nothing
// blocks or reads forever. Outputs are written as a set: each regular file
// through a temporary file beside it, all renamed into place only once
// every one was written in full, so a failed write (a full disk,
// /dev/full, a read-only directory) names the file and leaves no partial
// artifact or manifest behind. A target that is not a regular file
// (stdout, /dev/null) is written in place and never removed.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_SUPPORT_TOOLFILES_H
#define TILE_SUPPORT_TOOLFILES_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace tile {

/// The largest input a tool reads.
constexpr uint64_t kMaxToolInputBytes = uint64_t(1) << 30;

/// `path` ("-": stdin) as a buffer, or an error naming it.
llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> openToolInput(llvm::StringRef path);

/// The deepest bracket nesting ({ ( [ <) an MLIR input may have: MLIR's
/// parser recurses once per level, and a deeper input would overflow the
/// stack.
constexpr unsigned kMaxMlirNesting = 1000;

/// Refuses `buffer` (MLIR text) where its brackets nest deeper than
/// kMaxMlirNesting, naming the file, line and column; strings and comments
/// are skipped.
llvm::Error checkMlirNesting(const llvm::MemoryBuffer &buffer);

/// A tool's outputs, written together by commit().
class ToolOutputs {
public:
  /// `bytes` for `path` ("-": stdout). A path given twice is an error at
  /// commit (two outputs of one run would overwrite each other).
  void add(std::string path, std::string bytes);
  llvm::Error commit();

private:
  std::vector<std::pair<std::string, std::string>> outputs;
};

} // namespace tile

#endif // TILE_SUPPORT_TOOLFILES_H

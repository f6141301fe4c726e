//===- ProgrammaticChain.h - what a PDL launch overlaps ---------*- C++ -*-===//
//
// Private to the runtime. A kernel launched as a programmatic dependent
// (PDL) may be scheduled before the kernel ahead of it on its stream ends,
// and that one before the one ahead of it: everything a kernel does before
// its grid-dependency wait may overlap any launch of its chain, the
// launches queued since the last one that waited for everything before it.
// A `settled` view is read before that wait, so the stream admits such a
// kernel to the chain only when no launch of the chain writes the view;
// otherwise it launches it with a full dependency, which starts a new
// chain. The chain holds the byte ranges its launches (and copies and
// fills, conservatively) wrote.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_RUNTIME_LIB_PROGRAMMATICCHAIN_H
#define TILE_RUNTIME_LIB_PROGRAMMATICCHAIN_H

#include <cstddef>
#include <cstdint>
#include <vector>

namespace tile_runtime {

/// Device addresses [begin, end).
struct ByteRange {
  uint64_t begin = 0, end = 0;
  bool overlaps(const ByteRange &o) const {
    return begin < o.end && o.begin < end;
  }
};

class ProgrammaticChain {
public:
  /// Whether a kernel that reads `early` before its grid wait may join the
  /// chain (be launched as a programmatic dependent).
  bool admits(const std::vector<ByteRange> &early) const;
  /// A launch that waits for everything before it starts a new chain.
  void restart();
  /// Writes the stream cannot list (a replayed graph, a capture that
  /// ended): no kernel that reads early joins until the chain restarts.
  void forget();
  void recordWrite(const ByteRange &range);

  /// Past this many ranges the chain forgets them (admits stays sound,
  /// and checking a launch stays cheap on long chains).
  static constexpr std::size_t kMaxRanges = 4096;

private:
  std::vector<ByteRange> writes;
  bool unknown = false;
};

} // namespace tile_runtime

#endif // TILE_RUNTIME_LIB_PROGRAMMATICCHAIN_H

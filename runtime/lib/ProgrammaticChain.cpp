//===- ProgrammaticChain.cpp - what a programmatic dependent overlaps -----===//

#include "ProgrammaticChain.h"

using namespace tile_runtime;

bool ProgrammaticChain::admits(const std::vector<ByteRange> &early) const {
  if (early.empty())
    return true;
  if (unknown)
    return false;
  for (const ByteRange &w : writes)
    for (const ByteRange &r : early)
      if (w.overlaps(r))
        return false;
  return true;
}

void ProgrammaticChain::restart() {
  writes.clear();
  unknown = false;
}

void ProgrammaticChain::forget() {
  writes.clear();
  unknown = true;
}

void ProgrammaticChain::recordWrite(const ByteRange &range) {
  if (unknown || range.begin >= range.end)
    return;
  if (writes.size() >= kMaxRanges) {
    forget();
    return;
  }
  writes.push_back(range);
}

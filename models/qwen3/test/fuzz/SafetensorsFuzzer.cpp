//===- SafetensorsFuzzer.cpp - libFuzzer over the safetensors header ------===//
//
// Any bytes as a whole .safetensors file: the parser must return an error
// or tensors that all lie inside the file's data, do not overlap, and whose
// byte counts are dtype x shape. A violated invariant aborts (a finding),
// like a crash or a sanitizer report.
//
//===----------------------------------------------------------------------===//

#include "qwen3/Safetensors.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::vector<qwen3::TensorInfo> tensors;
  if (!qwen3::parseSafetensors(data, size, "fuzz.safetensors", tensors))
    return 0;
  std::vector<std::pair<const uint8_t *, const uint8_t *>> spans;
  for (const qwen3::TensorInfo &t : tensors) {
    uint64_t elements = 1;
    for (int64_t d : t.shape) {
      if (d < 0)
        std::abort();
      if (__builtin_mul_overflow(elements, static_cast<uint64_t>(d), &elements))
        std::abort(); // an accepted shape must not overflow
    }
    uint64_t esize = t.dtype == qwen3::TensorDType::F32      ? 4
                     : t.dtype == qwen3::TensorDType::F8E4M3 ? 1
                                                              : 2;
    if (elements * esize != t.bytes)
      std::abort();
    if (t.bytes > 0 && (t.data < data || t.data + t.bytes > data + size))
      std::abort();
    if (t.bytes > 0)
      spans.emplace_back(t.data, t.data + t.bytes);
  }
  std::sort(spans.begin(), spans.end());
  for (size_t i = 1; i < spans.size(); ++i)
    if (spans[i].first < spans[i - 1].second)
      std::abort();
  return 0;
}

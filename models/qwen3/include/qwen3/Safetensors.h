//===- Safetensors.h - checked, memory-mapped safetensors files -*- C++ -*-===//
//
// A checkpoint is one model.safetensors or shards named by
// model.safetensors.index.json. Every header is validated before anything
// else happens: its length, JSON, dtypes, shapes, dtype x shape = byte
// count, offsets inside the file, sorted and non-overlapping. Tensor data is
// read straight from the mapping.
//
//===----------------------------------------------------------------------===//

#ifndef QWEN3_SAFETENSORS_H
#define QWEN3_SAFETENSORS_H

#include "tile/runtime/Status.h"

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace qwen3 {

using tile_runtime::Status;

/// F8E4M3: e4m3fn (no infinities; 0x7F and 0xFF are NaN), the weights of
/// fine-grained FP8 checkpoints.
enum class TensorDType { F16, BF16, F32, F8E4M3 };
const char *dtypeName(TensorDType t);

struct TensorInfo {
  std::string name, file;
  TensorDType dtype = TensorDType::F32;
  std::vector<int64_t> shape;
  const uint8_t *data = nullptr; ///< inside the file's mapping
  uint64_t bytes = 0;
  int64_t count() const {
    int64_t n = 1;
    for (int64_t d : shape)
      n *= d;
    return n;
  }
};

/// One mapped file.
class MappedFile {
public:
  ~MappedFile();
  static Status open(const std::string &path, std::unique_ptr<MappedFile> &out);
  const uint8_t *data() const { return data_; }
  uint64_t size() const { return size_; }

private:
  const uint8_t *data_ = nullptr;
  uint64_t size_ = 0;
};

/// Parses and validates a safetensors header for a file of `fileSize` bytes
/// starting at `bytes`; tensors point into `bytes`.
Status parseSafetensors(const uint8_t *bytes, uint64_t fileSize,
                        const std::string &name, std::vector<TensorInfo> &out);

/// A whole checkpoint: every tensor of every shard, by name.
class Checkpoint {
public:
  /// `dir` holds model.safetensors or model.safetensors.index.json + shards.
  static Status open(const std::string &dir, Checkpoint &checkpoint);
  const TensorInfo *find(const std::string &name) const;
  const std::map<std::string, TensorInfo> &tensors() const { return tensors_; }

private:
  std::vector<std::shared_ptr<MappedFile>> files_;
  std::map<std::string, TensorInfo> tensors_;
};

} // namespace qwen3

#endif // QWEN3_SAFETENSORS_H

//===- Config.h - a Qwen3 model directory's configuration -------*- C++ -*-===//

#ifndef QWEN3_CONFIG_H
#define QWEN3_CONFIG_H

#include "tile/runtime/Files.h"
#include "tile/runtime/Status.h"

#include <cstdint>
#include <string>
#include <vector>

namespace qwen3 {

using tile_runtime::Status;

/// The quantization_config of a fine-grained FP8 checkpoint (the layout of
/// Qwen/Qwen3-*-FP8): each quantized linear's `weight` is F8_E4M3 [out, in]
/// with `weight_scale_inv` [ceil(out / blockOut), ceil(in / blockIn)] in
/// BF16, F16 or F32, the weight being W_fp8 * scale_inv per block.
struct Fp8Quantization {
  bool enabled = false;
  int64_t blockOut = 128, blockIn = 128;
  /// modules_to_not_convert: a module whose name contains one of these
  /// stays 16-bit (as transformers matches them).
  std::vector<std::string> notConverted;
  /// Whether the linear `module` (e.g. "model.layers.0.mlp.up_proj") is
  /// stored in FP8.
  bool quantizes(const std::string &module) const;
};

/// config.json (+ generation_config.json) of a dense Qwen3 checkpoint, every
/// field checked for presence, type and consistency.
struct ModelConfig {
  int64_t vocabSize = 0, hidden = 0, intermediate = 0, layers = 0;
  int64_t heads = 0, kvHeads = 0, headDim = 0, maxPositions = 0;
  double rmsEps = 1e-6, ropeTheta = 1e6;
  bool tiedEmbeddings = false;
  std::string dtype; ///< torch_dtype: "bfloat16", "float16" or "float32"
  std::vector<int32_t> eosTokenIds;
  bool isEndOfSequence(int32_t id) const {
    for (int32_t e : eosTokenIds)
      if (e == id)
        return true;
    return false;
  }
  Fp8Quantization fp8;
  /// generation_config.json's sampling defaults (used with --sample).
  double temperature = 1.0, topP = 1.0;
  int64_t topK = 0;

  /// Reads `dir`/config.json and, when present, `dir`/generation_config.json.
  static Status load(const std::string &dir, ModelConfig &config);
  /// Parses config.json text; `name` is used in messages.
  static Status parse(const std::string &json, const std::string &name,
                      ModelConfig &config);
  /// Parses generation_config.json text into `config`.
  static Status parseGeneration(const std::string &json, const std::string &name,
                                ModelConfig &config);
};

/// Reads a whole regular file; the error names it (tile/runtime/Files.h).
using tile_runtime::readFile;

} // namespace qwen3

#endif // QWEN3_CONFIG_H

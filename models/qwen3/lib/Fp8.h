//===- Fp8.h - fine-grained FP8 weights (e4m3, block scales) ----*- C++ -*-===//
//
// The FP8 layout of Qwen/Qwen3-*-FP8 checkpoints: a linear's weight in
// e4m3fn bytes with one scale per blockOut x blockIn block, the weight being
// the byte's value times the block's scale_inv.
//
//===----------------------------------------------------------------------===//

#ifndef QWEN3_LIB_FP8_H
#define QWEN3_LIB_FP8_H

#include "qwen3/Safetensors.h"
#include "tile/runtime/Runtime.h"

#include <cstdint>
#include <string>

namespace qwen3 {

/// The tensor holding the block scales of the FP8 weight `weightName`
/// (`...weight` -> `...weight_scale_inv`).
inline std::string fp8ScaleName(const std::string &weightName) {
  return weightName + "_scale_inv";
}

/// The value of an e4m3fn byte (bias 7, 3 mantissa bits, subnormals, no
/// infinities; 0x7F and 0xFF are NaN).
float e4m3ToFloat(uint8_t byte);

/// `weight` (F8_E4M3 [out, in]) times its block scales `scaleInv` (BF16, F16
/// or F32 [ceil(out / blockOut), ceil(in / blockIn)], shapes checked by the
/// caller) into `to` (bf16 or f16) at `dst`, each element rounded once. A
/// NaN byte is an error naming the tensor and the element.
Status dequantizeFp8(const TensorInfo &weight, const TensorInfo &scaleInv, int64_t blockOut,
                     int64_t blockIn, tile_runtime::DType to, uint8_t *dst);

/// The e4m3fn byte nearest `v` (ties to even), saturating at +-448 (the
/// format's largest finite value), as torch's conversion of a scaled block.
uint8_t floatToE4m3(float v);

/// The block scales of `scaleInv` (BF16, F16 or F32) in block rows [row0,
/// row0 + rows) and columns [col0, col0 + cols), widened to f32 into `dst`
/// (row-major, rows x cols). A scale that is not finite is an error naming
/// the tensor and the block.
Status readFp8Scales(const TensorInfo &scaleInv, int64_t row0, int64_t rows, int64_t col0,
                     int64_t cols, float *dst);

/// Quantizes `src` (rows x cols, both multiples of 128, row-major) in the
/// FP8 checkpoints' format: per 128 x 128 block, scale = amax / 448 into
/// `scales` ([rows / 128, cols / 128]) and each element's e4m3 byte of
/// value / scale into `bytes`.
void quantizeFp8(const float *src, int64_t rows, int64_t cols, uint8_t *bytes, float *scales);

/// quantizeFp8 of the rows x cols elements of a BF16, F16 or F32 matrix at
/// `src` whose rows are `stride` elements apart (a slice of a checkpoint
/// tensor), 128-row strips at a time on the machine's cores: a model's
/// worth of weights quantized at load in seconds, not minutes.
void quantizeFp8Matrix(const uint8_t *src, TensorDType from, int64_t stride, int64_t rows,
                       int64_t cols, uint8_t *bytes, float *scales);

} // namespace qwen3

#endif // QWEN3_LIB_FP8_H

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

} // namespace qwen3

#endif // QWEN3_LIB_FP8_H

//===- RandomModel.h - random-weight Qwen3 checkpoints for tests -*- C++ -*-===//
//
// A Qwen3 checkpoint the test writes itself (config.json and
// model.safetensors) at shapes no committed fixture has: weights uniform
// with a standard deviation of 0.2 (norms 1 +- that), so the logits spread
// far beyond rounding and greedy picks rarely tie. With `fp8` its linear
// projections are stored in the layout of Qwen's FP8 checkpoints (F8_E4M3
// weights, one F32 weight_scale_inv per 128 x 128 block,
// quantization_config), quantized from the weights the 16-bit model of the
// same shape holds.
//
//===----------------------------------------------------------------------===//

#ifndef QWEN3_TEST_RANDOMMODEL_H
#define QWEN3_TEST_RANDOMMODEL_H

#include "Fp8.h"
#include "tile/runtime/Half.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <fstream>
#include <random>
#include <string>
#include <vector>

namespace qwen3::test {

struct ModelShape {
  int64_t hidden = 256, heads = 8, kvHeads = 4, headDim = 64, intermediate = 512,
          vocab = 2176, layers = 2;
  bool tied = true;
  bool f16 = false;
  bool fp8 = false;
};

/// Writes config.json and model.safetensors of a random-weight model.
inline void writeModel(const std::string &dir, const ModelShape &s) {
  ASSERT_EQ(0, std::system(("mkdir -p '" + dir + "'").c_str()));
  nlohmann::json cfg = {
      {"architectures", {"Qwen3ForCausalLM"}}, {"model_type", "qwen3"},
      {"hidden_size", s.hidden}, {"intermediate_size", s.intermediate},
      {"num_attention_heads", s.heads}, {"num_key_value_heads", s.kvHeads},
      {"head_dim", s.headDim}, {"num_hidden_layers", s.layers}, {"vocab_size", s.vocab},
      {"max_position_embeddings", 512}, {"rms_norm_eps", 1e-6}, {"rope_theta", 1e6},
      {"hidden_act", "silu"}, {"tie_word_embeddings", s.tied},
      {"torch_dtype", s.f16 ? "float16" : "bfloat16"}};
  if (s.fp8)
    cfg["quantization_config"] = {{"quant_method", "fp8"},
                                  {"fmt", "e4m3"},
                                  {"activation_scheme", "dynamic"},
                                  {"weight_block_size", {128, 128}}};
  std::ofstream(dir + "/config.json") << cfg.dump(2);

  struct Tensor {
    std::string name;
    std::vector<int64_t> shape;
    bool projection = false;
  };
  std::vector<Tensor> tensors = {{"model.embed_tokens.weight", {s.vocab, s.hidden}},
                                 {"model.norm.weight", {s.hidden}}};
  if (!s.tied)
    tensors.push_back({"lm_head.weight", {s.vocab, s.hidden}});
  const int64_t q = s.heads * s.headDim, kv = s.kvHeads * s.headDim;
  for (int64_t l = 0; l < s.layers; ++l) {
    std::string p = "model.layers." + std::to_string(l) + ".";
    for (const Tensor &t : std::vector<Tensor>{
             {"input_layernorm.weight", {s.hidden}},
             {"post_attention_layernorm.weight", {s.hidden}},
             {"self_attn.q_norm.weight", {s.headDim}},
             {"self_attn.k_norm.weight", {s.headDim}},
             {"self_attn.q_proj.weight", {q, s.hidden}, true},
             {"self_attn.k_proj.weight", {kv, s.hidden}, true},
             {"self_attn.v_proj.weight", {kv, s.hidden}, true},
             {"self_attn.o_proj.weight", {s.hidden, q}, true},
             {"mlp.gate_proj.weight", {s.intermediate, s.hidden}, true},
             {"mlp.up_proj.weight", {s.intermediate, s.hidden}, true},
             {"mlp.down_proj.weight", {s.hidden, s.intermediate}, true}})
      tensors.push_back({p + t.name, t.shape, t.projection});
  }
  std::mt19937 gen(7);
  std::uniform_real_distribution<float> u(-0.35f, 0.35f);
  nlohmann::json header = nlohmann::json::object();
  std::string data;
  auto add = [&](const std::string &name, const char *dtype, const std::vector<int64_t> &shape,
                 const void *bytes, size_t size) {
    header[name] = {{"dtype", dtype},
                    {"shape", shape},
                    {"data_offsets", {data.size(), data.size() + size}}};
    data.append(static_cast<const char *>(bytes), size);
  };
  for (const Tensor &t : tensors) {
    int64_t n = 1;
    for (int64_t d : t.shape)
      n *= d;
    const bool norm = t.shape.size() == 1;
    std::vector<float> v(n);
    for (float &x : v)
      x = norm ? 1.0f + u(gen) : u(gen);
    if (s.fp8 && t.projection) {
      // Quantized from the 16-bit values the same model without `fp8`
      // stores, so that quantizing that one at load gives these bytes.
      for (float &x : v)
        x = s.f16 ? tile_runtime::fromHalf(tile_runtime::toHalf(x))
                  : tile_runtime::fromBF16(tile_runtime::toBF16(x));
      std::vector<uint8_t> bytes(n);
      std::vector<float> scales(n / (128 * 128));
      quantizeFp8(v.data(), t.shape[0], t.shape[1], bytes.data(), scales.data());
      add(t.name, "F8_E4M3", t.shape, bytes.data(), bytes.size());
      add(t.name + "_scale_inv", "F32", {t.shape[0] / 128, t.shape[1] / 128}, scales.data(),
          scales.size() * 4);
      continue;
    }
    std::vector<uint16_t> h(n);
    for (int64_t i = 0; i < n; ++i)
      h[i] = s.f16 ? tile_runtime::toHalf(v[i]) : tile_runtime::toBF16(v[i]);
    add(t.name, s.f16 ? "F16" : "BF16", t.shape, h.data(), h.size() * 2);
  }
  std::string text = header.dump();
  text.append((8 - text.size() % 8) % 8, ' ');
  uint64_t len = text.size();
  std::ofstream out(dir + "/model.safetensors", std::ios::binary);
  out.write(reinterpret_cast<const char *>(&len), 8);
  out << text << data;
}

} // namespace qwen3::test

#endif // QWEN3_TEST_RANDOMMODEL_H

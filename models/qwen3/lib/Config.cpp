//===- Config.cpp - a Qwen3 model directory's configuration ---------------===//

#include "qwen3/Config.h"

#include "JsonText.h"

#include <nlohmann/json.hpp>

#include <fstream>
#include <sstream>
#include <sys/stat.h>

namespace qwen3 {

namespace {

Status intField(const nlohmann::json &j, const std::string &name,
                const char *key, int64_t lo, int64_t hi, int64_t &out) {
  if (!j.contains(key))
    return Status::error(name + ": missing \"" + key + "\"");
  if (!j[key].is_number_integer())
    return Status::error(name + ": \"" + key + "\" must be an integer");
  out = j[key].get<int64_t>();
  if (out < lo || out > hi)
    return Status::error(name + ": \"" + key + "\" = " + std::to_string(out) +
                         " is outside [" + std::to_string(lo) + ", " +
                         std::to_string(hi) + "]");
  return Status::ok();
}

Status realField(const nlohmann::json &j, const std::string &name,
                 const char *key, double lo, double hi, double &out) {
  if (!j.contains(key) || !j[key].is_number())
    return Status::error(name + ": \"" + key + "\" must be a number");
  out = j[key].get<double>();
  if (!(out > lo && out <= hi))
    return Status::error(name + ": \"" + key + "\" = " + std::to_string(out) +
                         " is out of range");
  return Status::ok();
}

/// quantization_config: only the fine-grained FP8 layout, every field
/// checked.
Status parseQuantization(const nlohmann::json &q, const std::string &name,
                         Fp8Quantization &out) {
  const std::string at = name + ": quantization_config";
  if (!q.is_object())
    return Status::error(at + " must be an object");
  if (!q.contains("quant_method") || q["quant_method"] != "fp8")
    return Status::error(at + ".quant_method " +
                         (q.contains("quant_method") ? describeJson(q["quant_method"]) : "(missing)") +
                         " is not supported (\"fp8\")");
  if (q.contains("fmt") && q["fmt"] != "e4m3")
    return Status::error(at + ".fmt " + describeJson(q["fmt"]) + " is not supported (\"e4m3\")");
  if (q.contains("activation_scheme") && q["activation_scheme"] != "dynamic")
    return Status::error(at + ".activation_scheme " + describeJson(q["activation_scheme"]) +
                         " is not supported (\"dynamic\")");
  if (!q.contains("weight_block_size"))
    return Status::error(at + ".weight_block_size is missing (per-tensor FP8 scales are "
                         "not supported)");
  const auto &b = q["weight_block_size"];
  if (!b.is_array() || b.size() != 2 || !b[0].is_number_integer() ||
      !b[1].is_number_integer() || b[0].get<int64_t>() < 1 || b[1].get<int64_t>() < 1 ||
      b[0].get<int64_t>() > 65536 || b[1].get<int64_t>() > 65536)
    return Status::error(at + ".weight_block_size must be two positive integers");
  out.enabled = true;
  out.blockOut = b[0].get<int64_t>();
  out.blockIn = b[1].get<int64_t>();
  out.notConverted.clear();
  if (q.contains("modules_to_not_convert") && !q["modules_to_not_convert"].is_null()) {
    const auto &m = q["modules_to_not_convert"];
    if (!m.is_array())
      return Status::error(at + ".modules_to_not_convert must be a list of names");
    for (const auto &x : m) {
      if (!x.is_string() || x.get<std::string>().empty())
        return Status::error(at + ".modules_to_not_convert must be a list of names");
      out.notConverted.push_back(x.get<std::string>());
    }
  }
  return Status::ok();
}

} // namespace

bool Fp8Quantization::quantizes(const std::string &module) const {
  if (!enabled)
    return false;
  for (const std::string &n : notConverted)
    if (module.find(n) != std::string::npos)
      return false;
  return true;
}

Status ModelConfig::parse(const std::string &json, const std::string &name,
                          ModelConfig &c) {
  nlohmann::json j = nlohmann::json::parse(json, nullptr, false);
  if (j.is_discarded() || !j.is_object())
    return Status::error(name + ": malformed JSON (expected an object)");
  if (j.contains("model_type") &&
      (!j["model_type"].is_string() || j["model_type"] != "qwen3"))
    return Status::error(name + ": model_type must be \"qwen3\"");
  Status st = Status::ok();
  if (!(st = intField(j, name, "vocab_size", 1, 1 << 22, c.vocabSize)) ||
      !(st = intField(j, name, "hidden_size", 1, 65536, c.hidden)) ||
      !(st = intField(j, name, "intermediate_size", 1, 1 << 20, c.intermediate)) ||
      !(st = intField(j, name, "num_hidden_layers", 1, 1024, c.layers)) ||
      !(st = intField(j, name, "num_attention_heads", 1, 1024, c.heads)) ||
      !(st = intField(j, name, "num_key_value_heads", 1, 1024, c.kvHeads)) ||
      !(st = intField(j, name, "max_position_embeddings", 1, 1 << 24,
                      c.maxPositions)))
    return st;
  if (j.contains("head_dim")) {
    if (!(st = intField(j, name, "head_dim", 1, 1024, c.headDim)))
      return st;
  } else {
    c.headDim = c.hidden / c.heads;
  }
  if (!(st = realField(j, name, "rms_norm_eps", 0, 1, c.rmsEps)))
    return st;
  // transformers 5 writes rope_parameters {rope_theta, rope_type}; older
  // configs (and Qwen's own) a top-level rope_theta.
  if (j.contains("rope_parameters") && j["rope_parameters"].is_object()) {
    const auto &rp = j["rope_parameters"];
    if (rp.contains("rope_type") && rp["rope_type"] != "default")
      return Status::error(name + ": rope_parameters.rope_type " +
                           describeJson(rp["rope_type"]) + " is not supported");
    if (!(st = realField(rp, name + ": rope_parameters", "rope_theta", 0, 1e12,
                         c.ropeTheta)))
      return st;
  } else if (!(st = realField(j, name, "rope_theta", 0, 1e12, c.ropeTheta))) {
    return st;
  }
  if (c.heads % c.kvHeads != 0)
    return Status::error(name + ": num_attention_heads (" +
                         std::to_string(c.heads) +
                         ") is not a multiple of num_key_value_heads (" +
                         std::to_string(c.kvHeads) + ")");
  // (value(key, default) would throw on a field of another type.)
  if (j.contains("tie_word_embeddings") && !j["tie_word_embeddings"].is_boolean())
    return Status::error(name + ": \"tie_word_embeddings\" must be true or false");
  c.tiedEmbeddings = j.contains("tie_word_embeddings") && j["tie_word_embeddings"].get<bool>();
  auto unsupported = [&](const char *key) {
    return j.contains(key) && !j[key].is_null() && j[key] != false;
  };
  if (unsupported("rope_scaling"))
    return Status::error(name + ": rope_scaling is not supported");
  if (unsupported("attention_bias"))
    return Status::error(name + ": attention_bias is not supported (Qwen3 has none)");
  if (unsupported("use_sliding_window"))
    return Status::error(name + ": use_sliding_window is not supported");
  if (j.contains("hidden_act") && j["hidden_act"] != "silu")
    return Status::error(name + ": hidden_act must be \"silu\"");
  std::string key = j.contains("torch_dtype") ? "torch_dtype" : "dtype";
  c.dtype = j.contains(key) && j[key].is_string() ? j[key].get<std::string>()
                                                  : "bfloat16";
  if (c.dtype != "bfloat16" && c.dtype != "float16" && c.dtype != "float32")
    return Status::error(name + ": " + key + " \"" + c.dtype +
                         "\" is not bfloat16, float16 or float32");
  c.fp8 = Fp8Quantization();
  if (j.contains("quantization_config") && !j["quantization_config"].is_null())
    if (!(st = parseQuantization(j["quantization_config"], name, c.fp8)))
      return st;
  c.eosTokenIds.clear();
  if (j.contains("eos_token_id") && j["eos_token_id"].is_number_integer())
    c.eosTokenIds.push_back(j["eos_token_id"].get<int32_t>());
  return Status::ok();
}

Status ModelConfig::parseGeneration(const std::string &json,
                                    const std::string &name, ModelConfig &c) {
  nlohmann::json j = nlohmann::json::parse(json, nullptr, false);
  if (j.is_discarded() || !j.is_object())
    return Status::error(name + ": malformed JSON (expected an object)");
  if (j.contains("eos_token_id")) {
    const auto &e = j["eos_token_id"];
    std::vector<int32_t> ids;
    if (e.is_number_integer()) {
      ids.push_back(e.get<int32_t>());
    } else if (e.is_array()) {
      for (const auto &x : e) {
        if (!x.is_number_integer())
          return Status::error(name + ": eos_token_id must hold integers");
        ids.push_back(x.get<int32_t>());
      }
    } else {
      return Status::error(name + ": eos_token_id must be an integer or a list");
    }
    c.eosTokenIds = ids;
  }
  if (j.contains("temperature") && j["temperature"].is_number())
    c.temperature = j["temperature"].get<double>();
  if (j.contains("top_p") && j["top_p"].is_number())
    c.topP = j["top_p"].get<double>();
  if (j.contains("top_k") && j["top_k"].is_number_integer())
    c.topK = j["top_k"].get<int64_t>();
  return Status::ok();
}

Status ModelConfig::load(const std::string &dir, ModelConfig &c) {
  std::string text, path = dir + "/config.json";
  if (Status st = readFile(path, text); !st)
    return st;
  if (Status st = parse(text, path, c); !st)
    return st;
  std::string gpath = dir + "/generation_config.json";
  struct stat sb;
  if (::stat(gpath.c_str(), &sb) == 0) {
    if (Status st = readFile(gpath, text); !st)
      return st;
    if (Status st = parseGeneration(text, gpath, c); !st)
      return st;
  }
  return Status::ok();
}

} // namespace qwen3

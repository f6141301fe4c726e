//===- Safetensors.cpp - checked, memory-mapped safetensors files ---------===//

#include "qwen3/Safetensors.h"

#include "tile/runtime/Files.h"

#include "qwen3/Config.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstring>
#include <fcntl.h>
#include <set>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace qwen3 {

const char *dtypeName(TensorDType t) {
  switch (t) {
  case TensorDType::F16: return "F16";
  case TensorDType::BF16: return "BF16";
  case TensorDType::F32: return "F32";
  case TensorDType::F8E4M3: return "F8_E4M3";
  }
  return "?";
}

MappedFile::~MappedFile() {
  if (data_ && size_)
    ::munmap(const_cast<uint8_t *>(data_), size_);
}

Status MappedFile::open(const std::string &path, std::unique_ptr<MappedFile> &out) {
  int fd = -1;
  uint64_t size = 0;
  if (Status st = tile_runtime::openRegularFile(path, fd, size, UINT64_MAX); !st)
    return st;
  auto f = std::unique_ptr<MappedFile>(new MappedFile());
  f->size_ = size;
  if (f->size_) {
    void *p = ::mmap(nullptr, f->size_, PROT_READ, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED) {
      ::close(fd);
      return Status::error(path + ": mmap failed (" + std::strerror(errno) + ")");
    }
    f->data_ = static_cast<const uint8_t *>(p);
  }
  ::close(fd);
  out = std::move(f);
  return Status::ok();
}

Status parseSafetensors(const uint8_t *bytes, uint64_t fileSize,
                        const std::string &name, std::vector<TensorInfo> &out) {
  out.clear();
  auto err = [&](const std::string &what) {
    return Status::error(name + ": " + what);
  };
  if (fileSize < 8)
    return err("truncated: no header length (" + std::to_string(fileSize) +
               " bytes)");
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i)
    n = (n << 8) | bytes[i];
  if (n > fileSize - 8)
    return err("header length " + std::to_string(n) + " runs past the end of "
               "the file (" + std::to_string(fileSize) + " bytes)");
  if (n > (100u << 20))
    return err("header length " + std::to_string(n) + " exceeds 100 MB");
  std::string_view text(reinterpret_cast<const char *>(bytes + 8), n);
  nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object())
    return err("malformed header JSON");
  const uint64_t dataSize = fileSize - 8 - n;
  const uint8_t *base = bytes + 8 + n;
  struct Range {
    uint64_t begin, end;
    std::string name;
  };
  std::vector<Range> ranges;
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (it.key() == "__metadata__")
      continue;
    const std::string &tname = it.key();
    const auto &t = it.value();
    auto terr = [&](const std::string &what) {
      return err("tensor '" + tname + "': " + what);
    };
    if (!t.is_object() || !t.contains("dtype") || !t["dtype"].is_string() ||
        !t.contains("shape") || !t["shape"].is_array() ||
        !t.contains("data_offsets") || !t["data_offsets"].is_array() ||
        t["data_offsets"].size() != 2)
      return terr("needs dtype, shape and data_offsets [begin, end]");
    TensorInfo info;
    info.name = tname;
    info.file = name;
    std::string dt = t["dtype"].get<std::string>();
    uint64_t esize;
    if (dt == "F16") {
      info.dtype = TensorDType::F16, esize = 2;
    } else if (dt == "BF16") {
      info.dtype = TensorDType::BF16, esize = 2;
    } else if (dt == "F32") {
      info.dtype = TensorDType::F32, esize = 4;
    } else if (dt == "F8_E4M3") {
      info.dtype = TensorDType::F8E4M3, esize = 1;
    } else {
      return terr("unsupported dtype " + dt + " (F16, BF16, F32 or F8_E4M3)");
    }
    uint64_t count = 1;
    for (const auto &d : t["shape"]) {
      if (!d.is_number_unsigned() || d.get<uint64_t>() > (1ull << 40))
        return terr("shape must hold non-negative integers");
      uint64_t v = d.get<uint64_t>();
      info.shape.push_back(static_cast<int64_t>(v));
      if (v && count > (1ull << 50) / v)
        return terr("shape too large");
      count *= v;
    }
    const auto &off = t["data_offsets"];
    if (!off[0].is_number_unsigned() || !off[1].is_number_unsigned())
      return terr("data_offsets must be non-negative integers");
    uint64_t b = off[0].get<uint64_t>(), e = off[1].get<uint64_t>();
    if (b > e || e > dataSize)
      return terr("data_offsets [" + std::to_string(b) + ", " +
                  std::to_string(e) + ") outside the data (" +
                  std::to_string(dataSize) + " bytes)");
    if (e - b != count * esize)
      return terr("data_offsets span " + std::to_string(e - b) +
                  " bytes, but " + dt + " x shape needs " +
                  std::to_string(count * esize));
    info.data = base + b;
    info.bytes = e - b;
    ranges.push_back({b, e, tname});
    out.push_back(std::move(info));
  }
  std::sort(ranges.begin(), ranges.end(),
            [](const Range &a, const Range &b) { return a.begin < b.begin; });
  for (size_t i = 1; i < ranges.size(); ++i)
    if (ranges[i].begin < ranges[i - 1].end)
      return err("tensors '" + ranges[i - 1].name + "' and '" +
                 ranges[i].name + "' overlap");
  return Status::ok();
}

Status Checkpoint::open(const std::string &dir, Checkpoint &ck) {
  ck = Checkpoint();
  std::vector<std::string> shards;
  std::string index = dir + "/model.safetensors.index.json";
  struct stat st;
  std::map<std::string, std::string> weightMap;
  if (::stat(index.c_str(), &st) == 0) {
    std::string text;
    if (Status s = readFile(index, text); !s)
      return s;
    nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
    if (j.is_discarded() || !j.is_object() || !j.contains("weight_map") ||
        !j["weight_map"].is_object())
      return Status::error(index + ": expected an object with \"weight_map\"");
    std::set<std::string> files;
    for (auto it = j["weight_map"].begin(); it != j["weight_map"].end(); ++it) {
      if (!it.value().is_string())
        return Status::error(index + ": weight_map[\"" + it.key() +
                             "\"] must be a file name");
      std::string f = it.value().get<std::string>();
      if (f.empty() || f.find('/') != std::string::npos || f[0] == '.')
        return Status::error(index + ": weight_map[\"" + it.key() +
                             "\"] = \"" + f + "\" is not a file in the directory");
      files.insert(f);
      weightMap[it.key()] = f;
    }
    shards.assign(files.begin(), files.end());
  } else {
    shards.push_back("model.safetensors");
  }
  for (const std::string &shard : shards) {
    std::string path = dir + "/" + shard;
    std::unique_ptr<MappedFile> f;
    if (Status s = MappedFile::open(path, f); !s)
      return s;
    std::vector<TensorInfo> infos;
    if (Status s = parseSafetensors(f->data(), f->size(), path, infos); !s)
      return s;
    for (TensorInfo &t : infos) {
      if (!weightMap.empty()) {
        auto w = weightMap.find(t.name);
        if (w == weightMap.end() || w->second != shard)
          return Status::error(path + ": tensor '" + t.name +
                               "' is not listed for this shard in " + index);
      }
      if (ck.tensors_.count(t.name))
        return Status::error(path + ": tensor '" + t.name +
                             "' also appears in " + ck.tensors_[t.name].file);
      std::string tname = t.name;
      ck.tensors_.emplace(tname, std::move(t));
    }
    ck.files_.push_back(std::move(f));
  }
  for (auto &[tname, file] : weightMap)
    if (!ck.tensors_.count(tname))
      return Status::error(dir + "/" + file + ": tensor '" + tname +
                           "' listed in the index is missing");
  return Status::ok();
}

const TensorInfo *Checkpoint::find(const std::string &name) const {
  auto it = tensors_.find(name);
  return it == tensors_.end() ? nullptr : &it->second;
}

} // namespace qwen3

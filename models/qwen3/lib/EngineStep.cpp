//===- EngineStep.cpp - a shard's steps -----------------------------------===//
//
// What the Engine API runs on each shard (every rank at once in a
// tensor-parallel run): the prompt, a decode step (captured once per
// attention tier as a graph, then replayed), the logits, the profile.
//
//===----------------------------------------------------------------------===//

#include "EngineShard.h"

#include "tile/runtime/Half.h"

#include <algorithm>

namespace qwen3 {

void EngineShard::setSampling(const Sampling &s) {
  sampling = s;
  for (AttentionTier &t : tiers)
    t.graphReady = false; // the captured steps launched the old picker
}

Status EngineShard::prefill(const std::vector<int32_t> &ids, int64_t from, int32_t &next) {
  const int64_t T = static_cast<int64_t>(ids.size()) - from;
  Status st = Status::ok();
  if (T != prefillActs.cap)
    if (!(st = allocActs(prefillActs, T)))
      return st;
  const int32_t start = static_cast<int32_t>(from);
  if (!(st = stream.copyToDevice(prefillActs.ids, ids.data() + from, T * 4)) ||
      !(st = stream.copyToDevice(pos, &start, 4)))
    return st;
  position = from;
  deviceToken = -1; // unknown until the pick is read back
  if (!(st = forward(prefillActs, T, prefillActs.ids)) ||
      !(st = stream.copyToHost(&next, token, 4)) || !(st = stream.synchronize()))
    return st;
  deviceToken = next;
  position = from + T;
  singleStale = false;
  return Status::ok();
}

Status EngineShard::decode(int32_t fed, int32_t &next) {
  Status st = Status::ok();
  if (singleStale) {
    const int32_t p = static_cast<int32_t>(position);
    if (!(st = stream.copyToDevice(pos, &p, 4)))
      return st;
    deviceToken = -1;
    singleStale = false;
  }
  // The graph reads `token`, where the last step left its pick; only a
  // different token from the caller (teacher forcing, an API user's own
  // choice) is uploaded.
  if (fed != deviceToken) {
    if (!(st = stream.copyToDevice(token, &fed, 4)))
      return st;
    deviceToken = fed;
  }
  AttentionTier &A = tiers[pickTier(position)];
  if (opts.useGraph && !A.graphReady) {
    if (!(st = stream.beginCapture()))
      return st;
    Status fs = forward(decodeActs, 1, token);
    Status es = stream.endCapture(A.graph);
    if (!fs)
      return fs;
    if (!es)
      return es;
    A.graphReady = true;
  }
  if (A.graphReady)
    st = A.graph.replay(stream);
  else
    st = forward(decodeActs, 1, token);
  deviceToken = -1;
  if (!st || !(st = stream.copyToHost(&next, token, 4)) ||
      !(st = stream.synchronize()))
    return st;
  deviceToken = next;
  ++position;
  last = &decodeActs;
  return Status::ok();
}

Status EngineShard::lastLogits(std::vector<float> &logits) {
  return readLogits(last->logits, 0, logits);
}

Status EngineShard::readLogits(const Buffer &b, int64_t offset, std::vector<float> &logits) {
  std::vector<uint16_t> raw(cfg.vocabSize);
  Status st = stream.copyToHost(raw.data(), b, raw.size() * 2, offset * 2);
  if (!st || !(st = stream.synchronize()))
    return st;
  logits.resize(raw.size());
  for (size_t i = 0; i < raw.size(); ++i)
    logits[i] = dt == DType::BF16 ? fromBF16(raw[i]) : fromHalf(raw[i]);
  return Status::ok();
}

Status EngineShard::profileDecode(std::vector<KernelTime> *times) {
  int32_t pos32 = static_cast<int32_t>(position), tok = 0;
  Status st = stream.copyToHost(&tok, token, 4);
  if (!st || !(st = stream.synchronize()))
    return st;
  profile = times;
  st = forward(decodeActs, 1, token);
  profile = nullptr;
  if (!st)
    return st;
  // Undo the step: the position and the token it consumed.
  if (!(st = stream.copyToDevice(pos, &pos32, 4)) ||
      !(st = stream.copyToDevice(token, &tok, 4)))
    return st;
  return stream.synchronize();
}

Status EngineShard::copyBandwidth(double &bytesPerSecond) {
  bytesPerSecond = 0;
  const int64_t bytes = int64_t(256) << 20;
  Buffer a, b;
  if (!device->allocate(DType::I8, bytes, stream, a) ||
      !device->allocate(DType::I8, bytes, stream, b))
    return Status::ok(); // no room: no figure
  Status st = stream.fill(a, 1);
  if (!st || !(st = stream.copy(b, a, bytes)) || !(st = stream.synchronize()))
    return st;
  std::vector<double> ms;
  for (int i = 0; i < 9; ++i) {
    Event e0, e1;
    float t = 0;
    if (!(st = stream.record(e0)) || !(st = stream.copy(b, a, bytes)) ||
        !(st = stream.record(e1)) || !(st = e1.wait()) ||
        !(st = e1.elapsedMs(e0, t)))
      return st;
    ms.push_back(t);
  }
  std::sort(ms.begin(), ms.end());
  if (ms[4] > 0)
    bytesPerSecond = 2.0 * bytes / (ms[4] * 1e-3);
  return Status::ok();
}

} // namespace qwen3

//===- Collective.cpp - communicators: argument checks, kinds ------------===//

#include "CollectiveImpl.h"

#include <set>
#include <string>

using namespace tile_runtime;

Status Communicator::create(const std::vector<Device *> &devices,
                            std::vector<std::unique_ptr<Communicator>> &comms) {
  comms.clear();
  if (devices.empty())
    return Status::error("a communicator needs at least one device");
  std::vector<DeviceImpl *> impls;
  std::set<DeviceImpl *> distinct;
  for (Device *d : devices) {
    if (!d)
      return Status::error("a communicator's device is missing");
    impls.push_back(d->impl.get());
    distinct.insert(d->impl.get());
  }
  if (distinct.size() != impls.size())
    return Status::error("a communicator needs one rank per device (a device "
                         "appears twice)");
  const bool cuda = impls[0]->isCuda();
  for (DeviceImpl *d : impls)
    if (d->isCuda() != cuda)
      return Status::error("a communicator's devices are all CUDA or all CPU");
  std::vector<std::unique_ptr<CommunicatorImpl>> kinds;
  if (Status s = cuda ? createNcclCommunicators(impls, kinds)
                      : createHostCommunicators(impls, kinds);
      !s)
    return s;
  for (size_t r = 0; r < kinds.size(); ++r) {
    kinds[r]->rank = static_cast<int>(r);
    kinds[r]->size = static_cast<int>(kinds.size());
    kinds[r]->device = impls[r];
    kinds[r]->deviceOwner = devices[r]->impl;
    std::unique_ptr<Communicator> c(new Communicator());
    c->impl = std::move(kinds[r]);
    comms.push_back(std::move(c));
  }
  return Status::ok();
}

Communicator::~Communicator() = default;
int Communicator::rank() const { return impl->rank; }
int Communicator::size() const { return impl->size; }
void Communicator::abort() { impl->abort(); }

Status Communicator::queue(Stream &stream, const Buffer &buffer, int64_t offset, int64_t count,
                           int64_t written, const char *what,
                           const std::function<Status(StreamImpl &, uint64_t, DType)> &op) {
  const DType t = buffer.dtype();
  if (t != DType::BF16 && t != DType::F16 && t != DType::F32)
    return Status::error(std::string(what) + ": the buffer is " + std::string(toString(t)) +
                         " (collectives take bf16, f16 or f32)");
  if (offset < 0 || count < 0)
    return Status::error(std::string(what) + ": negative offset or count");
  const size_t elt = size_t(sizeInBytes(t));
  return stream.queueCollective(
      buffer, size_t(offset) * elt, size_t(written) * elt, what,
      [&](StreamImpl &s, uint64_t at) {
        if (s.device != impl->device)
          return Status::error(std::string(what) +
                               ": the stream belongs to another device than the "
                               "communicator's rank");
        return op(s, at, t);
      });
}

Status Communicator::allReduceSum(Stream &stream, const Buffer &buffer,
                                  int64_t offset, int64_t count) {
  return queue(stream, buffer, offset, count, count, "allReduceSum",
               [&](StreamImpl &s, uint64_t at, DType t) {
                 return impl->allReduceSum(s, at, count, t);
               });
}

Status Communicator::allGather(Stream &stream, const Buffer &buffer,
                               int64_t offset, int64_t count) {
  return queue(stream, buffer, offset, count, count * impl->size, "allGather",
               [&](StreamImpl &s, uint64_t at, DType t) {
                 return impl->allGather(s, at, count, t);
               });
}

Status Communicator::createPeerBuffers(const std::vector<Communicator *> &comms, DType dtype,
                                       int64_t countPerRank, PeerBuffers &out) {
  out = PeerBuffers();
  if (comms.empty())
    return Status::error("peer buffers need a group's communicators");
  for (size_t r = 0; r < comms.size(); ++r)
    if (!comms[r] || comms[r]->impl->rank != int(r) ||
        comms[r]->impl->size != int(comms.size()))
      return Status::error("peer buffers need every communicator of one group, in rank order");
  if (countPerRank <= 0)
    return Status::error("peer buffers need at least one element per rank, got " +
                         std::to_string(countPerRank));
  const size_t elt = size_t(sizeInBytes(dtype));
  std::vector<DeviceImpl *> devices;
  for (Communicator *c : comms)
    devices.push_back(c->impl->device);
  PeerRegion region;
  if (Status s = devices[0]->isCuda()
                     ? createCudaPeerRegion(devices, size_t(countPerRank) * elt, region)
                     : createHostPeerRegion(devices.size(), size_t(countPerRank) * elt, region);
      !s)
    return s;
  out.stride = int64_t(region.partBytes / elt);
  for (Communicator *c : comms) {
    auto storage = std::make_shared<BufferStorage>();
    storage->device = c->impl->deviceOwner;
    storage->address = region.base;
    storage->bytes = region.partBytes * comms.size();
    storage->dtype = dtype;
    storage->count = int64_t(storage->bytes / elt);
    storage->peerRegion = region.region;
    storage->peerParts = int(comms.size());
    Buffer b;
    b.storage = std::move(storage);
    out.views.push_back(std::move(b));
  }
  return Status::ok();
}

Status Communicator::flagSlot(const Stream &stream, const Buffer &flags, int64_t stride,
                              int64_t slot, const char *what, uint64_t &slotAddress) const {
  const std::string w(what);
  if (!stream.impl || stream.impl->device != impl->device)
    return Status::error(w + ": the stream is not this rank's");
  if (!flags.valid() || !flags.shared()->peerRegion || flags.shared()->peerParts != impl->size ||
      flags.shared()->device.get() != impl->device)
    return Status::error(w + ": the flags are not this rank's view of the group's peer buffers");
  if (flags.dtype() != DType::I32)
    return Status::error(w + ": the flags are " + std::string(toString(flags.dtype())) +
                         ", not i32");
  const int64_t n = impl->size, width = flagSlotWidth();
  if (stride <= 0 || stride * n != flags.count())
    return Status::error(w + ": stride " + std::to_string(stride) +
                         " is not the flags' part stride");
  if (slot < 0 || (slot + 1) * width > stride)
    return Status::error(w + ": slot " + std::to_string(slot) + " is outside the flags' parts (" +
                         std::to_string(stride / width) + " slots)");
  slotAddress = flags.address() + uint64_t(slot * width) * 4;
  return Status::ok();
}

/// This rank's flag of `slot` in every peer's part (what it sets), and
/// every peer's in its own (what it waits on).
static void flagAddresses(uint64_t slotAddress, int64_t stride, int rank, int size,
                          std::vector<uint64_t> &theirs, std::vector<uint64_t> &mine) {
  for (int q = 0; q < size; ++q)
    if (q != rank) {
      theirs.push_back(slotAddress + uint64_t(q * stride + rank) * 4);
      mine.push_back(slotAddress + uint64_t(rank * stride + q) * 4);
    }
}

Status Communicator::signalPeers(Stream &stream, const Buffer &flags, int64_t stride,
                                 int64_t slot) {
  uint64_t at = 0;
  if (Status s = flagSlot(stream, flags, stride, slot, "signalPeers", at); !s)
    return s;
  std::vector<uint64_t> theirs, mine;
  flagAddresses(at, stride, impl->rank, impl->size, theirs, mine);
  if (stream.impl->isCapturing)
    stream.impl->capturedBuffers.push_back(flags.shared());
  return impl->setFlags(*stream.impl, theirs);
}

Status Communicator::waitPeers(Stream &stream, const Buffer &flags, int64_t stride,
                               int64_t slot) {
  uint64_t at = 0;
  if (Status s = flagSlot(stream, flags, stride, slot, "waitPeers", at); !s)
    return s;
  std::vector<uint64_t> theirs, mine;
  flagAddresses(at, stride, impl->rank, impl->size, theirs, mine);
  if (stream.impl->isCapturing)
    stream.impl->capturedBuffers.push_back(flags.shared());
  return impl->waitFlags(*stream.impl, mine, flags.shared()->peerRegion);
}

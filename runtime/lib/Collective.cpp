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

//===- Files.cpp - reading and writing files that may be hostile ----------===//

#include "tile/runtime/Files.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace tile_runtime;

Status tile_runtime::openRegularFile(const std::string &path, int &fd, uint64_t &size,
                                     uint64_t maxBytes) {
  // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a
  // writer; fstat then refuses it.
  fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0)
    return Status::error("cannot read '" + path + "': " + std::strerror(errno));
  struct stat st;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    fd = -1;
    return Status::error("cannot read '" + path + "': not a regular file");
  }
  if (static_cast<uint64_t>(st.st_size) > maxBytes) {
    ::close(fd);
    fd = -1;
    return Status::error("cannot read '" + path + "': " + std::to_string(st.st_size) +
                         " bytes, more than the " + std::to_string(maxBytes) +
                         " this reader takes");
  }
  // Regular files never block; reads are plain from here on.
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  size = static_cast<uint64_t>(st.st_size);
  return Status::ok();
}

Status tile_runtime::readFile(const std::string &path, std::string &bytes) {
  int fd = -1;
  uint64_t size = 0;
  if (Status st = openRegularFile(path, fd, size); !st)
    return st;
  std::string out(size, '\0');
  uint64_t at = 0;
  while (at < size) {
    ssize_t n = ::read(fd, out.data() + at, size - at);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      const int e = n < 0 ? errno : 0;
      ::close(fd);
      return Status::error("cannot read '" + path + "': " +
                           (e ? std::strerror(e) : "the file shrank while it was read"));
    }
    at += static_cast<uint64_t>(n);
  }
  ::close(fd);
  bytes = std::move(out);
  return Status::ok();
}

Status tile_runtime::writeFileAtomically(const std::string &path, const std::string &bytes) {
  std::string tmp = path + ".tmp-XXXXXX";
  int fd = ::mkstemp(tmp.data());
  if (fd < 0)
    return Status::error("cannot write '" + path + "': " + std::strerror(errno));
  uint64_t at = 0;
  int err = 0;
  while (at < bytes.size()) {
    ssize_t n = ::write(fd, bytes.data() + at, bytes.size() - at);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      err = n < 0 ? errno : ENOSPC;
      break;
    }
    at += static_cast<uint64_t>(n);
  }
  if (!err && ::fsync(fd) != 0 && errno != EINVAL)
    err = errno;
  if (::close(fd) != 0 && !err)
    err = errno;
  if (!err && ::chmod(tmp.c_str(), 0644) != 0)
    err = errno;
  if (!err && ::rename(tmp.c_str(), path.c_str()) != 0)
    err = errno;
  if (err) {
    ::unlink(tmp.c_str());
    return Status::error("cannot write '" + path + "': " + std::strerror(err));
  }
  return Status::ok();
}

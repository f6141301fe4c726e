//===- ToolFiles.cpp - the tools' inputs and outputs ----------------------===//

#include "tile/Support/ToolFiles.h"

#include "tile/runtime/Files.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <set>
#include <sys/stat.h>
#include <unistd.h>

using namespace llvm;

namespace tile {

Expected<std::unique_ptr<MemoryBuffer>> openToolInput(StringRef path) {
  auto cannot = [&](const Twine &why) {
    return createStringError(inconvertibleErrorCode(), "cannot read '" + path + "': " + why);
  };
  if (path == "-") {
    auto buffer = MemoryBuffer::getSTDIN();
    if (!buffer)
      return cannot(buffer.getError().message());
    return std::move(*buffer);
  }
  // The runtime's check: a regular file of bounded size, refused before
  // any read (a FIFO neither blocks nor a device streams forever).
  int fd = -1;
  uint64_t size = 0;
  if (tile_runtime::Status st =
          tile_runtime::openRegularFile(path.str(), fd, size, kMaxToolInputBytes);
      !st)
    return createStringError(inconvertibleErrorCode(), st.message());
  auto buffer = MemoryBuffer::getOpenFile(sys::fs::convertFDToNativeFile(fd), path, size,
                                          /*RequiresNullTerminator=*/true);
  ::close(fd);
  if (!buffer)
    return cannot(buffer.getError().message());
  return std::move(*buffer);
}

Error checkMlirNesting(const MemoryBuffer &buffer) {
  StringRef text = buffer.getBuffer();
  unsigned depth = 0, line = 1;
  size_t lineStart = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\n') {
      ++line;
      lineStart = i + 1;
    } else if (c == '"') { // a string: to its unescaped close quote
      for (++i; i < text.size() && text[i] != '"'; ++i)
        if (text[i] == '\\')
          ++i;
    } else if (c == '/' && i + 1 < text.size() && text[i + 1] == '/') {
      while (i + 1 < text.size() && text[i + 1] != '\n')
        ++i;
    } else if (c == '{' || c == '(' || c == '[' || c == '<') {
      if (++depth > kMaxMlirNesting)
        return createStringError(inconvertibleErrorCode(),
                                 buffer.getBufferIdentifier() + ":" + Twine(line) + ":" +
                                     Twine(i - lineStart + 1) + ": nested more than " +
                                     Twine(kMaxMlirNesting) +
                                     " deep (regions, attributes or types)");
    } else if ((c == '}' || c == ')' || c == ']' || c == '>') && depth > 0) {
      // '->' is an arrow, not a closing bracket.
      if (!(c == '>' && i > 0 && text[i - 1] == '-'))
        --depth;
    }
  }
  return Error::success();
}

void ToolOutputs::add(std::string path, std::string bytes) {
  outputs.emplace_back(std::move(path), std::move(bytes));
}

Error ToolOutputs::commit() {
  auto cannot = [](StringRef path, const Twine &why) {
    return createStringError(inconvertibleErrorCode(),
                             "cannot write '" + (path == "-" ? "stdout" : path) + "': " + why);
  };
  std::set<std::string> seen;
  for (const auto &[path, bytes] : outputs)
    if (path != "-" && !seen.insert(path).second)
      return cannot(path, "two outputs of this run are the same file");
  // Regular files go to temporaries first; the rest are written in place.
  std::vector<std::pair<std::string, std::string>> temps; // temp, target
  auto dropTemps = [&] {
    for (const auto &t : temps)
      sys::fs::remove(t.first);
  };
  for (const auto &[path, bytes] : outputs) {
    if (path == "-") {
      outs() << bytes;
      outs().flush();
      if (outs().has_error()) {
        std::error_code ec = outs().error();
        outs().clear_error();
        dropTemps();
        return cannot(path, ec.message());
      }
      continue;
    }
    sys::fs::file_status status;
    if (!sys::fs::status(path, status) && sys::fs::exists(status) &&
        status.type() != sys::fs::file_type::regular_file) {
      if (status.type() == sys::fs::file_type::directory_file) {
        dropTemps();
        return cannot(path, "is a directory");
      }
      std::error_code ec;
      raw_fd_ostream os(path, ec);
      if (!ec) {
        os << bytes;
        os.flush();
        ec = os.error();
        os.clear_error();
      }
      if (ec) {
        dropTemps();
        return cannot(path, ec.message());
      }
      continue;
    }
    SmallString<256> temp;
    int fd = -1;
    if (std::error_code ec =
            sys::fs::createUniqueFile(path + ".tmp-%%%%%%", fd, temp, sys::fs::OF_None)) {
      dropTemps();
      return cannot(path, ec.message());
    }
    temps.push_back({std::string(temp), path});
    raw_fd_ostream os(fd, /*shouldClose=*/true);
    os << bytes;
    os.close();
    if (os.has_error()) {
      std::error_code ec = os.error();
      os.clear_error();
      dropTemps();
      return cannot(path, ec.message());
    }
  }
  // Temporaries are 0600; outputs get the usual 0666 less the umask.
  const mode_t mask = ::umask(0);
  ::umask(mask);
  for (const auto &[temp, path] : temps) {
    ::chmod(temp.c_str(), 0666 & ~mask);
    if (std::error_code ec = sys::fs::rename(temp, path)) {
      dropTemps();
      return cannot(path, ec.message());
    }
  }
  return Error::success();
}

} // namespace tile

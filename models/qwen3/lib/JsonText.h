//===- JsonText.h - a JSON value as error messages quote it -----*- C++ -*-===//
//
// An error message quotes the value it refuses, but only a short scalar: a
// string or number is shown (cut to 64 characters), an array or object is
// named, never printed back (a value nested a million deep would recurse
// through the printer, and a long one would bury the message).
//
//===----------------------------------------------------------------------===//

#ifndef QWEN3_LIB_JSONTEXT_H
#define QWEN3_LIB_JSONTEXT_H

#include <nlohmann/json.hpp>

#include <string>

namespace qwen3 {

inline std::string describeJson(const nlohmann::json &v) {
  if (v.is_array())
    return "(an array)";
  if (v.is_object())
    return "(an object)";
  std::string text = v.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  if (text.size() > 64)
    text = text.substr(0, 61) + "...";
  return text;
}

} // namespace qwen3

#endif // QWEN3_LIB_JSONTEXT_H

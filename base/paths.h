#pragma once

// Paths as text, without asking the file system.
#include <string>

namespace corral {

// Lexically normal absolute path: no trailing '/', no "." or "..".
std::string NormalPath(const std::string& path);

// Whether `path` is `dir` or inside it (both normal).
bool IsWithin(const std::string& path, const std::string& dir);

}  // namespace corral

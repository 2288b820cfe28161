// Reading a request's target and matching rules' parts: private to
// netfilter/requests/.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "base/strings.h"
#include "policy/network/network.h"

namespace corral::netfilter::requests {

// Quoted (for messages) and AsciiLower: base's.
using corral::AsciiLower;
using corral::Quoted;
bool EqualsIgnoringCase(std::string_view a, std::string_view b);

// An RFC 9110 token (a method, a header's name): policy/'s.
using policy::IsHttpToken;

// The path of an origin-form target as a server resolves it: %-escapes
// decoded, dot segments and doubled slashes resolved, empty segments gone.
// A target two servers could read differently (an escaped '/', '\\', '%',
// '?' or '#', a control or non-ASCII byte, '..' above the root, a ';' path
// parameter, dot segments that resolve differently when doubled slashes are
// merged first) is an error: refused, never guessed.
Result<std::vector<std::string>> ResolvePath(std::string_view target);

// The query of a target ("" when none), and whether it has a parameter
// named `name` (its name %-decoded, compared without regard to case).
std::string_view QueryOf(std::string_view target);
bool HasQueryParameter(std::string_view query, std::string_view name);

// Whether a rule's path segments match a resolved path. `**` matches any
// number of whole segments, `*` any characters within one.
bool PathMatches(const std::vector<std::string>& pattern, const std::vector<std::string>& path,
                 bool ignore_case);

}  // namespace corral::netfilter::requests

// Text helpers the forge's readers share: base's, named here for the room.
#pragma once

#include "base/strings.h"

namespace corral::netfilter::forge {

using corral::AsciiLower;
using corral::Quoted;

}  // namespace corral::netfilter::forge

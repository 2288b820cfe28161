// A name for the box's user in the image's /etc/passwd and /etc/group.
// The box runs as the host's uid:gid; when the image has no line for that
// uid, ssh ("No user exists for uid") and node's os.userInfo() fail. Only
// rootless Podman (keep-id) adds the line itself. Private to launcher/.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "base/base.h"
#include "launcher/engine.h"
#include "launcher/launcher.h"

namespace corral::launcher {

// `passwd` with a line for uid:gid added (named corral, or corral<uid> when
// corral is taken), or nullopt when a line already has that uid.
std::optional<std::string> WithPasswdLine(const std::string& passwd, std::uint32_t uid,
                                          std::uint32_t gid, const std::string& home);
// `group` with a line for gid added, or nullopt when one has it.
std::optional<std::string> WithGroupLine(const std::string& group, std::uint32_t gid);

// The contents of the first member of a tar stream when it is a regular
// file; nullopt otherwise.
std::optional<std::string> FirstFileInTar(std::string_view tar);

// uid not 0, except under rootless Podman: reads the image's /etc/passwd and /etc/group and, for
// each that lacks the box's user, writes a copy with the line added to the
// session folder and mounts it read-only over the original. A failure to
// read is a warning: the box still starts, as before.
Result<void> NameTheBoxUser(Engine& engine, SessionPlan& plan);

}  // namespace corral::launcher

// A name for the box's user in the image's /etc/passwd and /etc/group.
// The box runs as the host's uid:gid; when the image has no line for that
// uid, ssh ("No user exists for uid") and node's os.userInfo() fail. Only
// rootless Podman (keep-id) adds the line itself. Private to launcher/.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

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

// A tar holding one folder entry per path (its leading '/' dropped), owned
// by uid:gid with mode 0755, then the end-of-archive blocks. nullopt when a
// path does not fit a ustar header (over 255 bytes) or an id is too large.
std::optional<std::string> OwnedFoldersTar(const std::vector<std::string>& paths,
                                           std::uint32_t uid, std::uint32_t gid,
                                           std::int64_t mtime);

// Docker, uid not 0: Docker makes a new named volume's folder root's (or
// gives it the owner of that path in the image), so the box's user could not
// write to its HOME or node_modules. Gives each volume's folder to uid:gid
// (its contents are left as they are). Podman does this itself. A failure
// is a warning: the box still starts.
Result<void> GiveVolumesToTheBoxUser(Engine& engine, const SessionPlan& plan);

// uid not 0, except under rootless Podman: reads the image's /etc/passwd and /etc/group and, for
// each that lacks the box's user, writes a copy with the line added to the
// session folder and mounts it read-only over the original. A failure to
// read is a warning: the box still starts, as before.
Result<void> NameTheBoxUser(Engine& engine, SessionPlan& plan);

}  // namespace corral::launcher

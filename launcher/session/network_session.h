// Private to launcher/session/: a boxed session on an engine that cannot see
// this machine (the network mode, docs/network-mode.md), for session.cc.
#pragma once

#include <future>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "launcher/network_mode/network_mode.h"
#include "launcher/session/session.h"

namespace corral::launcher {

// The network mode's sidecar holds login variables, not login files: it
// could refresh a token but not keep it in this machine's file. Each login
// file is copied into the box as it is, and the start line says why.
void PassLoginFilesAsTheyAre(SessionPlan& plan);
struct HostPaths {
  std::string shim, shell, ca_bundle;  // PlanInput's
};
// What the sidecar's proxy gets that a local proxy reads on this machine:
// the logins' values as the local proxy's (`logins`), network.upstream_ca_file
// ("" when unset: the sidecar checks login hosts against the host's bundle
// the corral image was built with), and the policy's other network lists.
struct SidecarInput {
  LoginSource logins;
  std::string upstream_ca_file;
  policy::NetworkPolicy network;
};
// What the sidecar is made from: its image, and the session's files.
struct SidecarMaterials {
  std::string image;
  network_mode::SessionFiles files;
};

class NetworkSession {
 public:
  // After the session folder is prepared and the box user named: the
  // sidecar's image on the engine (built when this build has none there),
  // the session volume, the sidecar, the oracle channel; `plan` becomes the
  // agent's plan for this mode. On an error, what was made goes again.
  // With plan.logins, the sidecar holds them (its create request's
  // environment) and the box's bundle has the session CA that corral makes
  // for it; an error, before anything is made, when that cannot be.
  // `review` (review mode on an engine elsewhere): the project is copied in
  // whatever the engine sees, and its changes go into review mode's copy.
  static Result<std::unique_ptr<NetworkSession>> BringUp(Engine& engine, SessionPlan& plan,
                                                         const HostPaths& host,
                                                         const SidecarInput& sidecar = {},
                                                         const network_mode::ReviewInto& review = {});
  // What the reaper removes when corral is killed.
  static std::vector<ApiCall> TearDownCalls(const std::string& session_id);
  // Once the agent's box is started: returns when the sidecar runs and the
  // relay listens (the shim in the box waits for it), or why not.
  Result<void> AwaitRelay();
  // Before the agent's box starts: returns once the sidecar is made and the
  // session's files and the project are in their volumes, or why not.
  Result<void> AwaitFilled();
  // Whether the project is bound or copied, and what that means: a start line.
  const std::string& ProjectLine() const { return project_line_; }
  // A new deny list copy for the session volume (sent on a thread of its own).
  void DenyListChanged(const std::string& text);
  // After the box: the channel closed, the proxy's decisions into `record`.
  void End(SessionRecord& record);
  ~NetworkSession();  // removes the sidecar, the network and the volume

  NetworkSession(const NetworkSession&) = delete;
  NetworkSession& operator=(const NetworkSession&) = delete;

 private:
  NetworkSession(Engine& engine, const std::string& session_id);
  Engine& engine_;
  network_mode::Layout layout_;
  std::string box_;  // the agent's container, by name
  bool up_ = false;
  std::optional<network_mode::CopyManifest> manifest_;  // the project was copied in
  network_mode::ReviewInto review_;  // where its changes go in review mode
  bool copied_back_ = false, torn_down_ = false;
  void CopyBack();  // once: the box's changes to the project, home
  void TearDown();  // once: the box, the sidecar, the network, the session volume
  Result<void> RemoveBox();
  // BringUp's steps: the volumes (the project's prepared when it is copied);
  // the sidecar made and both volumes filled, on threads of their own; the
  // relay connected once the sidecar runs and the copy landed.
  Result<std::string> MakeVolumes(const SessionPlan& plan, const std::string& image, bool visible,
                                  std::optional<network_mode::CopyIn>& copy);
  Result<void> StartFilling(const SessionPlan& plan, SidecarMaterials materials,
                            network_mode::SidecarProxy proxy,
                            std::optional<network_mode::CopyIn> copy, bool one_put);
  Result<void> ConnectRelay(const std::shared_future<Result<void>>& made,
                            const std::shared_future<Result<void>>& filled, bool started_first,
                            bool one_put, const std::string& oracle_socket);
  std::once_flag box_removal_;
  Result<void> box_removed_ = Ok();
  std::unique_ptr<network_mode::OracleChannel> channel_;  // set by relay_'s thread
  std::future<Result<void>> relay_;  // the sidecar's start and the relay's stream
  // The sidecar made with the session's files in its volume; the project
  // in its own (when copied).
  std::shared_future<Result<void>> sidecar_made_, project_filled_;
  Result<void> relay_result_ = Ok();
  std::string project_line_;
  std::unique_ptr<network_mode::DenyListSender> deny_list_;
};

}  // namespace corral::launcher

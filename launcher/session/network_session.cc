// A boxed session on an engine that cannot see this machine (the network
// mode, docs/network-mode.md): the session folder's files go into a volume,
// the proxy runs in a sidecar, and the oracle's questions come up a stream
// that corral holds to the engine. Everything else is the local session's.
#include <algorithm>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <future>
#include <sstream>

#include "base/report.h"
#include "launcher/agents/agents.h"
#include "launcher/network_mode/network_mode.h"
#include "launcher/plan/plan.h"
#include "launcher/session/network_session.h"
#include "launcher/session/session.h"

namespace corral::launcher {
namespace {

// None for a file that is not there; an error for one that cannot be read.
Result<std::optional<std::string>> ReadIfThere(const std::string& path) {
  auto text = ReadWholeFile(path);
  if (!text) {
    if (IsMissing(text.error())) return std::optional<std::string>();
    return text.error();
  }
  return std::optional<std::string>(std::move(*text));
}

Result<network_mode::SessionFiles> FilesOf(const SessionPlan& plan, const HostPaths& host,
                                           const std::string& session_ca_pem) {
  network_mode::SessionFiles files;
  auto shim = ProgramWithoutDebugInfo(host.shim);
  if (!shim) return shim.error();
  auto shell = ProgramWithoutDebugInfo(host.shell);
  if (!shell) return shell.error();
  auto seccomp = ReadWholeFile(plan.seccomp_path);
  if (!seccomp) return seccomp.error();
  auto deny_list = ReadWholeFile(plan.session_dir + "/" + kDenyListFile);
  if (!deny_list) return deny_list.error();
  files.shim = std::move(*shim);
  files.shell = std::move(*shell);
  files.seccomp = std::move(*seccomp);
  files.deny_list = std::move(*deny_list);
  auto passwd = ReadIfThere(plan.session_dir + "/passwd");
  if (!passwd) return passwd.error();
  auto group = ReadIfThere(plan.session_dir + "/group");
  if (!group) return group.error();
  files.passwd = std::move(*passwd);
  files.group = std::move(*group);
  if (!session_ca_pem.empty()) {
    // The sidecar's session CA, which the box must trust for login hosts.
    files.ca_bundle = BoxCaBundleText(plan, host.ca_bundle, session_ca_pem);
  } else if (!host.ca_bundle.empty()) {
    auto ca_bundle = ReadIfThere(host.ca_bundle);
    if (!ca_bundle) return ca_bundle.error();
    files.ca_bundle = std::move(*ca_bundle);
  }
  files.owner = plan.uid;
  return files;
}

// The project's bind becomes its volume; a bind of a path inside it (the
// read-only .git/config) is bound from the volume's folder on the engine's
// host, as the session folder's files are.
void UseProjectVolume(SessionPlan& plan, const std::string& volume, const std::string& on_engine) {
  const std::string inside = plan.project_dir + "/";
  for (Mount& m : plan.mounts) {
    if (m.kind != MountKind::kBind) continue;
    if (m.source == plan.project_dir) {
      m.kind = MountKind::kVolume;
      m.source = volume;
      m.options = {kNoCopy};
      m.why += " (copied into a volume: the engine cannot see this folder)";
      OwnVolume(plan, m.target);
    } else if (m.source.rfind(inside, 0) == 0) {
      m.source = on_engine + "/" + m.source.substr(inside.size());
      m.options = {"rslave", kLateSource};  // the copy goes in while the box is made
    }
  }
}

}  // namespace

bool WantsNetworkMode(const Engine& engine, const std::function<const char*(const char*)>& getenv) {
  if (engine.remote()) return true;
  const char* forced = getenv ? getenv("CORRAL_ENGINE_MODE") : nullptr;
  return forced != nullptr && std::string(forced) == "network";
}

void PassLoginFilesAsTheyAre(SessionPlan& plan) {
  if (plan.login_files.empty()) return;
  auto from_file = [](const BoxLogin& login) { return !login.file.empty(); };
  for (const BoxLogin& login : plan.logins) {
    if (from_file(login) && std::find(plan.logins_passed.begin(), plan.logins_passed.end(),
                                      login.variable) == plan.logins_passed.end()) {
      plan.logins_passed.push_back(login.variable);
    }
  }
  plan.logins.erase(std::remove_if(plan.logins.begin(), plan.logins.end(), from_file),
                    plan.logins.end());
  plan.login_files.clear();
  plan.box_login_files.clear();
  plan.logins_passed_why = "the network mode's proxy sidecar cannot keep a refreshed token in "
                           "this machine's file";
}

namespace {

// The sidecar's proxy settings, and the session CA made for it, before
// anything is made on the engine: a session whose sidecar cannot hold its
// logins does not start.
Result<network_mode::SidecarProxy> SidecarProxyFor(const SessionPlan& plan,
                                                   const SidecarInput& input) {
  network_mode::SidecarProxy proxy;
  proxy.denied_domains = input.network.denied_domains;
  proxy.allow_addresses = input.network.allow_addresses;
  if (!input.network.hosts_file.empty()) {
    auto text = ReadWholeFile(input.network.hosts_file);
    if (!text) return text.error().Context("network.hosts_file, for the proxy sidecar");
    std::istringstream lines(*text);
    for (std::string line; std::getline(lines, line);) {
      line = line.substr(0, line.find('#'));
      if (line.find_first_not_of(" \t\r") != std::string::npos) proxy.hosts_lines.push_back(line);
    }
  }
  if (plan.logins.empty() && plan.forge.empty()) return proxy;
  auto held = ProxyLogins(plan, input.logins);
  if (!held) return held.error();
  std::string upstream;
  if (!input.upstream_ca_file.empty()) {
    auto text = ReadWholeFile(input.upstream_ca_file);
    if (!text) return text.error().Context("network.upstream_ca_file, for the proxy sidecar");
    upstream = std::move(*text);
  }
  auto logins = network_mode::MakeSidecarLogins(std::move(*held), upstream, ForgeConfig(plan.forge));
  if (!logins) return logins.error();
  proxy.logins = std::move(*logins);
  return proxy;
}

}  // namespace

namespace {

Result<SidecarMaterials> ImageAndFiles(Engine& engine, const SessionPlan& plan,
                                       const HostPaths& host, std::string session_ca_pem) {
  std::error_code ec;
  std::string self = std::filesystem::read_symlink("/proc/self/exe", ec).string();
  if (ec) return Error("cannot find corral's own program: " + ec.message());
  auto reading = std::async(std::launch::async, [&plan, &host, ca = std::move(session_ca_pem)] {
    return FilesOf(plan, host, ca);
  });
  auto image = EnsureCorralImage(engine, CORRAL_VERSION, self, host.ca_bundle, host.shim,
                                 host.shell);
  auto files = reading.get();
  if (!image) return image.error().Context("the proxy sidecar's image");
  if (!files) return files.error();
  return SidecarMaterials{std::move(*image), std::move(*files)};
}

// The project is bound only when the engine sees it at the same path
// (CORRAL_PROJECT_SHARED=1: a CI runner's build folder shared with its
// Docker-in-Docker service); a local engine does. Else (or with
// CORRAL_PROJECT_SHARED=0) it is copied into a volume of its own, and back
// at the end.
bool EngineSeesProject(const Engine& engine) {
  const char* shared = std::getenv("CORRAL_PROJECT_SHARED");
  return shared != nullptr && *shared != '\0' ? std::string(shared) == "1" : !engine.remote();
}

}  // namespace

Result<std::unique_ptr<NetworkSession>> NetworkSession::BringUp(Engine& engine, SessionPlan& plan,
                                                                const HostPaths& host,
                                                                const SidecarInput& sidecar,
                                                                const network_mode::ReviewInto& review) {
  auto proxy = SidecarProxyFor(plan, sidecar);
  if (!proxy) return proxy.error();
  std::unique_ptr<NetworkSession> session(new NetworkSession(engine, plan.session_id));
  session->box_ = plan.container_name;
  auto materials = ImageAndFiles(engine, plan, host, proxy->logins.ca_pem);
  if (!materials) return materials.error();
  // Review mode's overlay is already the project's mount, a volume of this
  // machine's engine: nothing is copied in or back.
  const bool overlay = std::any_of(plan.mounts.begin(), plan.mounts.end(), [&](const Mount& m) {
    return m.target == plan.project_dir && m.kind == MountKind::kVolume;
  });
  // Review mode on an engine elsewhere: never the project itself, even
  // where that engine sees it.
  session->review_ = review;
  const bool copied_for_review = !review.upper.empty();
  const bool visible = !copied_for_review && (overlay || EngineSeesProject(engine));
  std::optional<network_mode::CopyIn> copy;
  auto volume = session->MakeVolumes(plan, materials->image, visible, copy);
  if (!volume) return volume.error();
  std::string project_on_engine;
  if (copy) {
    project_on_engine = copy->manifest.mountpoint;
    UseProjectVolume(plan, session->layout_.project_volume, project_on_engine);
  }
  session->project_line_ =
      copied_for_review
          ? "project: " + plan.project_dir + " copied into the volume " +
                session->layout_.project_volume + " for review mode; at the end the box's "
                "changes come back as a branch, and the working tree is not written. If corral "
                "is killed first they stay in that volume: `corral stop " + plan.session_id +
                "` makes the branch"
      : overlay ? "project: " + plan.project_dir + " through review mode's overlay (the box's "
                  "writes go to corral's copy)"
                : network_mode::ProjectModeLine(session->layout_, plan.project_dir, !visible);
  auto agent = network_mode::AgentPlan(
      plan, session->layout_, *volume, [&](const std::string& source) {
        return visible || (!project_on_engine.empty() &&
                           source.rfind(project_on_engine, 0) == 0);
      });
  if (!agent) return agent.error();
  // On Docker the copier fills both volumes with one PUT (CopyIn::session_tar).
  const bool one_put = copy && !engine.podman();
  if (auto ok = session->StartFilling(plan, std::move(*materials), std::move(*proxy),
                                      std::move(copy), one_put);
      !ok) {
    return ok.error();
  }
  // Docker checks the box's binds from the volumes when it starts
  // (kLateSource), and it starts only once they are filled (AwaitFilled).
  // Podman checks them when the box is made, and puts the session's files
  // into the volume at the sidecar's first start (kSessionFillPath): there
  // the box waits for both.
  bool all_late = true;
  for (const Mount& m : agent->mounts) {
    if (HasOption(m, kLateSource) && !DockerLateBind(m)) all_late = false;
  }
  const bool started_first = engine.podman();
  if (started_first || !all_late) {
    if (auto ok = session->AwaitFilled(); !ok) return ok.error();
  }
  if (started_first) {
    if (auto ok = network_mode::StartSidecar(engine, session->layout_); !ok) {
      return ok.error().Context("set up the network mode");
    }
  }
  // The sidecar starts and the relay comes up while the agent's box is made
  // and started: the shim in it waits for the relay (kRelayWaitMs), and
  // RunBox waits for this before the box's output.
  session->relay_ = std::async(std::launch::async, [s = session.get(), started_first, one_put,
                                                    // their own copies, for this thread
                                                    made = session->sidecar_made_,
                                                    filled = session->project_filled_,
                                                    oracle = plan.session_dir + "/" +
                                                             kOracleSocket] {
    return s->ConnectRelay(made, filled, started_first, one_put, oracle);
  });
  session->deny_list_ = std::make_unique<network_mode::DenyListSender>(engine, session->layout_);
  plan = std::move(*agent);
  return session;
}

Result<std::string> NetworkSession::MakeVolumes(const SessionPlan& plan, const std::string& image,
                                                bool visible,
                                                std::optional<network_mode::CopyIn>& copy) {
  // The project is scanned and its manifest saved while the session volume
  // is made (the agent's plan names both volumes' folders).
  std::future<Result<network_mode::CopyIn>> preparing;
  if (!visible) {
    preparing = std::async(std::launch::async, [this, &plan, image] {
      return network_mode::PrepareCopyIn(engine_, layout_, plan.project_dir, image, plan.uid,
                                         plan.gid, review_);
    });
  }
  auto volume = network_mode::MakeSessionVolume(engine_, layout_);
  up_ = static_cast<bool>(volume);  // from here the destructor tears down
  if (preparing.valid()) {
    auto prepared = preparing.get();
    if (!prepared) return prepared.error();
    // Not landed yet: unless it lands, the session discards it (CopyBack).
    manifest_ = prepared->manifest;
    copy = std::move(*prepared);
  }
  if (!volume) return volume.error().Context("set up the network mode");
  return *volume;
}

Result<void> NetworkSession::StartFilling(const SessionPlan& plan, SidecarMaterials materials,
                                          network_mode::SidecarProxy proxy,
                                          std::optional<network_mode::CopyIn> copy,
                                          bool one_put) {
  if (one_put) {
    // The shim and the shell are in it already, from the corral image.
    auto tar = network_mode::SessionVolumeTar(materials.files, std::time(nullptr),
                                              network_mode::kCopierSessionMount,
                                              /*programs=*/false);
    if (!tar) return Error("the session's files do not fit a tar header");
    copy->session_tar = std::move(*tar);
  }
  sidecar_made_ =
      std::async(std::launch::async, [this, sidecar_plan = plan, materials = std::move(materials),
                                      fill = !one_put, proxy = std::move(proxy)]() -> Result<void> {
        auto made = network_mode::MakeSidecar(engine_, sidecar_plan, layout_, materials.files,
                                              materials.image, fill, proxy);
        if (!made) return made.error().Context("set up the network mode");
        return Ok();
      }).share();
  if (copy) {
    project_filled_ = std::async(std::launch::async, [this, copy = std::move(*copy)] {
                        return network_mode::FillCopyIn(engine_, layout_, copy);
                      }).share();
  }
  return Ok();
}

// The copy is read back while the sidecar starts, before the relay listens:
// the agent runs only on a copy that landed.
Result<void> NetworkSession::ConnectRelay(const std::shared_future<Result<void>>& made,
                                          const std::shared_future<Result<void>>& filled,
                                          bool started_first, bool one_put,
                                          const std::string& oracle_socket) {
  if (auto ok = made.get(); !ok) return ok.error();
  // The sidecar's sockets are in the relay volume: it starts, and the relay
  // in it, while the session volume may still be filling and the copy is
  // read back. The relay listens only once told (OracleChannel::Start),
  // after the read-back.
  auto relay = std::async(std::launch::async,
                          [this, started_first]() -> Result<std::unique_ptr<RawConnection>> {
                            if (!started_first) {
                              auto ok = network_mode::StartSidecar(engine_, layout_);
                              if (!ok) return ok.error();
                            }
                            return network_mode::OracleChannel::StartRelay(engine_, layout_);
                          });
  Result<void> checked = filled.valid() ? filled.get() : Ok();
  if (checked && manifest_) {
    checked = network_mode::CheckCopiedIn(engine_, layout_, *manifest_);
    if (checked) checked = network_mode::MarkLanded(*manifest_);
    // It holds the session volume, which the teardown removes while the
    // copy-back runs: the copy-back makes a copier of its own.
    if (checked && one_put) (void)engine_.Remove(layout_.copier);
  }
  auto stream = relay.get();
  if (!stream) return stream.error();
  if (!checked) {
    return checked.error().Context("copy the project into the volume " + layout_.project_volume);
  }
  auto channel = network_mode::OracleChannel::Start(std::move(*stream), oracle_socket);
  if (!channel) return channel.error();
  channel_ = std::move(*channel);
  return Ok();
}

Result<void> NetworkSession::AwaitFilled() {
  for (auto* step : {&sidecar_made_, &project_filled_}) {
    if (!step->valid()) continue;
    if (auto ok = step->get(); !ok) return ok.error();
  }
  return Ok();
}

Result<void> NetworkSession::AwaitRelay() {
  if (!relay_.valid()) return relay_result_;
  relay_result_ = relay_.get();
  return relay_result_;
}

NetworkSession::NetworkSession(Engine& engine, const std::string& session_id)
    : engine_(engine), layout_(network_mode::LayoutFor(session_id)) {}

std::vector<ApiCall> NetworkSession::TearDownCalls(const std::string& session_id) {
  return network_mode::TearDownCalls(network_mode::LayoutFor(session_id));
}

void NetworkSession::DenyListChanged(const std::string& text) {
  if (deny_list_) deny_list_->Send(text);
}

void NetworkSession::End(SessionRecord& record) {
  (void)AwaitRelay();  // the relay's thread is done with channel_
  deny_list_.reset();
  channel_.reset();
  if (!up_) return;
  // The box's work comes home while the proxy's log is read and the
  // sidecar, the network and the session volume go: they are independent.
  auto copy_back = std::async(std::launch::async, [this] { CopyBack(); });
  // The proxy's decisions, one JSON line each on the sidecar's stdout.
  if (auto log = engine_.Logs(layout_.sidecar, /*out=*/true, /*err=*/false)) {
    std::istringstream lines(*log);
    for (std::string line; std::getline(lines, line);) {
      if (!line.empty() && line.front() == '{') record.Network(line);
    }
  } else {
    report::Line("corral: " + log.error().message + " (the record lacks the proxy's decisions)");
  }
  TearDown();
  copy_back.get();
}

void NetworkSession::TearDown() {
  if (!up_ || torn_down_) return;
  torn_down_ = true;
  // The box first: the session volume cannot go while a container has it.
  // The sidecar and the rest go even when the box could not (the line names
  // the first failure).
  Result<void> ok = RemoveBox();
  Result<void> rest = network_mode::TearDown(engine_, layout_);
  if (ok) ok = std::move(rest);
  if (!ok) {
    report::Line("corral: " + ok.error().message + " (remove it with: corral stop " +
                 layout_.session_id + ")");
  }
}

void NetworkSession::CopyBack() {
  for (auto* step : {&sidecar_made_, &project_filled_}) {
    if (step->valid()) step->wait();  // nothing writes the volumes any more
  }
  if (manifest_ && !manifest_->landed) {
    // The agent never ran (it runs only on a copy that landed), and the
    // volume may lack what went in: nothing to bring home, and a copy-back
    // would read what is missing as deleted.
    (void)RemoveBox();
    if (auto gone = network_mode::DiscardCopyIn(engine_, layout_); !gone) {
      report::Line("corral: " + gone.error().message + " (corral stop " + layout_.session_id +
                   " removes it)");
    }
    manifest_.reset();
  }
  if (manifest_ && !copied_back_) {
    copied_back_ = true;
    // The box is gone first (after Ctrl-C it may still run): then its
    // work comes home.
    (void)RemoveBox();
    auto report = network_mode::CopyProjectBack(engine_, layout_, *manifest_);
    if (report) {
      std::string lines = network_mode::DescribeCopyBack(*report, layout_.session_id);
      if (!lines.empty() && lines.back() == '\n') lines.pop_back();
      if (!lines.empty()) report::Line(lines);
    } else {
      report::Line("corral: " + report.error().message + "; the box's work is kept in volume " +
                   layout_.project_volume + ": corral stop " + layout_.session_id +
                   " copies it back");
    }
  }
}

// Once, whichever of the copy-back and the teardown (side by side in End)
// asks first; the other waits for it.
Result<void> NetworkSession::RemoveBox() {
  std::call_once(box_removal_, [this] { box_removed_ = engine_.Remove(box_); });
  return box_removed_;
}

NetworkSession::~NetworkSession() {
  (void)AwaitRelay();
  deny_list_.reset();
  channel_.reset();
  CopyBack();  // a session that ended before its box: nothing changed, the volume goes
  TearDown();
}

}  // namespace corral::launcher

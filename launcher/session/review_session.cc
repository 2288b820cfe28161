// Review mode in a session: the overlay volume the box gets instead of the
// project, and the branch made once the box is gone (launcher/review/).
#include "launcher/session/session.h"

#include "base/report.h"
#include "launcher/network_mode/network_mode.h"
#include "launcher/plan/plan.h"

namespace corral::launcher {

bool WantsReview(const policy::Policy& policy, const RunOptions& options,
                 const std::string& project) {
  if (options.review) return true;
  // A `projects:` entry says yes or no for its project, before the list.
  if (auto entry = policy.projects.find(project); entry != policy.projects.end() &&
                                                  entry->second.review) {
    return *entry->second.review;
  }
  auto setting = policy.settings.find("review.projects");
  if (setting == policy.settings.end() || !setting->second.value.is_array()) return false;
  for (const auto& item : setting->second.value) {
    if (!item.is_string()) continue;
    std::string trimmed = item.get<std::string>();
    while (trimmed.size() > 1 && trimmed.back() == '/') trimmed.pop_back();
    if (trimmed == "*" || trimmed == project) return true;
  }
  return false;
}

Result<review::Copy> StartReview(const SessionPlan& plan) {
  std::string agent = plan.labels.count("corral.agent") ? plan.labels.at("corral.agent") : "";
  return review::Prepare(policy::StateDir(), plan.session_id, plan.project_dir, agent);
}

bool ReviewByCopy(const Engine& engine, bool network_mode) {
  // The overlay's folders are in corral's state on this machine: an engine
  // elsewhere cannot mount them. The network mode on this machine's engine
  // (and a rootless Podman, in its user namespace: Linux 5.11 and later,
  // userxattr) mounts the overlay as a local box does.
  return network_mode && engine.remote();
}

Result<void> MountReviewCopy(Engine& engine, SessionPlan& plan, const review::Copy& copy) {
  std::string name = review::VolumeName(plan.session_id);
  auto made = engine.CreateVolume(name, {{"corral.session", plan.session_id}},
                                  review::OverlayOptions(copy));
  if (!made) return made.error().Context("review mode's copy of the project");
  // The repository's own rw bind (a mount point that cannot be moved aside)
  // would send the box's commits into the project's .git: in review mode
  // .git is the overlay's too, and only its objects and refs are read back.
  const std::string dot_git = plan.project_dir + "/.git";
  std::erase_if(plan.mounts, [&](const Mount& mount) {
    return mount.kind == MountKind::kBind && mount.target == dot_git && mount.source == dot_git &&
           !mount.read_only;
  });
  for (Mount& mount : plan.mounts) {
    if (mount.kind == MountKind::kBind && mount.target == plan.project_dir) {
      mount.kind = MountKind::kVolume;
      mount.source = name;
      mount.options = {kNoCopy};
      mount.why = "the project's review copy: an overlay whose writes go to " + copy.upper;
      // Podman gives a new volume to the box's first process, root when the
      // exec gate starts it: the shim hands the overlay's top back to the
      // agent, else a rootless box could not write in it.
      OwnVolume(plan, mount.target);
      return Ok();
    }
  }
  return Error("review mode found no project mount in the plan");
}

void EndReview(Engine& engine, const SessionPlan& plan, SessionRecord& record,
               Result<RunOutcome>& outcome) {
  auto line = [&](const std::string& text) {
    if (outcome) {
      outcome->held_lines.push_back(text);
    } else {
      report::Line("corral: " + text);
    }
  };
  // On an engine elsewhere: the box's work is not all in the review copy
  // yet (its copy-back failed; the network mode's line says so).
  if (CopyBackPending(plan.session_id)) {
    line("review mode: the branch is made once the box's work is back from the volume " +
         network_mode::LayoutFor(plan.session_id).project_volume + ": corral stop " +
         plan.session_id);
    return;
  }
  if (auto removed = engine.RemoveVolume(review::VolumeName(plan.session_id)); !removed) {
    line(removed.error().message + " (corral stop " + plan.session_id + " tries again)");
    return;
  }
  auto copy = review::BringBack(policy::StateDir(), plan.session_id);
  if (!copy) {
    line("review mode: " + copy.error().message + " (corral stop " + plan.session_id +
         " tries again)");
    return;
  }
  record.Write({{"event", "review_branch"},
                {"branch", copy->branch.empty() ? nlohmann::json(nullptr) : nlohmann::json(copy->branch)},
                {"tip", copy->tip},
                {"base", copy->base}});
  if (!copy->branch.empty()) {
    policy::InboxItem item;
    item.time = UtcTime();
    item.session = plan.session_id;
    item.project = plan.project_dir;
    item.agent = copy->agent;
    item.kind = "branch";
    item.command = copy->branch;
    if (auto added = policy::InboxAdd(policy::StateDir(), item); !added) {
      log::warn("cannot add to the inbox: " + added.error().message);
    }
  }
  line(review::BranchLine(*copy));
}

std::string FinishReview(Engine& engine, const std::string& session) {
  auto copy = review::ReadCopy(policy::StateDir(), session);
  if (!copy || copy->state != "running" || CopyBackPending(session)) return "";
  if (auto removed = engine.RemoveVolume(review::VolumeName(session)); !removed) {
    return "corral: " + removed.error().message + "\n";
  }
  auto back = review::BringBack(policy::StateDir(), session);
  if (!back) return "corral: review mode: " + back.error().message + "\n";
  if (auto record = SessionRecord::Open(SessionRecordPath(policy::StateDir(), session), session, -1)) {
    (*record)->Write({{"event", "review_branch"},
                      {"branch", back->branch.empty() ? nlohmann::json(nullptr) : nlohmann::json(back->branch)},
                      {"tip", back->tip},
                      {"base", back->base}});
  }
  return "corral: " + review::BranchLine(*back) + "\n";
}

}  // namespace corral::launcher

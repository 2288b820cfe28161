// corral run: plan → engine → image → create → attach → start → wait →
// remove. Each step is one call; cleanup runs on every path (the guards),
// and the reaper plus the shim's watchdog cover a SIGKILLed corral.
#include <signal.h>
#include <unistd.h>

#include <algorithm>

#include "base/report.h"
#include "launcher/session/session.h"
#include "launcher/session/network_session.h"
#include "launcher/agents/agents.h"
#include "launcher/engine/engine.h"
#include "launcher/hold/hold.h"
#include "launcher/launcher.h"
#include "launcher/plan/plan.h"

namespace corral::launcher {
namespace {

// Removes the container, the mount points corral made and the session
// folder when it goes out of scope.
class Cleanup {
 public:
  explicit Cleanup(const SessionPlan& plan)
      : plan_(plan), commondir_(CommondirToWatch(plan.project_dir)) {}
  ~Cleanup() {
    bool box_gone = RemoveBox();
    // Not under a box that may still run: it would lose the mounts on them.
    if (box_gone) mount_points_.RemoveMade();
    // The box is gone: nothing can write the file again before it goes.
    if (!commondir_.empty() && ::unlink(commondir_.c_str()) == 0) {
      report::Line("corral: removed " + commondir_ +
                   ", which the box wrote: it would have made git on this machine take its "
                   "hooks and config from another folder");
    }
    if (reaper_) reaper_->Done();
    RemoveSessionDir(plan_);
  }
  // True once the box is gone (or was never made); says so when it is not.
  bool RemoveBox() {
    if (engine_ && !container_.empty()) {
      if (auto ok = engine_->Remove(container_); !ok) {
        report::Line("corral: " + ok.error().message + " (remove it with: corral stop " +
                     plan_.session_id + ")");
        return false;
      }
      container_.clear();
    }
    return true;
  }
  void Container(Engine* engine, std::string id) {
    engine_ = engine;
    container_ = std::move(id);
  }
  // Owned here: it must not close its pipe (= "corral died") before Done().
  void Reap(Reaper reaper) { reaper_.emplace(std::move(reaper)); }
  MountPoints& mount_points() { return mount_points_; }

 private:
  const SessionPlan& plan_;
  std::string commondir_;
  MountPoints mount_points_;
  Engine* engine_ = nullptr;
  std::string container_;
  std::optional<Reaper> reaper_;
};

// The plan as this engine can hold it. Rootless Docker is refused: it has
// no keep-id, so the box's user would be a subordinate uid that cannot write
// the project. The limits the engine cannot set are left out; the lines said
// after the summary name them, and the rootless setup found. With
// limits.require a limit not in force stops the session instead.
Result<std::string> FitToEngine(const Engine& engine, SessionPlan& plan, bool require_limits) {
  if (engine.rootless() && !engine.podman()) {
    return Error("rootless Docker (" + engine.endpoint().url +
                 ") is not supported yet: Docker cannot keep your uid in the box as Podman's "
                 "keep-id does, so the agent would run as a subordinate uid that cannot write "
                 "your project. Use rootless Podman (corral starts one when no engine answers) "
                 "or Docker through the docker group (/var/run/docker.sock)");
  }
  if (!plan.runtime.empty()) {  // runtime: gvisor, never this machine's kernel instead
    std::string missing = GvisorNotReady(engine.facts(), engine.podman(), engine.endpoint().url);
    if (!missing.empty()) return Error(missing);
  }
  LimitsVerdict verdict = JudgeLimits(plan.limits, engine.facts(), engine.podman());
  if (require_limits && !verdict.not_in_force.empty()) {
    std::string missing;
    for (const auto& limit : verdict.not_in_force) missing += (missing.empty() ? "" : " and ") + limit;
    return Error("limits.require is set, and " + missing + " would not be in force on " +
                 engine.name() + ": " + verdict.why +
                 ". Set limits.require: false to run without it, or unset that limit");
  }
  std::string lines;
  if (engine.rootless()) lines += "  " + DescribeRootlessHost(ReadRootlessHost()) + "\n";
  if (std::string limits = LimitsLine(plan.limits, verdict); !limits.empty()) {
    lines += "  limits: " + limits + "\n";
  }
  ApplyVerdict(plan, verdict);
  return lines;
}

// Rootless, the runtime reaches the box's paths as the user, without
// capabilities: "permission denied" then most often means an image whose
// root folder is not 0755 (a rootfs packed from a mktemp folder).
Error RootlessHint(const Engine& engine, const Error& error) {
  if (!engine.rootless() || error.message.find("permission denied") == std::string::npos) {
    return error;
  }
  return Error(error.message + ". Rootless, the box reaches every path as your uid: check that "
                               "the image's root folder is mode 0755 (docs/rootless.md, Images)",
               error.code);
}

// runtime: gvisor: the box the engine made must be on runsc. Podman before
// the fix of containers/podman#28429 drops a create's oci_runtime and would
// give the box its default runtime, on this machine's kernel.
Result<void> EnsureBoxRuntime(Engine& engine, const SessionPlan& plan, const std::string& id) {
  if (plan.runtime.empty()) return Ok();
  auto given = engine.BoxRuntime(id);
  if (!given) return given.error().Context("runtime gvisor: which runtime the box got");
  if (*given == plan.runtime) return Ok();
  return Error("runtime gvisor: " + engine.name() + " made the box with runtime '" + *given +
               "' instead of " + plan.runtime + (engine.podman()
                   ? " (Podman's API drops a create's oci_runtime before the fix of "
                     "containers/podman#28429): use a Podman service whose default runtime is "
                     "runsc with --host-uds=open, --oci-seccomp and --network=none (docs/sessions.md, "
                     "gVisor), "
                     "or Docker with runsc registered"
                   : "") +
               "; the box was not started");
}

// The network mode's host paths; none for a local box.
struct Mode {
  bool network = false;
  HostPaths host;
  SidecarInput sidecar;  // its proxy holds the logins
  std::optional<review::Copy> review;  // review mode: the box gets an overlay
  bool review_by_copy = false;  // or, on an engine elsewhere, a copy in a volume there
};

// `ready`, when given, is asked after the box is made and before it starts
// (the network mode's volumes filled); `started` once the box is started
// and before its output is read (the network mode's relay). An error from
// either ends the box. `exited` is called once the box has exited by itself.
Result<RunOutcome> RunBox(Engine& engine, SessionPlan& plan, Cleanup& cleanup,
                          const std::string& engine_lines,
                          const std::function<Result<void>()>& ready = nullptr,
                          const std::function<Result<void>()>& started = nullptr,
                          const std::function<void()>& exited = nullptr);

// `settled` is called once nothing will change the project any more (the
// box exited by itself; in the network mode, its copy is home).
Result<RunOutcome> RunPlan(Engine& engine, SessionPlan& plan, Cleanup& cleanup,
                           const std::string& build_context, const std::string& engine_lines,
                           const Mode& mode, SessionRecord& record,
                           DenyListCopies& deny_list_copies,
                           const std::function<void()>& settled) {
  // Locally the shim holds this socket; in the network mode, the relay's.
  std::optional<UniqueFd> watchdog;
  if (!mode.network) {
    auto listening = ListenWatchdog(plan.session_dir);
    if (!listening) return listening.error();
    watchdog.emplace(std::move(*listening));
  }
  if (auto ok = EnsureImage(engine, plan.image, build_context); !ok) return ok.error();
  if (auto ok = NameTheBoxUser(engine, plan); !ok) return ok.error();
  if (auto ok = GiveVolumesToTheBoxUser(engine, plan); !ok) return ok.error();
  // Before the network mode copies the project: the copy then has them, and
  // its copy-back brings no folder home that the project never had.
  if (auto ok = MakeMountPoints(plan, cleanup.mount_points()); !ok) return ok.error();
  std::vector<ApiCall> then =
      mode.network ? NetworkSession::TearDownCalls(plan.session_id) : std::vector<ApiCall>{};
  if (mode.review && !mode.review_by_copy) {
    // The mount points are made in the project first: the overlay shows them.
    if (auto ok = MountReviewCopy(engine, plan, *mode.review); !ok) return ok.error();
    then.push_back(RemoveVolumeCall(review::VolumeName(plan.session_id)));
  }
  auto reaper = Reaper::Start(engine.endpoint(), plan.container_name, plan.session_dir, then,
                              cleanup.mount_points().made(), plan.session_id);
  if (!reaper) return reaper.error();
  cleanup.Reap(std::move(*reaper));
  if (!mode.network) return RunBox(engine, plan, cleanup, engine_lines, nullptr, nullptr, settled);
  network_mode::ReviewInto review_into;
  if (mode.review && mode.review_by_copy) {
    review_into = {mode.review->upper, review::RemovedListPath(*mode.review)};
  }
  auto network = NetworkSession::BringUp(engine, plan, mode.host, mode.sidecar, review_into);
  if (!network) return network.error();
  deny_list_copies.SendTo(
      [session = network->get()](const std::string& text) { session->DenyListChanged(text); });
  auto outcome = RunBox(engine, plan, cleanup,
                        engine_lines + "  " + (*network)->ProjectLine() + "\n",
                        [&] { return (*network)->AwaitFilled(); },
                        [&] { return (*network)->AwaitRelay(); });
  deny_list_copies.SendTo(nullptr);
  (*network)->End(record);
  if (outcome) settled();
  return outcome;
}

Result<RunOutcome> RunBox(Engine& engine, SessionPlan& plan, Cleanup& cleanup,
                          const std::string& engine_lines,
                          const std::function<Result<void>()>& ready,
                          const std::function<Result<void>()>& started,
                          const std::function<void()>& exited) {
  auto signals = SignalPipe::Install();
  if (!signals) return signals.error();

  auto published = PublishedPorts::Listen(plan.published);
  if (!published) return published.error();
  auto id = engine.Create(plan);
  if (!id) return id.error();
  cleanup.Container(&engine, *id);
  if (auto ok = EnsureBoxRuntime(engine, plan, *id); !ok) return ok.error();
  std::optional<RawConnection> docker_wait;
  // Docker's next-exit wait must be registered before start; it is opened
  // while the attach is (each is a connection, over TLS a handshake).
  std::future<Result<RawConnection>> waiting;
  if (!engine.podman()) {
    waiting = std::async(std::launch::async, [&] { return engine.OpenWaitNextExit(*id); });
  }
  auto stream = engine.Attach(*id);  // Podman starts the runtime here
  if (waiting.valid()) {
    auto wait = waiting.get();
    if (!wait) return wait.error();
    docker_wait.emplace(std::move(*wait));
  }
  if (!stream) return RootlessHint(engine, stream.error());
  if (ready) {
    if (auto ok = ready(); !ok) return ok.error();
  }

  if (auto ok = engine.Start(*id); !ok) {
    // What `started` waits for may know why (the network mode's copy read
    // back wrong, so the box's files were not where it looked).
    if (started) {
      if (auto cause = started(); !cause) return cause.error();
    }
    return RootlessHint(engine, ok.error());
  }
  if (started) {
    if (auto ok = started(); !ok) return ok.error();
  }
  (*published)->Serve(engine, *id, plan.command.front(),
                      std::to_string(plan.uid) + ":" + std::to_string(plan.gid));
  // Once the box runs: a session that could not start says only why.
  std::string logins = LoginsLine(plan);
  std::string ports = PublishedLine(plan.published);
  std::string summary = Summary(plan, engine.name()) + (logins.empty() ? "" : "  " + logins + "\n") +
                        (ports.empty() ? "" : "  " + ports + "\n") + engine_lines;
  if (!summary.empty() && summary.back() == '\n') summary.pop_back();
  report::Line(summary);
  std::optional<RawTerminal> raw;
  auto resize = [&] {
    auto [rows, cols] = TerminalSize();
    if (plan.tty && rows > 0) (void)engine.Resize(*id, rows, cols);
  };
  if (plan.tty) {
    raw.emplace();
    resize();
  }
  int sig = Pump(*stream, plan.tty, *signals, resize);
  raw.reset();
  if (sig != 0) {  // Ctrl-C, SIGTERM, SIGHUP: the box goes with us
    report::Line("corral: stopping the box (signal " + std::to_string(sig) + ")");
    return RunOutcome{128 + sig};
  }
  auto code = docker_wait ? ReadWaitBody(*docker_wait) : engine.Wait(*id);
  if (!code) return code.error();
  if (exited) exited();
  return RunOutcome{*code};
}

// Once the box is gone (and the network mode's copy is home): what the box
// changed among the auto-run files is held, and named in the record, the
// inbox and the end lines. A box still there is left to corral stop.
// `compared`: the comparison made already, once the box had exited by itself.
void HoldAtEnd(Cleanup& cleanup, const SessionPlan& plan, SessionRecord& record,
               Result<RunOutcome>& outcome, std::optional<Result<autorun::Report>> compared) {
  // The box goes first; when it exited by itself, while the end snapshot is
  // taken (Recorder::ProjectSettled).
  const bool removed = cleanup.RemoveBox();
  if (!compared && removed) compared = CompareAutorunFiles(plan.session_id);
  if (!compared) return;
  std::vector<std::string> lines;
  const auto& report = *compared;
  if (!report) {
    lines.push_back(report.error().message + " (corral stop " + plan.session_id +
                    " compares them again)");
  } else if (!report->held.empty() || !report->errors.empty()) {
    record.Write(autorun::HeldEvent(*report));
    autorun::AddToInbox(policy::StateDir(), *report,
                        plan.labels.count("corral.agent") ? plan.labels.at("corral.agent") : "");
    for (const std::string& error : report->errors) lines.push_back(error);
    if (std::string line = autorun::HeldLine(*report); !line.empty()) lines.push_back(line);
  }
  if (outcome) {
    outcome->held_lines = std::move(lines);
  } else {
    for (const std::string& line : lines) report::Line("corral: " + line);
  }
}

// The input of a session started on this machine, with corral's own
// programs found beside it.
Result<PlanInput> RunInput(const policy::Policy& policy, std::vector<std::string> agent_command,
                           const std::string& image, const RunOptions& options) {
  PlanInput input = HostPlanInput(policy);
  input.agent_command = std::move(agent_command);
  input.image = image;
  input.published = options.published;
  if (options.headless) input.tty = false;
  if (input.shim_path.empty()) {
    return Error(
        "corral-shim was not found beside corral: reinstall corral, or set CORRAL_SHIM "
        "to its path");
  }
  if (input.shell_path.empty()) {
    return Error("corral-shell was not found beside " + input.shim_path +
                 ": reinstall corral (the two are installed side by side), or set CORRAL_SHIM to "
                 "a shim that has corral-shell in its folder");
  }
  if (input.agent_command.empty()) {
    return Error("no agent to run: name one (corral run claude) or a command after --");
  }
  return input;
}

// Before the box is made: the plan fitted to the engine, the agent's image
// there, and the agent's settings folders filled. Returns the start lines
// these add.
Result<std::string> ReadyOnEngine(Engine& engine, SessionPlan& plan, const Mode& mode,
                                  const policy::Policy& policy, const PlanInput& input,
                                  const Recipe* image_recipe, AgentSeed& seed) {
  auto lines = FitToEngine(engine, plan, policy.limits.require);
  if (!lines) return lines.error();
  if (mode.review) {
    *lines += std::string("  review mode: the box works on ") +
              (mode.review_by_copy ? "a copy of the project in a volume on the engine"
                                   : "an overlay of the project") +
              "; its work arrives as branch corral/" + plan.session_id + "\n";
  }
  if (mode.network && !plan.runtime.empty() && engine.podman()) {
    // Podman 4 gives every container its default runtime (runsc here), so
    // the sidecar would run on gVisor too, and a socket it makes there is not
    // one the box's gVisor can reach.
    return Error("runtime gvisor in the network mode needs Docker with runsc registered: on " +
                 engine.name() + " (" + engine.endpoint().url +
                 ") the proxy sidecar would run on gVisor too, where the box cannot reach its "
                 "sockets; use Docker, or an engine that sees this machine's files (no "
                 "network mode)");
  }
  if (mode.network) {
    // The proxy sidecar holds the login variables (NetworkSession::BringUp).
    PassLoginFilesAsTheyAre(plan);
    *lines += "  " +
              (engine.remote() ? engine.ModeLine()
                               : std::string("mode: network (CORRAL_ENGINE_MODE=network)")) +
              "\n";
  }
  if (image_recipe) {
    auto version = AgentImageVersion(&engine, *image_recipe, "");
    if (!version) return version.error();
    auto tag = EnsureAgentImage(engine, *image_recipe, *version, input.ca_bundle, input.shim_path,
                                input.shell_path);
    if (!tag) return tag.error();
    plan.image = *tag;
  }
  // The box's own settings folders, filled from the user's (never shared);
  // login files whose tokens the proxy holds, with stand-ins.
  for (SeedStep& step : seed.steps) {
    auto copy = plan.box_login_files.find(step.from);
    if (step.kind != SeedStep::kLogin || copy == plan.box_login_files.end()) continue;
    step.stood_in = true;
    step.text = copy->second;
  }
  auto seeded = SeedAgentFolders(seed);
  if (!seeded) return seeded.error().Context("fill " + seed.agent + "'s settings folders");
  for (const std::string& line : *seeded) *lines += "  " + line + "\n";
  if (auto ok = MakeAgentFolders(input.agent); !ok) return ok.error();
  return lines;
}

// The session itself, once the engine is ready: the session folder and the
// auto-run snapshot, the record, the host's services, the box, and what
// happens at its end (held files, the agent's history given back, the end
// event). Cleanup runs on every path.
Result<RunOutcome> RunSession(Engine& engine, SessionPlan& plan, const Mode& mode,
                              const policy::Policy& policy, const PlanInput& input,
                              const RunOptions& options, const BoxDecision& box,
                              const std::string& engine_lines,
                              std::vector<nlohmann::json> held, const AgentSeed& seed) {
  Cleanup cleanup(plan);
  if (auto ok = PrepareSessionDir(plan); !ok) return ok.error();
  // Before the box: the auto-run files as the host has them (fails closed).
  if (auto ok = autorun::TakeSnapshot(policy::StateDir(), plan.session_id,
                                      AutorunRoots(plan.project_dir, input.home),
                                      MountPointPaths(plan));
      !ok) {
    return ok.error();
  }
  nlohmann::json started =
      StartedEvent(plan, box, input.agent_command, engine.name(), engine.endpoint().url);
  started["review"] = options.review;
  auto recorder = Recorder::Start(plan, options, std::move(started), std::move(held));
  if (!recorder) return recorder.error();
  Result<RunOutcome> outcome = RunOutcome{};
  std::optional<Result<autorun::Report>> compared;  // the auto-run files, once compared
  std::uint64_t blocked = 0;
  // In the network mode the sidecar is the proxy: none here, and no
  // second session CA.
  if (auto services = StartServices(policy, options.policy_source, plan,
                                    /*with_proxy=*/!mode.network, recorder->record(),
                                    {input.getenv, input.ca_bundle})) {
    outcome = RunPlan(engine, plan, cleanup, options.build_context, engine_lines, mode,
                      recorder->record(), *services->deny_list_copies, [&] {
                        // The box exited and cannot write any more: its auto-run
                        // files are compared, then the end snapshot taken, while
                        // the box is removed.
                        compared = CompareAutorunFiles(plan.session_id);
                        recorder->ProjectSettled();
                      });
    blocked = services->Stop();
    if (outcome) outcome->blocked_named = services->refused_while_away->Named();
  } else {
    outcome = services.error();
  }
  if (outcome) outcome->blocked_while_away = blocked;
  HoldAtEnd(cleanup, plan, recorder->record(), outcome, std::move(compared));
  if (mode.review && cleanup.RemoveBox()) EndReview(engine, plan, recorder->record(), outcome);
  // Data only (conversation history), by the recipe's list.
  if (auto given = GiveBackAgentData(seed); !given) {
    report::Line("corral: " +
                 given.error().Context("give back " + seed.agent + "'s history").message);
  }
  recorder->End(outcome, blocked, Watching(policy.presence));
  return outcome;
}

}  // namespace

Result<RunOutcome> Run(const policy::Policy& policy, std::vector<std::string> agent_command,
                       const std::string& image, const RunOptions& options) {
  auto input = RunInput(policy, std::move(agent_command), image, options);
  if (!input) return input.error();
  auto recipes = Recipes(policy.agents);
  if (!recipes) return recipes.error();
  const Recipe* recipe = FindRecipe(*recipes, input->agent_command.front());
  if (!recipe) {
    if (std::string miss = UnknownAgent(*recipes, input->agent_command.front()); !miss.empty()) {
      report::Line("corral: " + miss);
      return RunOutcome{kExitNotFound};
    }
  }
  auto watching = AskOnce(Watching(policy.presence));  // asked once, only when it matters
  BoxDecision box = DecideBox(policy.level, options.headless, input->tty, watching);
  const std::vector<std::string> asked = input->agent_command;  // as the user gave it
  AgentSeed seed;
  if (recipe) {
    auto run = ApplyRecipe(*recipe, input->agent_command,
                           {box.boxed, policy.level, input->home, input->state_dir, input->getenv,
                            PassLogins(policy)});
    if (!run) return run.error();
    input->agent_command = std::move(run->command);
    input->agent = std::move(run->additions);
    seed = std::move(run->seed);
  }
  auto hold = HoldIfUnknown(policy, *input, asked, {options.headless, options.print_only},
                            watching);  // boxed or not
  if (!hold) return hold.error();
  if (hold->exit_code) return RunOutcome{*hold->exit_code};
  auto held = HoldEvents(hold->folder, hold->held_since_ms, hold->released_at_ms);
  if (!box.boxed && !options.print_only && WantsReview(policy, options, input->cwd)) {
    // Review mode is a box's: the project copy is the box's mount.
    if (policy.level == policy::Level::kOff) {
      return Error("review mode needs the box, and level is off: run without --review (or "
                   "leave this project out of review.projects), or set level to unattended");
    }
    box = {true, "review mode"};
  }
  if (!box.boxed) return RunUnboxed(policy, *input, options, box.why, std::move(held));
  // The agent's own image, unless --image or the config names one (a team's).
  const Recipe* image_recipe =
      recipe && input->image.empty() && policy.settings.at("image").origin == policy::Origin::kDefault
          ? recipe
          : nullptr;
  // Its version is chosen below, once the engine can say which are built.
  if (image_recipe) input->image = AgentImageTag(image_recipe->name, "");
  input->logins_through_proxy = true;  // this session's proxy holds them
  input->read_login_file = ReadLoginFile;
  auto plan = MakePlan(*input);
  if (!plan) return plan.error();
  auto choice = ChooseEndpoints(options.engine, policy.engine, input->getenv);
  if (!choice) return choice.error();
  if (options.print_only) {
    auto engine = Engine::Connect(*choice);
    if (image_recipe) {
      auto version = AgentImageVersion(engine ? &*engine : nullptr, *image_recipe, "");
      if (!version) return version.error();
      plan->image = AgentImageTag(image_recipe->name, *version);
    }
    report::Output(PlanPrintout(*plan, engine ? &*engine : nullptr, input->getenv,
                                image_recipe != nullptr));
    return RunOutcome{0};
  }
  // Before the private podman's folder is made beside the session's.
  if (auto ok = PrepareRuntimeDir(input->runtime_dir); !ok) return ok.error();
  choice->EmbedFor(plan->session_dir);  // none answers: a private podman, when installed
  auto engine = Engine::Connect(*choice);
  if (!engine) return engine.error();
  Mode mode{WantsNetworkMode(*engine, input->getenv),
            {input->shim_path, input->shell_path, input->ca_bundle},
            {{input->getenv, input->ca_bundle}, UpstreamCaFile(policy, ""), policy.network},
            std::nullopt, false};
  RunOptions run_options = options;
  if (WantsReview(policy, options, plan->project_dir)) {
    auto copy = StartReview(*plan);
    if (!copy) return copy.error();
    mode.review = std::move(*copy);
    mode.review_by_copy = ReviewByCopy(*engine, mode.network);
    run_options.review = true;
  }
  auto engine_lines = ReadyOnEngine(*engine, *plan, mode, policy, *input, image_recipe, seed);
  if (!engine_lines) return engine_lines.error();
  return RunSession(*engine, *plan, mode, policy, *input, run_options, box, *engine_lines,
                    std::move(held), seed);
}

}  // namespace corral::launcher

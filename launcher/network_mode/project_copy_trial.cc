// `corral project-copy in|back SESSION` (hidden): the project copied into a
// session's volume and back without an agent, so the tests can prove it on
// the real engines before a session uses it.
#include <cstdlib>

#include "launcher/launcher.h"
#include "launcher/network_mode/network_mode.h"

namespace corral::launcher {

Result<std::string> ProjectCopyTrial(const policy::Policy& policy,
                                     const ProjectCopyTrialOptions& options) {
  const std::string& id = options.session_id;
  if (id.size() != 12 || id.find_first_not_of("0123456789abcdef") != std::string::npos) {
    return Error("the session id must be 12 hex digits, not '" + id + "'");
  }
  auto choice =
      ChooseEndpoints(options.engine, policy.engine, [](const char* n) { return std::getenv(n); });
  if (!choice) return choice.error();
  auto engine = Engine::Connect(*choice);
  if (!engine) return engine.error();
  network_mode::Layout layout = network_mode::LayoutFor(id);
  if (options.action == "in") {
    auto manifest = network_mode::CopyProjectIn(*engine, layout, options.project_dir,
                                                options.image, options.uid, options.gid);
    if (!manifest) return manifest.error();
    std::string out = network_mode::ProjectModeLine(layout, options.project_dir, true) + "\n" +
                      "copied " + std::to_string(manifest->entries.size()) + " paths\n";
    for (const auto& path : manifest->skipped) out += "not copied: " + path + "\n";
    return out;
  }
  if (options.action != "back") return Error("project-copy: say in or back");
  auto report = network_mode::ResumeCopyBack(*engine, id);
  if (!report) return report.error();
  if (!*report) return "nothing to copy back for session " + id + "\n";
  return network_mode::DescribeCopyBack(**report, id);
}

}  // namespace corral::launcher

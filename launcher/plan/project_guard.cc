// Folders the box refuses to share, each with what to do instead.
#include "base/paths.h"
#include "launcher/plan/plan.h"

namespace corral::launcher {

Result<void> CheckProjectFolder(const std::string& cwd, const GitLayout& git,
                                const Folders& folders) {
  const std::string home = NormalPath(folders.home);
  const std::string project = git.top.empty() ? cwd : NormalPath(git.top);
  if (cwd == "/" || project == "/") {
    return Error("/ is the whole machine, not a project: cd into a project folder first");
  }
  if (!home.empty() && project == home && cwd != home) {
    return Error(cwd + " is in a git checkout of your whole home folder, and the box would "
                 "share all of it: cd into a project with a git checkout of its own first");
  }
  if (!home.empty() && IsWithin(home, project)) {
    return Error(project + (project == home ? " is your home folder" : " holds your home folder") +
                 ", not a project, and the box would share all of it: cd into a project first");
  }
  for (const char* dot : {"/.config", "/.local"}) {
    if (!home.empty() && IsWithin(project, home + dot)) {
      return Error(project + " is in ~" + dot + ", the folder of your programs and their "
                   "settings: open a project outside it");
    }
  }
  for (const auto& [dir, what] : {std::pair{folders.config_dir, "config"},
                                  std::pair{folders.state_dir, "state"}}) {
    if (dir.empty()) continue;
    std::string d = NormalPath(dir);
    if (IsWithin(project, d) || IsWithin(d, project)) {
      return Error(project + (IsWithin(project, d) ? " is in " : " holds ") + "corral's " + what +
                   " folder " + d + ", and the box could change how corral boxes it: open a "
                   "project outside it");
    }
  }
  return Ok();
}

}  // namespace corral::launcher

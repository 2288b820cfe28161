// corral seccomp: print the box's seccomp profile (OCI, PFC or a summary), or
// compare it with another profile such as the engine's default.
#include <iostream>

#include "launcher/cli/cli.h"
#include "seccomp/seccomp.h"

namespace corral::cli {
namespace {

struct SeccompOptions {
  std::string format = "oci";
  std::string diff_file;
  bool strict = false;
};

void PrintDifferences(const std::vector<seccomp::Difference>& list, std::string_view heading,
                      std::string_view left, std::string_view right) {
  if (list.empty()) return;
  std::cout << heading << " (" << list.size() << "):\n";
  for (const auto& d : list) {
    std::cout << "  " << d.name << " (" << left << ": " << d.left.detail << "; " << right << ": "
              << d.right.detail << ")\n";
  }
}

int RunDiff(const seccomp::Profile& ours, const std::string& path) {
  auto theirs = seccomp::ReadProfileFile(path);
  if (!theirs) return Fail(theirs.error(), kExitUsage);
  auto diff = seccomp::Diff(ours, *theirs);
  std::cout << "Comparing the box's profile with " << path
            << " (as it applies without capabilities, on x86 and Arm)\n";
  if (diff.empty()) {
    std::cout << "No differences.\n";
    return kExitOk;
  }
  PrintDifferences(diff.left_only, "Allowed by the box, refused by " + path, "box", "file");
  PrintDifferences(diff.right_only, "Allowed by " + path + ", refused by the box", "box", "file");
  PrintDifferences(diff.other_conditions, "Allowed by both, with different argument checks",
                   "box", "file");
  return kExitRefused;
}

int RunSeccomp(const SeccompOptions& options, const Globals& globals) {
  auto policy = LoadPolicy(globals);
  if (!policy) return Fail(policy.error(), kExitUsage);
  auto profile = seccomp::BuildProfile(policy->seccomp, {.strict = options.strict});
  if (!profile) return Fail(profile.error().Context("seccomp profile"), kExitUsage);
  for (const auto& warning : profile->warnings) log::warn(warning);

  if (!options.diff_file.empty()) return RunDiff(*profile, options.diff_file);
  if (options.format == "oci") {
    std::cout << seccomp::ToOci(*profile).dump(2) << "\n";
  } else if (options.format == "pfc") {
    auto pfc = seccomp::ToPfc(*profile);
    if (!pfc) return Fail(pfc.error(), kExitRefused);
    std::cout << *pfc;
  } else {
    std::cout << seccomp::Summary(*profile);
  }
  return kExitOk;
}

}  // namespace

void AddSeccompCommand(CLI::App& app, Globals& globals) {
  auto options = std::make_shared<SeccompOptions>();
  CLI::App* sub = app.add_subcommand(
      "seccomp", "Print the box's seccomp profile, or compare it with another profile");
  sub->footer(
      "The profile is built from the engine default's allowlist, less what an agent never\n"
      "needs; the config keys seccomp.allow, seccomp.deny and seccomp.allow_ptrace change it.\n"
      "Formats: oci (the flattened linux.seccomp object; also what Docker takes inline and\n"
      "Podman as a file), pfc (libseccomp's filter code), summary (for people).\n"
      "Exit status: 0 ok; 1 --diff found differences, or the filter did not compile;\n"
      "2 usage, config or input error.\n"
      "Examples:\n"
      "  corral seccomp --format summary\n"
      "  corral seccomp > box-seccomp.json && podman run --security-opt seccomp=box-seccomp.json ...\n"
      "  corral seccomp --diff /usr/share/containers/seccomp.json\n");
  auto* format = sub->add_option("--format", options->format, "oci (default), pfc or summary")
                     ->check(CLI::IsMember({"oci", "pfc", "summary"}));
  sub->add_option("--diff", options->diff_file,
                  "Compare with this profile (OCI, config.json, Docker or Podman form): what "
                  "each allows that the other refuses")
      ->check(CLI::ExistingFile)
      ->excludes(format);
  sub->add_flag("--strict", options->strict,
                "A system-call name this libseccomp does not know is an error, not a warning");
  sub->callback([options, &globals] { globals.exit_code = RunSeccomp(*options, globals); });
}

}  // namespace corral::cli

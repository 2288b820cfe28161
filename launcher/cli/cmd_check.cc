// corral check: decide command lines as the oracle would while nobody is
// watching, one at a time or in batch (JSON lines).
#include <fcntl.h>
#include <unistd.h>

#include <iostream>

#include "launcher/cli/cli.h"
#include "policy/oracle/oracle.h"

namespace corral::cli {
namespace {

struct CheckOptions {
  std::string deny_list_file;
  std::string batch_file;
  bool json = false;
  std::vector<std::string> command;
};

std::string_view FindingName(policy::Finding finding) {
  switch (finding) {
    case policy::Finding::kListed: return "listed";
    case policy::Finding::kUndetermined: return "undetermined";
    case policy::Finding::kNone: return "none";
  }
  return "none";
}

std::string Reason(const policy::MatchResult& match, const policy::Verdict& verdict) {
  policy::ReasonText reason = policy::ReasonFor(match, verdict);
  return std::string(reason.prefix) + std::string(reason.detail);
}

nlohmann::json BatchLine(const policy::MatchResult& match, const policy::Verdict& verdict) {
  nlohmann::json out;
  out["decision"] = verdict.decision == policy::Decision::kDeny ? "deny" : "allow";
  out["entry"] = match.finding == policy::Finding::kListed ? nlohmann::json(match.entry) : nullptr;
  out["reason"] = Reason(match, verdict);
  out["dangerous"] = match.dangerous ? nlohmann::json(match.dangerous->category) : nullptr;
  return out;
}

nlohmann::json FullJson(const policy::MatchResult& match, const policy::Verdict& verdict) {
  nlohmann::json out = BatchLine(match, verdict);
  out["finding"] = FindingName(match.finding);
  out["words"] = nlohmann::json::array();
  for (const auto& word : match.words) {
    out["words"].push_back({{"text", word.text}, {"offset", word.offset}, {"length", word.length}});
  }
  if (!match.command.empty()) out["refused"] = match.command;
  if (match.dangerous) out["dangerous_description"] = match.dangerous->description;
  if (!verdict.message.empty()) out["message"] = verdict.message;
  return out;
}

void PrintHuman(const policy::MatchResult& match, const policy::Verdict& verdict) {
  bool refused = verdict.decision == policy::Decision::kDeny;
  std::cout << (refused ? "refused" : "allowed") << " while nobody is watching\n";
  if (match.finding == policy::Finding::kListed) std::cout << "  entry:     " << match.entry << "\n";
  if (!match.command.empty()) std::cout << "  command:   " << match.command << "\n";
  for (const auto& word : match.words) {
    std::cout << "  matched:   " << word.text << " (bytes " << word.offset << ".."
              << word.offset + word.length << ")\n";
  }
  std::cout << "  reason:    " << Reason(match, verdict) << "\n";
  if (match.dangerous) {
    std::cout << "  dangerous: " << match.dangerous->category << " ("
              << match.dangerous->description << ")\n";
  }
  if (refused) std::cout << "  message:   " << verdict.message << "\n";
}

int RunCheck(const CheckOptions& options, const Globals& globals) {
  if (options.batch_file.empty() == options.command.empty()) {
    std::cerr << "corral check: give a command after --, or --batch FILE (not both)\n"
                 "  e.g. corral check -- 'aws s3 ls'   or   corral check --batch commands.jsonl\n";
    return kExitUsage;
  }
  auto policy = LoadPolicy(globals);
  if (!policy) return Fail(policy.error(), kExitUsage);
  std::vector<std::string> entries = policy->deny_unattended;
  if (!options.deny_list_file.empty()) {
    auto file = policy::ReadDenyListFile(options.deny_list_file);
    if (!file) return Fail(file.error(), kExitUsage);
    entries = std::move(*file);
  }
  auto matcher = policy::Matcher::Create(entries);
  if (!matcher) {
    // The list's own errors say "deny list: ..."; name the file it came from.
    return options.deny_list_file.empty()
               ? Fail(matcher.error(), kExitUsage)
               : Fail(matcher.error().Context(options.deny_list_file), kExitUsage);
  }

  if (!options.batch_file.empty()) {
    if (options.batch_file == "-") return RunCheckBatch(STDIN_FILENO, *matcher, *policy);
    UniqueFd in(open(options.batch_file.c_str(), O_RDONLY | O_CLOEXEC));
    if (!in.valid()) return Fail(Error::FromErrno("cannot read " + options.batch_file), kExitUsage);
    return RunCheckBatch(in.get(), *matcher, *policy);
  }

  std::string command;
  for (const auto& word : options.command) command += (command.empty() ? "" : " ") + word;
  auto match = matcher->Check(command);
  auto verdict = policy::DecideUnattended(match, *policy, matcher->empty());
  if (options.json) {
    std::cout << FullJson(match, verdict).dump() << "\n";
  } else {
    PrintHuman(match, verdict);
  }
  return verdict.decision == policy::Decision::kDeny ? kExitRefused : kExitOk;
}

}  // namespace

void AddCheckCommand(CLI::App& app, Globals& globals) {
  auto options = std::make_shared<CheckOptions>();
  CLI::App* sub = app.add_subcommand(
      "check", "Decide whether a shell command line may run while nobody is watching");
  sub->footer(
      "COMMAND is the text given to `bash -c`; several words are joined with spaces.\n"
      "Exit status: 0 allowed, 1 refused, 2 usage or input error.\n"
      "Batch: each input line is {\"command\": \"...\"}; each output line is\n"
      "{\"decision\":\"allow\"|\"deny\",\"entry\":...,\"reason\":...,\"dangerous\":...}.\n"
      "Examples:\n"
      "  corral check -- 'git push origin main --force'\n"
      "  corral check --json -- 'sudo -u ops kubectl get pods'\n"
      "  corral check --batch commands.jsonl --deny-list my-list.txt\n");
  sub->add_option("--deny-list", options->deny_list_file,
                  "Use this list instead of the configured one (one entry per line, # comments)")
      ->check(CLI::ExistingFile);
  sub->add_option("--batch", options->batch_file, "Decide each JSON line of FILE ('-' = stdin)");
  sub->add_flag("--json", options->json, "Print the verdict as one JSON object");
  // COMMAND's words are split off before CLI11 parses (SplitCommandWords),
  // which would read `[aws,s3]` as a list; named here for --help.
  sub->add_option("command", options->command, "The command line to decide")->take_all();
  sub->callback([options, &globals] {
    options->command = globals.command_words;
    globals.exit_code = RunCheck(*options, globals);
  });
}

}  // namespace corral::cli

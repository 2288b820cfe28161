// corral config import FILE [--from FORMAT] [--write]: another tool's sandbox
// settings as corral keys, printed, and merged into the config file on --write.
#include <cstdlib>
#include <iostream>

#include "launcher/cli/cli.h"
#include "launcher/config_import/config_import.h"

namespace corral::cli {
namespace {

namespace ci = config_import;

struct ImportArgs {
  std::string file;
  std::string from;
  bool write = false;
};

void PrintOutcomes(const ci::MergeResult& merge) {
  for (const ci::KeyOutcome& outcome : merge.outcomes) {
    std::cout << "# " << outcome.key << ": " << outcome.detail << "\n";
  }
}

int Import(const Globals& globals, const ImportArgs& args) {
  auto text = ReadWholeFile(args.file);
  if (!text) return Fail(text.error(), kExitUsage);
  ci::Format format = ci::DetectFormat(args.file, *text);
  if (!args.from.empty()) {
    auto named = ci::ParseFormat(args.from);
    if (!named) {
      return Fail(Error("--from " + args.from + ": not a format the import reads (srt, "
                        "sandbox-json, codex)"),
                  kExitUsage);
    }
    format = *named;
  }
  ci::ImportOptions options;
  if (const char* home = std::getenv("HOME")) options.home = home;
  auto translation = ci::Translate(args.file, *text, format, options);
  if (!translation) return Fail(translation.error(), kExitUsage);

  auto source = PolicySource(globals);
  if (!source) return Fail(source.error(), kExitUsage);
  std::string config_path = policy::ResolveConfigPath(*source);
  auto merge = ci::PlanMerge(*translation, config_path);
  if (!merge) return Fail(merge.error(), kExitUsage);

  std::cout << "# " << args.file << ", read as " << ci::FormatTitle(format) << " (--from "
            << ci::FormatName(format) << ")\n"
            << ci::RenderYaml(merge->written) << ci::RenderNotes(*translation);
  PrintOutcomes(*merge);
  if (translation->assignments.empty()) std::cout << "# no setting has a corral key to set\n";
  if (!args.write) {
    std::cout << "# nothing written: --write merges these into " << config_path << "\n";
  } else if (!merge->changed) {
    std::cout << "# nothing to write: " << config_path << " already has all of it\n";
  } else {
    if (auto written = ci::WriteMerge(*merge); !written) return Fail(written.error(), kExitUsage);
    std::cout << "# wrote " << config_path;
    if (!merge->backup_path.empty()) {
      std::cout << " (the old file is kept at " << merge->backup_path
                << "; its comments were not carried over)";
    }
    std::cout << "\n";
  }
  return translation->Complete() && !merge->conflicts ? kExitOk : kExitRefused;
}

}  // namespace

void AddConfigImportCommand(CLI::App* config, Globals& globals) {
  auto args = std::make_shared<ImportArgs>();
  CLI::App* import = config->add_subcommand(
      "import", "Translate another tool's sandbox settings into corral keys");
  import->add_option("FILE", args->file, "~/.srt-settings.json, a sandbox.json, ~/.codex/config.toml")
      ->required();
  import->add_option("--from", args->from, "The file's format: srt, sandbox-json, codex "
                                           "(default: from its name and contents)");
  import->add_flag("--write", args->write,
                   "Merge the keys into the config file (lists merged, values already set kept, "
                   "the old file kept as FILE.bak)");
  import->footer(
      "Prints the corral keys, then one '#' line for each setting left out and why.\n"
      "Exit codes: 0 every setting translated (or has no corral meaning); 1 a setting could\n"
      "not be translated, is unknown, or a value already in the config was kept; 2 bad input\n"
      "(unreadable or malformed file, or a config that cannot be merged).\n"
      "Example: corral config import ~/.codex/config.toml --write\n");
  import->callback([args, &globals] { globals.exit_code = Import(globals, *args); });
}

}  // namespace corral::cli

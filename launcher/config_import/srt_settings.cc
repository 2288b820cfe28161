// sandbox-runtime's settings (~/.srt-settings.json, `srt --settings FILE`), as
// its schema defines them (anthropic-experimental/sandbox-runtime,
// src/sandbox/sandbox-config.ts: SandboxRuntimeConfigSchema).
#include "launcher/config_import/config_import.h"

namespace corral::config_import {

Result<Translation> ImportSrt(const std::string& path, const std::string& text,
                              const ImportOptions& options) {
  std::vector<JsonRule> rules = SharedSandboxRules();
  const std::string own_proxy = "corral filters through a proxy of its own; an outside proxy "
                                "is not used";
  for (std::string_view key : {"network.httpProxyPort", "network.socksProxyPort"}) {
    rules.push_back({key, JsonType::kInt, [own_proxy](const JsonSetting& s, JsonContext& c) {
                       c.out.Add(NoteKind::kNotTranslated, s.key + " = " + ShortValue(s.value),
                                 s.where, own_proxy);
                     }});
  }
  rules.push_back(NoMeaningRule("ignoreViolations", JsonType::kObject,
                                "corral keeps no violation log to quiet: a refused command is "
                                "in the session record and the inbox"));
  rules.push_back(NoMeaningRule("enableWeakerNestedSandbox", JsonType::kBool,
                                "corral's box is a container; it has no weaker nested mode"));
  rules.push_back(NoMeaningRule("ripgrep", JsonType::kObject,
                                "srt's own search for dangerous files; corral looks through the "
                                "project itself"));
  rules.push_back(NoMeaningRule("mandatoryDenySearchDepth", JsonType::kInt,
                                "srt's own search depth; corral looks through the whole project"));
  rules.push_back(NoMeaningRule("allowPty", JsonType::kBool,
                                "macOS only in srt; the box has a terminal of its own"));
  return TranslateJson(path, text, Format::kSrt, rules,
                       "sandbox-runtime's schema, src/sandbox/sandbox-config.ts", options);
}

}  // namespace corral::config_import

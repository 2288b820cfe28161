// A sandbox.json of the shape in ../shared/reference/002_*.txt: srt's network
// and filesystem settings plus filesystem.allowRead (home is denied there
// unless listed).
#include "launcher/config_import/config_import.h"

namespace corral::config_import {

Result<Translation> ImportSandboxJson(const std::string& path, const std::string& text,
                                      const ImportOptions& options) {
  std::vector<JsonRule> rules = SharedSandboxRules();
  rules.push_back({"filesystem.allowRead", JsonType::kStringList,
                   [](const JsonSetting& s, JsonContext& c) {
                     if (s.value.empty()) {
                       c.out.Add(NoteKind::kNoMeaning, s.key + " = []", s.where,
                                 "nothing listed; corral's box reads the project only");
                     }
                     for (const auto& item : s.value) {
                       TranslateHostPath(s.key, s.where, item.get<std::string>(), PathUse::kRead,
                                         c.options, c.out);
                     }
                   }});
  return TranslateJson(path, text, Format::kSandboxJson, rules,
                       "network: allowedDomains, deniedDomains, allowUnixSockets, "
                       "allowAllUnixSockets, allowLocalBinding; filesystem: allowRead, "
                       "allowWrite, denyRead, denyWrite, allowGitConfig",
                       options);
}

}  // namespace corral::config_import

// The network and filesystem settings srt and sandbox.json share, key by key.
#include "launcher/config_import/config_import.h"

namespace corral::config_import {
namespace {

std::vector<std::string> Strings(const JsonSetting& s) {
  return s.value.get<std::vector<std::string>>();
}

JsonRule Domains(std::string_view key, bool denied) {
  return {key, JsonType::kStringList, [denied](const JsonSetting& s, JsonContext& c) {
            if (s.value.empty() && !denied) {
              c.out.Add(NoteKind::kNotTranslated, s.key + " = []", s.where,
                        "no host allowed; corral keeps the hosts it allows now "
                        "(network.allowed_domains: yours, else package registries); the import "
                        "never removes entries: set it to [] yourself to allow none");
              return;
            }
            if (s.value.empty()) {
              c.out.Add(NoteKind::kNoMeaning, s.key + " = []", s.where, "nothing listed");
              return;
            }
            TranslateDomains(s.key, s.where, Strings(s), denied, c.out);
          }};
}

// Each entry of a list setting through `each`; an empty list says so once.
JsonRule EachPath(std::string_view key, std::string empty_reason,
                  std::function<void(const JsonSetting&, const std::string&, JsonContext&)> each) {
  return {key, JsonType::kStringList, [empty_reason, each](const JsonSetting& s, JsonContext& c) {
            if (s.value.empty()) {
              c.out.Add(NoteKind::kNoMeaning, s.key + " = []", s.where, empty_reason);
              return;
            }
            for (const std::string& path : Strings(s)) each(s, path, c);
          }};
}

// A switch whose false is what corral's box does anyway and whose true it cannot do.
JsonRule OffOnly(std::string_view key, std::string when_false, std::string when_true) {
  return {key, JsonType::kBool, [when_false, when_true](const JsonSetting& s, JsonContext& c) {
            bool on = s.value.get<bool>();
            c.out.Add(on ? NoteKind::kNotTranslated : NoteKind::kNoMeaning,
                      s.key + " = " + (on ? "true" : "false"), s.where,
                      on ? when_true : when_false);
          }};
}

}  // namespace

std::vector<JsonRule> SharedSandboxRules() {
  const std::string no_sockets = "corral's box reaches no host socket";
  return {
      Domains("network.allowedDomains", false),
      Domains("network.deniedDomains", true),
      EachPath("network.allowUnixSockets", "nothing listed; " + no_sockets,
               [no_sockets](const JsonSetting& s, const std::string& path, JsonContext& c) {
                 c.out.Add(NoteKind::kNotTranslated, s.key + " \"" + path + "\"", s.where,
                           no_sockets + ": a socket can act outside the box (docker.sock "
                                        "starts containers as root)");
               }),
      OffOnly("network.allowAllUnixSockets", "already so: " + no_sockets, no_sockets),
      NoMeaningRule("network.allowLocalBinding", JsonType::kBool,
                    "the box has a network of its own: it may listen on its ports, which "
                    "nothing outside reaches"),
      EachPath("filesystem.denyRead",
               "nothing listed; corral still masks filesystem.deny_read (.env, keys, ...)",
               [](const JsonSetting& s, const std::string& path, JsonContext& c) {
                 TranslateDenyRead(s.key, s.where, path, c.options, c.out, c.outside);
               }),
      EachPath("filesystem.allowWrite", "nothing listed; corral's box writes the project only",
               [](const JsonSetting& s, const std::string& path, JsonContext& c) {
                 TranslateHostPath(s.key, s.where, path, PathUse::kWrite, c.options, c.out);
               }),
      EachPath("filesystem.denyWrite", "nothing listed",
               [](const JsonSetting& s, const std::string& path, JsonContext& c) {
                 TranslateDenyWrite(s.key, s.where, path, c.options, c.out, c.outside);
               }),
      OffOnly("filesystem.allowGitConfig", "already so: .git/config is read-only in the box",
              ".git/config stays read-only in corral's box: it can name programs git runs on "
              "the host"),
  };
}

}  // namespace corral::config_import

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "policy/config/config.h"
#include "policy/matcher/matcher.h"

namespace corral::policy {
namespace {

namespace fs = std::filesystem;

class ConfigTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("corral-config-test-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string Write(const std::string& name, const std::string& text) {
    fs::path path = dir_ / name;
    std::ofstream(path) << text;
    return path.string();
  }

  LoadOptions Options(const std::string& path = "") {
    LoadOptions options;
    options.config_path = path;
    options.getenv = [this](const char* name) -> const char* {
      auto it = env_.find(name);
      return it == env_.end() ? nullptr : it->second.c_str();
    };
    return options;
  }

  fs::path dir_;
  std::map<std::string, std::string> env_;
};

TEST_F(ConfigTest, DefaultsWhenNoFile) {
  env_["XDG_CONFIG_HOME"] = (dir_ / "nowhere").string();
  auto policy = Load(Options());
  ASSERT_TRUE(policy.ok()) << policy.error().message;
  EXPECT_EQ(policy->level, Level::kUnattended);
  EXPECT_EQ(policy->deny_unattended, DefaultDenyList());
  EXPECT_EQ(policy->undetermined, Undetermined::kDeny);
  EXPECT_EQ(policy->dangerous_action, DangerousAction::kWarn);
  EXPECT_EQ(policy->exec_check, ExecCheck::kOn);
  EXPECT_TRUE(policy->config_path.empty());
  EXPECT_EQ(policy->settings.at("level").origin, Origin::kDefault);
}

TEST_F(ConfigTest, EveryKeyHasValidDefaultAndHelp) {
  for (const KeySpec& key : Keys()) {
    auto parsed = nlohmann::json::parse(key.default_json, nullptr, false);
    EXPECT_FALSE(parsed.is_discarded()) << key.name;
    EXPECT_FALSE(key.help.empty()) << key.name;
    for (const auto& item : parsed.is_array() ? parsed : nlohmann::json::array({parsed})) {
      if (key.check && item.is_string()) {
        auto ok = key.check(item.get<std::string>());
        EXPECT_TRUE(ok.ok()) << key.name << ": " << ok.error().message;
      }
    }
    if (key.type == KeyType::kEnum) {
      EXPECT_NE(std::find(key.choices.begin(), key.choices.end(), parsed.get<std::string>()),
                key.choices.end())
          << key.name;
    }
  }
}

TEST_F(ConfigTest, ReadsXdgConfigFile) {
  fs::create_directories(dir_ / "corral");
  Write("corral/config.yaml", "level: always\ndangerous:\n  action: deny-unattended\n");
  env_["XDG_CONFIG_HOME"] = dir_.string();
  auto policy = Load(Options());
  ASSERT_TRUE(policy.ok()) << policy.error().message;
  EXPECT_EQ(policy->level, Level::kAlways);
  EXPECT_EQ(policy->dangerous_action, DangerousAction::kDenyUnattended);
  EXPECT_EQ(policy->settings.at("level").origin, Origin::kFile);
  EXPECT_EQ(policy->settings.at("level").where, (dir_ / "corral/config.yaml").string() + ":1:1");
}

TEST_F(ConfigTest, AcceptsJson) {
  auto path = Write("c.json", R"({"level": "off", "deny_unattended": ["aws", "git push -f"]})");
  auto policy = Load(Options(path));
  ASSERT_TRUE(policy.ok()) << policy.error().message;
  EXPECT_EQ(policy->level, Level::kOff);
  EXPECT_EQ(policy->deny_unattended, (std::vector<std::string>{"aws", "git push -f"}));
}

TEST_F(ConfigTest, PrecedenceDefaultsFileEnvironmentFlags) {
  auto path = Write("c.yaml", "level: always\nundetermined: allow\n");
  env_["CORRAL_LEVEL"] = "off";
  auto options = Options(path);
  auto policy = Load(options);
  ASSERT_TRUE(policy.ok()) << policy.error().message;
  EXPECT_EQ(policy->level, Level::kOff);
  EXPECT_EQ(policy->settings.at("level").origin, Origin::kEnvironment);
  EXPECT_EQ(policy->undetermined, Undetermined::kAllow);

  options.overrides.push_back({"level", "unattended", "--set"});
  policy = Load(options);
  ASSERT_TRUE(policy.ok()) << policy.error().message;
  EXPECT_EQ(policy->level, Level::kUnattended);
  EXPECT_EQ(policy->settings.at("level").origin, Origin::kFlag);
}

TEST_F(ConfigTest, ExecCheckIsReadFromTheFileAndTheEnvironment) {
  auto policy = Load(Options(Write("c.yaml", "exec_check: require\n")));
  ASSERT_TRUE(policy.ok()) << policy.error().message;
  EXPECT_EQ(policy->exec_check, ExecCheck::kRequire);
  env_["CORRAL_EXEC_CHECK"] = "off";
  policy = Load(Options(Write("c.yaml", "exec_check: require\n")));
  ASSERT_TRUE(policy.ok()) << policy.error().message;
  EXPECT_EQ(policy->exec_check, ExecCheck::kOff);
  EXPECT_FALSE(Load(Options(Write("d.yaml", "exec_check: maybe\n"))).ok());
}

TEST_F(ConfigTest, RuntimeAndAProjectsOwnRuntime) {
  auto policy = Load(Options(Write("c.yaml", "runtime: gvisor\n")));
  ASSERT_TRUE(policy.ok()) << policy.error().message;
  EXPECT_EQ(policy->runtime, BoxRuntime::kGvisor);
  EXPECT_EQ(Load(Options())->runtime, BoxRuntime::kDefault);
  EXPECT_FALSE(Load(Options(Write("d.yaml", "runtime: kata\n"))).ok());

  std::string file = Write("p.yaml", "projects:\n  /src/untrusted/:\n    runtime: gvisor\n"
                                     "  /src/mine:\n    runtime: default\n");
  policy = Load(Options(file));
  ASSERT_TRUE(policy.ok()) << policy.error().message;
  EXPECT_EQ(policy->runtime, BoxRuntime::kDefault);
  EXPECT_EQ(ForProject(*policy, "/src/untrusted").runtime, BoxRuntime::kGvisor);
  EXPECT_EQ(ForProject(*policy, "/src/mine").runtime, BoxRuntime::kDefault);
  EXPECT_EQ(ForProject(*policy, "/src/other").runtime, BoxRuntime::kDefault);
  env_["CORRAL_RUNTIME"] = "default";  // given for this run: it stays
  policy = Load(Options(file));
  ASSERT_TRUE(policy.ok()) << policy.error().message;
  EXPECT_EQ(ForProject(*policy, "/src/untrusted").runtime, BoxRuntime::kDefault);
  env_.clear();

  auto wrong = Load(Options(Write("e.yaml", "projects:\n  /src/x:\n    runtime: fast\n")));
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.error().message.find("e.yaml:2:3: projects: /src/x: runtime: expected default "
                                       "or gvisor"),
            std::string::npos)
      << wrong.error().message;
  wrong = Load(Options(Write("f.yaml", "projects:\n  src/x:\n    level: off\n")));
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.error().message.find("is not an absolute folder"), std::string::npos)
      << wrong.error().message;
  wrong = Load(Options(Write("g.yaml", "projects:\n  /src/x:\n    level: off\n")));
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.error().message.find("unknown key 'level' (a project may set: runtime, review)"),
            std::string::npos)
      << wrong.error().message;
}

TEST_F(ConfigTest, AProjectEntryMayAskForReviewMode) {
  auto policy = Load(Options(Write("r.yaml", "projects:\n  /src/ci:\n    review: true\n"
                                             "  /src/mine/:\n    review: no\n"
                                             "  /src/gv:\n    runtime: gvisor\n")));
  ASSERT_TRUE(policy.ok()) << policy.error().message;
  EXPECT_EQ(policy->projects.at("/src/ci").review, std::optional<bool>(true));
  EXPECT_EQ(policy->projects.at("/src/mine").review, std::optional<bool>(false));
  EXPECT_EQ(policy->projects.at("/src/gv").review, std::nullopt);
  auto wrong = Load(Options(Write("rw.yaml", "projects:\n  /src/ci:\n    review: maybe\n")));
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.error().message.find("rw.yaml:2:3: projects: /src/ci: review: expected true or "
                                       "false"),
            std::string::npos)
      << wrong.error().message;
}

TEST_F(ConfigTest, CorralConfigVariableNamesTheFile) {
  env_["CORRAL_CONFIG"] = Write("named.yaml", "level: off\n");
  auto policy = Load(Options());
  ASSERT_TRUE(policy.ok()) << policy.error().message;
  EXPECT_EQ(policy->level, Level::kOff);
}

TEST_F(ConfigTest, EnvironmentListIsCommaSeparatedOrJson) {
  env_["XDG_CONFIG_HOME"] = dir_.string();
  env_["CORRAL_DENY_UNATTENDED"] = "aws, git push --force ,,kubectl";
  auto policy = Load(Options());
  ASSERT_TRUE(policy.ok()) << policy.error().message;
  EXPECT_EQ(policy->deny_unattended,
            (std::vector<std::string>{"aws", "git push --force", "kubectl"}));
  env_["CORRAL_DENY_UNATTENDED"] = R"(["a, b"])";
  policy = Load(Options());
  ASSERT_TRUE(policy.ok()) << policy.error().message;
  EXPECT_EQ(policy->deny_unattended, (std::vector<std::string>{"a, b"}));
}

// "[2001:db8::10]" is how an IPv6 host is written; unquoted, YAML reads it
// as a list of one item, which must not lose its brackets.
TEST_F(ConfigTest, UnquotedBracketedItemKeepsItsBrackets) {
  auto path = Write("c.yaml",
                    "network:\n  allowed_domains:\n    - [2001:db8::10]\n    - \"[2001:db8::11]:8443\"\n"
                    "    - example.com\n");
  auto policy = Load(Options(path));
  ASSERT_TRUE(policy.ok()) << policy.error().message;
  EXPECT_EQ(policy->network.allowed_domains,
            (std::vector<std::string>{"[2001:db8::10]", "[2001:db8::11]:8443", "example.com"}));
  // A real nested list (two items, or a quoted item) is still not a string.
  for (const char* item : {"[a, b]", "[\"2001:db8::10\"]", "[[::1]]"}) {
    path = Write("c.yaml", std::string("network:\n  allowed_domains:\n    - ") + item + "\n");
    policy = Load(Options(path));
    ASSERT_FALSE(policy.ok()) << item;
    EXPECT_NE(policy.error().message.find("is not a string"), std::string::npos) << policy.error().message;
  }
}

TEST_F(ConfigTest, EnvironmentListMayHoldBracketedAddresses) {
  env_["XDG_CONFIG_HOME"] = dir_.string();
  env_["CORRAL_ALLOWED_DOMAINS"] = "[2001:db8::10]";
  auto policy = Load(Options());
  ASSERT_TRUE(policy.ok()) << policy.error().message;
  EXPECT_EQ(policy->network.allowed_domains, (std::vector<std::string>{"[2001:db8::10]"}));
  env_["CORRAL_ALLOWED_DOMAINS"] = "[2001:db8::10]:8443, example.com";
  policy = Load(Options());
  ASSERT_TRUE(policy.ok()) << policy.error().message;
  EXPECT_EQ(policy->network.allowed_domains,
            (std::vector<std::string>{"[2001:db8::10]:8443", "example.com"}));
  env_["CORRAL_ALLOWED_DOMAINS"] = R"(["[::1]", "example.com"])";
  policy = Load(Options());
  ASSERT_TRUE(policy.ok()) << policy.error().message;
  EXPECT_EQ(policy->network.allowed_domains, (std::vector<std::string>{"[::1]", "example.com"}));
  // Meant as JSON (it has quotes) but malformed: an error, not a guess.
  env_["CORRAL_ALLOWED_DOMAINS"] = R"(["[::1]", "example.com")";
  EXPECT_FALSE(Load(Options()).ok());
  env_["CORRAL_ALLOWED_DOMAINS"] = R"([1, 2])";
  EXPECT_FALSE(Load(Options()).ok());
}

TEST_F(ConfigTest, UnknownKeyNamesFileLineColumnAndSuggests) {
  auto path = Write("c.yaml", "level: always\ndangerous:\n  acton: warn\n");
  auto policy = Load(Options(path));
  ASSERT_FALSE(policy.ok());
  EXPECT_EQ(policy.error().message,
            path + ":3:3: unknown key 'dangerous.acton' (did you mean 'dangerous.action'?)");
}

TEST_F(ConfigTest, WrongTypeNamesPosition) {
  auto path = Write("c.yaml", "\ndeny_unattended: aws\n");
  auto policy = Load(Options(path));
  ASSERT_FALSE(policy.ok());
  EXPECT_EQ(policy.error().message, path + ":2:18: deny_unattended: expected a list of strings");
}

TEST_F(ConfigTest, BadEnumValueListsChoices) {
  auto path = Write("c.yaml", "level: sometimes\n");
  auto policy = Load(Options(path));
  ASSERT_FALSE(policy.ok());
  EXPECT_EQ(policy.error().message,
            path + ":1:8: level: 'sometimes' is not one of always, unattended, off");
}

TEST_F(ConfigTest, MalformedYamlNamesPosition) {
  auto path = Write("c.yaml", "level: always\ndeny_unattended: [aws, kubectl\n");
  auto policy = Load(Options(path));
  ASSERT_FALSE(policy.ok());
  EXPECT_TRUE(policy.error().message.starts_with(path + ":")) << policy.error().message;
  EXPECT_NE(policy.error().message.find("fix the YAML syntax"), std::string::npos);
}

TEST_F(ConfigTest, DuplicateKeyIsAnError) {
  auto path = Write("c.yaml", "level: always\nlevel: off\n");
  auto policy = Load(Options(path));
  ASSERT_FALSE(policy.ok());
  EXPECT_EQ(policy.error().message, path + ":2:1: key 'level' appears twice; keep one");
}

TEST_F(ConfigTest, TopLevelMustBeMapping) {
  auto path = Write("c.yaml", "- aws\n");
  auto policy = Load(Options(path));
  ASSERT_FALSE(policy.ok());
  EXPECT_NE(policy.error().message.find("must be a mapping"), std::string::npos);
}

TEST_F(ConfigTest, SectionMustBeMapping) {
  auto path = Write("c.yaml", "network: yes\n");
  auto policy = Load(Options(path));
  ASSERT_FALSE(policy.ok());
  EXPECT_EQ(policy.error().message,
            path + ":1:10: network: expected a mapping of network.* keys");
}

TEST_F(ConfigTest, MissingNamedFileIsAnError) {
  auto policy = Load(Options((dir_ / "absent.yaml").string()));
  ASSERT_FALSE(policy.ok());
  EXPECT_NE(policy.error().message.find("does not exist"), std::string::npos);
}

TEST_F(ConfigTest, BadEnvironmentValueNamesVariable) {
  env_["XDG_CONFIG_HOME"] = dir_.string();
  env_["CORRAL_UNDETERMINED"] = "maybe";
  auto policy = Load(Options());
  ASSERT_FALSE(policy.ok());
  EXPECT_EQ(policy.error().message, "CORRAL_UNDETERMINED: 'maybe' is not one of deny, allow");
}

TEST_F(ConfigTest, UnknownOverrideKeyIsAnError) {
  env_["XDG_CONFIG_HOME"] = dir_.string();
  auto options = Options();
  options.overrides.push_back({"levle", "off", "--set"});
  auto policy = Load(options);
  ASSERT_FALSE(policy.ok());
  EXPECT_EQ(policy.error().message, "--set: unknown key 'levle' (did you mean 'level'?)");
}

TEST_F(ConfigTest, HostsFileForTheProxy) {
  // The file must be there and read as the proxy reads it (see below).
  std::string hosts = Write("corral-hosts", "10.0.0.7 mirror.internal\n");
  auto path = Write("h.yaml", "network:\n  hosts_file: " + hosts + "\n");
  auto policy = Load(Options(path));
  ASSERT_TRUE(policy.ok()) << policy.error().message;
  EXPECT_EQ(policy->network.hosts_file, hosts);
}

TEST_F(ConfigTest, UpstreamCaFileIsCheckedWhenLoaded) {
  // Default "": the host's bundle. A file must hold a PEM certificate.
  env_["XDG_CONFIG_HOME"] = (dir_ / "nowhere").string();
  auto policy = Load(Options());
  ASSERT_TRUE(policy.ok()) << policy.error().message;
  EXPECT_EQ(policy->settings.at("network.upstream_ca_file").value, "");
  std::string ca = Write("ca.pem", "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n");
  env_["CORRAL_UPSTREAM_CA_FILE"] = ca;
  policy = Load(Options());
  ASSERT_TRUE(policy.ok()) << policy.error().message;
  EXPECT_EQ(policy->settings.at("network.upstream_ca_file").value, ca);
  EXPECT_EQ(policy->settings.at("network.upstream_ca_file").origin, Origin::kEnvironment);
  env_["CORRAL_UPSTREAM_CA_FILE"] = Write("key.pem", "-----BEGIN PRIVATE KEY-----\n");
  policy = Load(Options());
  ASSERT_FALSE(policy.ok());
  EXPECT_NE(policy.error().message.find("holds no PEM certificate"), std::string::npos)
      << policy.error().message;
  env_.erase("CORRAL_UPSTREAM_CA_FILE");
  policy = Load(Options(Write("c.yaml", "network:\n  upstream_ca_file: " + ca + ".absent\n")));
  ASSERT_FALSE(policy.ok());
  EXPECT_NE(policy.error().message.find(":2:21: network.upstream_ca_file: cannot read " + ca +
                                        ".absent"),
            std::string::npos)
      << policy.error().message;
}

TEST_F(ConfigTest, IntAndBoolKeys) {
  auto path = Write("c.yaml",
                    "network:\n  max_tunnels: 12\nseccomp:\n  allow_ptrace: true\n");
  auto policy = Load(Options(path));
  ASSERT_TRUE(policy.ok()) << policy.error().message;
  EXPECT_EQ(policy->network.max_tunnels, 12);
  EXPECT_TRUE(policy->seccomp.allow_ptrace);
  path = Write("d.yaml", "network:\n  max_tunnels: lots\n");
  policy = Load(Options(path));
  ASSERT_FALSE(policy.ok());
  EXPECT_NE(policy.error().message.find("not a whole number"), std::string::npos);
}

// The proxy's own rules check every network list as the config is loaded,
// and every bad entry is reported at once, each where it is written.
TEST_F(ConfigTest, EveryBadNetworkEntryIsReportedWhereItIsWritten) {
  auto path = Write("c.yaml",
                    "network:\n"
                    "  allowed_domains: [https://x.com/path, \"*\", \"exa mple.com\", ok.example]\n"
                    "  denied_domains:\n"
                    "    - fine.example\n"
                    "    - \"*.com\"\n"
                    "  allow_addresses: [10.0.0.0/8, 10.0.0.0/33, localhost]\n");
  auto policy = Load(Options(path));
  ASSERT_FALSE(policy.ok());
  EXPECT_EQ(policy.error().message,
            "6 problems in the configuration:\n" +
            path + ":2:21: network.allowed_domains: `https://x.com/path` is a URL: write the host "
                   "alone, `x.com`\n" +
            path + ":2:41: network.allowed_domains: `*` would allow every host: list the hosts, "
                   "or `*.example.com` for a domain's subdomains\n" +
            path + ":2:46: network.allowed_domains: `exa mple.com` has a space: a host name has "
                   "none\n" +
            path + ":5:7: network.denied_domains: `*.com` would allow a whole top-level domain: "
                   "name a domain, as in `*.example.com`\n" +
            path + ":6:33: network.allow_addresses: `10.0.0.0/33` has a prefix length past /32: "
                   "write e.g. `10.0.0.0/8`\n" +
            path + ":6:46: network.allow_addresses: `localhost` is not an IP address or CIDR "
                   "range: write e.g. `10.0.0.5`, `10.0.0.0/8`, `fd00::/8`");
}

// Problems of every kind are collected, not only the first.
TEST_F(ConfigTest, EveryProblemInTheFileIsReported) {
  auto path = Write("c.yaml",
                    "levle: always\n"
                    "undetermined: maybe\n"
                    "undetermined: allow\n"
                    "hold:\n  wait_minutes: lots\n"
                    "presence:\n  sources: [tty, radar]\n"
                    "agents:\n  recipes:\n    mine:\n      hosts: [\"*\"]\n      shel: [x]\n");
  auto policy = Load(Options(path));
  ASSERT_FALSE(policy.ok());
  std::vector<std::string> lines;
  std::istringstream message(policy.error().message);
  for (std::string line; std::getline(message, line);) lines.push_back(line);
  EXPECT_EQ(lines,
            (std::vector<std::string>{
                "7 problems in the configuration:",
                path + ":1:1: unknown key 'levle' (did you mean 'level'?)",
                path + ":2:15: undetermined: 'maybe' is not one of deny, allow",
                path + ":3:1: key 'undetermined' appears twice; keep one",
                path + ":5:17: hold.wait_minutes: 'lots' is not a whole number from 0 to 999999999",
                path + ":11:15: hosts: `*` would allow every host: list the hosts, or "
                       "`*.example.com` for a domain's subdomains",
                path + ":12:7: agents.recipes.mine: unknown field 'shel' (did you mean 'shell'?)",
                "presence.sources (" + path + ":7:3): unknown source 'radar' (known: tty, logind, "
                "heartbeat)"}));
}

// Values from the environment and from flags have no line: the variable or
// the flag is named instead.
TEST_F(ConfigTest, NetworkEntriesFromTheEnvironmentAndFlagsAreCheckedToo) {
  env_["XDG_CONFIG_HOME"] = dir_.string();
  env_["CORRAL_ALLOWED_DOMAINS"] = "ok.example, https://x.com/path";
  env_["CORRAL_ALLOW_ADDRESSES"] = "127.1";
  auto options = Options();
  options.overrides.push_back({"network.denied_domains", R"(["*"])", "--deny"});
  auto policy = Load(options);
  ASSERT_FALSE(policy.ok());
  EXPECT_EQ(policy.error().message,
            "3 problems in the configuration:\n"
            "CORRAL_ALLOWED_DOMAINS: `https://x.com/path` is a URL: write the host alone, `x.com`\n"
            "CORRAL_ALLOW_ADDRESSES: `127.1` is not an IP address or CIDR range: write e.g. "
            "`10.0.0.5`, `10.0.0.0/8`, `fd00::/8`\n"
            "--deny network.denied_domains: `*` would allow every host: list the hosts, or "
            "`*.example.com` for a domain's subdomains");
}

TEST_F(ConfigTest, GoodNetworkEntriesLoad) {
  auto path = Write("c.yaml",
                    "network:\n"
                    "  allowed_domains: [example.com, \"*.pkg.dev\", \"git.example.com:8443\", "
                    "203.0.113.7, \"[2001:db8::10]:22\", bücher.example]\n"
                    "  denied_domains: [\"*.ads.example.com\"]\n"
                    "  allow_addresses: [10.0.0.0/8, \"fd00::/8\", 127.0.0.1]\n");
  auto policy = Load(Options(path));
  ASSERT_TRUE(policy.ok()) << policy.error().message;
  EXPECT_EQ(policy->network.allowed_domains.size(), 6u);
}

TEST_F(ConfigTest, TheHostsFileIsReadWhenTheConfigIsLoaded) {
  std::string hosts = Write("hosts", "127.0.0.2 mirror.test\n");
  auto policy = Load(Options(Write("c.yaml", "network:\n  hosts_file: " + hosts + "\n")));
  ASSERT_TRUE(policy.ok()) << policy.error().message;
  Write("hosts", "127.0.0.2 bad..name\n");
  policy = Load(Options(Write("c.yaml", "network:\n  hosts_file: " + hosts + "\n")));
  ASSERT_FALSE(policy.ok());
  EXPECT_EQ(policy.error().message,
            Write("c.yaml", "network:\n  hosts_file: " + hosts + "\n") + ":2:15: " +
                "network.hosts_file: " + hosts + ": line 1: 'bad..name' is not a host name (fix "
                "the file, or set network.hosts_file to \"\")");
  policy = Load(Options(Write("c.yaml", "network:\n  hosts_file: " + hosts + ".absent\n")));
  ASSERT_FALSE(policy.ok());
  EXPECT_NE(policy.error().message.find("cannot read hosts file " + hosts + ".absent"),
            std::string::npos)
      << policy.error().message;
}

TEST_F(ConfigTest, DenyListFileSkipsCommentsAndBlankLines) {
  auto path = Write("list.txt", "# mine\naws\n\n  git push --force  \n#kubectl\n");
  auto entries = ReadDenyListFile(path);
  ASSERT_TRUE(entries.ok());
  EXPECT_EQ(*entries, (std::vector<std::string>{"aws", "git push --force"}));
  EXPECT_FALSE(ReadDenyListFile((dir_ / "none.txt").string()).ok());
}

}  // namespace
}  // namespace corral::policy

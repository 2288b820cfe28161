// policy/: the user's settings (one key table, YAML/JSON file, environment,
// flags), what the egress proxy accepts in its lists, and the deny-list
// matcher over shell command lines.
// The one public header of policy/.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/base.h"

namespace corral::policy {

// ---------------------------------------------------------------- settings

enum class Level { kAlways, kUnattended, kOff };
enum class Undetermined { kDeny, kAllow };
enum class DangerousAction { kOff, kWarn, kDenyUnattended };
// The exec-time check (docs/exec-check.md): off where the box cannot run it,
// or a session that does not start (kRequire).
enum class ExecCheck { kOn, kRequire, kOff };

enum class Origin { kDefault, kFile, kEnvironment, kFlag };
std::string_view OriginName(Origin origin);

// One key's resolved value and where it came from ("config.yaml:3:8",
// "CORRAL_LEVEL", "--level"), for `corral config show`.
struct Setting {
  nlohmann::json value;
  Origin origin = Origin::kDefault;
  std::string where;
};

// kRecipes: agent names to recipe fields (RecipeFields), a JSON object.
enum class KeyType { kString, kEnum, kStringList, kBool, kInt, kRecipes };

// A row of the one table that defines every configuration key.
struct KeySpec {
  std::string_view name;  // dotted path, e.g. "dangerous.action"
  KeyType type;
  std::string_view default_json;  // JSON text of the default value
  std::string_view env;           // environment variable, "" when none
  std::string_view help;          // one line
  std::vector<std::string_view> choices;  // for kEnum
  // Each item of a list, or a string's value, must pass this (none: any);
  // the error says what is wrong and how to fix it, the loader says where.
  Result<void> (*check)(const std::string& text) = nullptr;
};
const std::vector<KeySpec>& Keys();

struct NetworkPolicy {
  std::vector<std::string> allowed_domains;
  std::vector<std::string> denied_domains;
  std::vector<std::string> allow_addresses;  // IPs or CIDRs
  std::string hosts_file;                    // hosts(5), before the system resolver
  int head_timeout_seconds = 10;
  int connect_timeout_seconds = 10;
  int idle_timeout_seconds = 600;
  int max_tunnels = 4096;
};

struct SeccompPolicy {
  bool allow_ptrace = false;
  std::vector<std::string> allow;  // syscall names the user opens up
  std::vector<std::string> deny;   // syscall names the user closes
};

struct FilesystemPolicy {
  std::vector<std::string> deny_read;       // globs, matched inside the project
  std::vector<std::string> extra_writable;  // host paths
  std::vector<std::string> extra_readonly;  // host paths
};

struct LimitsPolicy {
  int pids = 1024;
  std::string memory = "4g";  // "" for none
  std::string cpus;           // "" for none
  bool require = false;       // a limit the engine cannot enforce stops the session
};

// How the user hears of a refusal while away, besides `corral inbox`.
struct NotifyPolicy {
  bool desktop = true;      // notify-send, where a desktop session can show it
  std::string webhook_url;  // "" = none; a JSON POST per refusal, retried
};

// Where an unattended run may start (DESIGN.md "Where a background run may start").
struct HoldPolicy {
  bool unknown_folders = true;  // off: runs start anywhere (a machine that only runs CI)
  int wait_minutes = 30;        // how long a held run waits; 0 refuses at once
};

struct PresencePolicy {
  std::vector<std::string> sources;  // "tty", "logind", "heartbeat"
  int idle_minutes = 10;
  std::string heartbeat_file;  // "" = <state dir>/heartbeat
};

// A recipe field the config may set under `agents.recipes.NAME` (the
// launcher's agents room gives each its meaning).
enum class RecipeFieldType { kString, kList, kBool };
struct RecipeFieldSpec {
  std::string_view name;
  RecipeFieldType type;
  std::string_view help;  // one line
};
const std::vector<RecipeFieldSpec>& RecipeFields();

// The user's own recipe for an agent: a new agent, or the fields it sets over
// corral's built-in recipe of that name. Only fields written in the config
// are present, keyed by their RecipeFields() name.
struct AgentRecipeConfig {
  std::map<std::string, std::string> strings;
  std::map<std::string, std::vector<std::string>> lists;
  std::map<std::string, bool> flags;
};

struct AgentsPolicy {
  bool ask_first = false;         // boxed agents keep asking (no run-without-asking switch)
  bool own_settings = false;      // each agent's folders under corral's state folder
  std::map<std::string, AgentRecipeConfig> recipes;  // by agent name
  std::string recipes_where;      // where `agents.recipes` was set
};

// The user's policy: immutable once loaded and validated.
struct Policy {
  Level level = Level::kUnattended;
  std::vector<std::string> deny_unattended;
  Undetermined undetermined = Undetermined::kDeny;
  DangerousAction dangerous_action = DangerousAction::kWarn;
  ExecCheck exec_check = ExecCheck::kOn;
  NetworkPolicy network;
  SeccompPolicy seccomp;
  FilesystemPolicy filesystem;
  LimitsPolicy limits;
  std::string image;
  std::string engine;
  std::vector<std::string> pass;  // variable names
  PresencePolicy presence;
  HoldPolicy hold;
  NotifyPolicy notify;
  AgentsPolicy agents;

  std::string config_path;                  // the file read, "" when none
  std::map<std::string, Setting> settings;  // every key, with its origin
};

struct LoadOptions {
  // --config; when empty, CORRAL_CONFIG, then $XDG_CONFIG_HOME/corral/config.yaml
  // (or ~/.config/corral/config.yaml). A missing default file is fine; a
  // missing named file is an error.
  std::string config_path;
  // Flag overrides, highest precedence: key -> value text and the flag's name.
  struct Override {
    std::string key;
    std::string value;
    std::string flag;
  };
  std::vector<Override> overrides;
  // Environment lookup; tests inject a fake. Defaults to std::getenv.
  std::function<const char*(const char*)> getenv;
};

Result<Policy> Load(const LoadOptions& options);

// The config file Load would read ("" when no location can be named), so a
// watcher can notice when it is created or edited.
std::string ResolveConfigPath(const LoadOptions& options);

// The built-in deny list (DESIGN.md "The deny list").
const std::vector<std::string>& DefaultDenyList();

// Reads a deny-list file: one entry per line, blank lines and lines starting
// with '#' ignored.
Result<std::vector<std::string>> ReadDenyListFile(const std::string& path);

// corral's state folder: $XDG_STATE_HOME/corral, else ~/.local/state/corral.
std::string StateDir();

// ---------------------------------------------------------------- network entries

// What the egress proxy accepts (DESIGN.md "The proxy's rules"), in one place:
// the loader checks every network list with these, and netfilter/ matches
// requests with them, so the config, `corral run --print` and a session agree.

struct IpAddress {
  bool v6 = false;
  std::array<uint8_t, 16> bytes{};  // v4 uses the first 4

  bool operator==(const IpAddress&) const = default;
  std::string ToString() const;  // "10.0.0.1", "2001:db8::1" (no brackets)
};

// IPv4 in any spelling browsers and inet_aton accept: 1 to 4 parts, each
// decimal, octal (leading 0) or hex (0x); the last part fills the remaining
// bytes ("127.1", "0x7f000001", "017700000001"). nullopt when not such a form.
std::optional<IpAddress> ParseIpv4AnySpelling(std::string_view text);
// Strict textual IPv6 (inet_pton); no brackets, no zone.
std::optional<IpAddress> ParseIpv6(std::string_view text);
// "1.2.3.4" (strict dotted quad) or an IPv6 text, with or without brackets.
std::optional<IpAddress> ParseIpStrict(std::string_view text);

// The canonical host: one spelling of a request's target, used alike by the
// proxy's matcher, resolver, dialer and forwarded Host header.
struct CanonicalHost {
  // Lower case, one trailing dot removed, IDN labels as punycode; an IP
  // literal in its standard form ("127.0.0.1", "[::1]").
  std::string name;
  std::optional<IpAddress> ip;  // set for IP literals in any spelling
};

// Fails (with a reason fit for a 400 body) on anything ambiguous: empty
// labels, control or URL-special characters, percent-encoding, zone ids,
// numeric-looking names that are not a valid IPv4 spelling, over-long names.
Result<CanonicalHost> Canonicalize(std::string_view raw);

// A decimal port 1..65535: ASCII digits only, no sign, no leading zero.
std::optional<uint16_t> ParsePort(std::string_view digits);

// One entry of network.allowed_domains or network.denied_domains (or a
// recipe's hosts): a canonical name or IP literal, or a wildcard suffix, and
// an optional port.
struct DomainEntry {
  std::string text;        // as written, for messages
  std::string host;        // canonical host; for wildcards the suffix without "*."
  bool wildcard = false;   // "*.host": any subdomain, never the apex
  std::optional<uint16_t> port;
};
// The error says what is wrong and what to write instead ("`*` would allow
// every host: ..."); the caller adds which list and where.
Result<DomainEntry> ParseDomainEntry(std::string_view text);

// One entry of network.allow_addresses: an address or a CIDR range.
struct Cidr {
  std::string text;  // as written
  bool v6 = false;
  uint8_t bytes[16] = {};
  int prefix = 0;
};
Result<Cidr> ParseCidr(std::string_view text);

// hosts(5), as network.hosts_file names it: "ADDRESS NAME [ALIAS...]" lines,
// '#' comments. Names are canonicalized; an address may appear for several
// names and vice versa.
using HostsTable = std::unordered_map<std::string, std::vector<IpAddress>>;
Result<HostsTable> ParseHosts(std::string_view text);
Result<HostsTable> ReadHostsFile(const std::string& path);

// ---------------------------------------------------------------- presence

// What one source says about whether somebody is watching, and why.
struct PresenceReport {
  std::string source;
  bool watching = false;
  std::string detail;
};

// A way to tell that the user is at the machine. Check is bounded in time.
class PresenceSource {
 public:
  virtual ~PresenceSource() = default;
  virtual PresenceReport Check() const = 0;
};

struct PresenceVerdict {
  bool watching = false;  // any source says so; no sources means nobody
  std::vector<PresenceReport> reports;
};

// The real sources named by `presence.sources`; an unknown name is an error.
Result<std::vector<std::unique_ptr<PresenceSource>>> MakePresenceSources(
    const PresencePolicy& policy);
PresenceVerdict CheckPresence(const std::vector<std::unique_ptr<PresenceSource>>& sources);

// The heartbeat file (`corral presence ping` touches it).
std::string HeartbeatPath(const PresencePolicy& policy);
Result<void> TouchHeartbeat(const PresencePolicy& policy);

// ---------------------------------------------------------------- inbox

// A command refused while the user was away, kept until they look.
struct InboxItem {
  std::string time;  // ISO 8601, UTC
  std::string session;
  std::string project;
  std::string agent;
  std::string command;  // kind "host": the host name
  std::string entry;    // the list line, or "" when undetermined/dangerous
  std::string kind = "command";  // or "host": a host the proxy refused
  std::uint64_t times = 1;       // kind "host": refusals in that session
};

// The inbox lives in <state_dir>/inbox.jsonl; both calls take an exclusive
// lock, so concurrent sessions never lose or tear an item.
Result<void> InboxAdd(const std::string& state_dir, const InboxItem& item);
// Returns every item, oldest first; clears the inbox unless `keep`.
Result<std::vector<InboxItem>> InboxTake(const std::string& state_dir, bool keep);

// ---------------------------------------------------------------- matcher

// A word of the input that took part in a match, as the shell sees it after
// quote removal, with its byte range in the original command text.
struct MatchedWord {
  std::string text;
  std::size_t offset = 0;
  std::size_t length = 0;
};

enum class Finding {
  kNone,          // nothing on the list
  kListed,        // a deny-list entry matched
  kUndetermined,  // a program could not be known before running (or a limit hit)
};

struct DangerousMatch {
  std::string category;     // e.g. "recursive-remove", "pipe-to-shell"
  std::string description;  // one line, for people
};

struct MatchResult {
  Finding finding = Finding::kNone;
  std::string entry;               // the list line that matched (kListed)
  std::vector<MatchedWord> words;  // words that matched it, in order
  std::string reason;              // why: listed / undetermined, in words
  std::optional<DangerousMatch> dangerous;
};

// A compiled deny list. Thread-safe to share; Check never throws, crashes or
// takes super-linear time, and fails closed (kUndetermined) past its limits.
class Matcher {
 public:
  // Entries are deny-list lines ("git push --force"); an empty line or one
  // that is not a plain list of words is an error naming it.
  static Result<Matcher> Create(const std::vector<std::string>& entries);

  MatchResult Check(std::string_view command) const;
  bool empty() const;

  Matcher(Matcher&&) noexcept;
  Matcher& operator=(Matcher&&) noexcept;
  ~Matcher();

 private:
  struct Impl;
  explicit Matcher(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// The verdict while nobody is watching, from a match and the policy's
// `undetermined` and `dangerous.action`.
enum class Decision { kAllow, kDeny };
struct Verdict {
  Decision decision = Decision::kAllow;
  std::string message;  // for the agent when refused
};
Verdict DecideUnattended(const MatchResult& match, const Policy& policy, bool list_empty);

// Why a verdict is what it is, as `corral check` and the session record say
// it: the text is prefix + detail.
struct ReasonText {
  std::string_view prefix, detail;
};
ReasonText ReasonFor(const MatchResult& match, const Verdict& verdict);

// ---------------------------------------------------------------- oracle

// The host side of the shim: answers "may this shell command run?" on a
// per-session unix socket (DESIGN.md "Wire format shim <-> oracle").
struct OracleOptions {
  std::string socket_path;      // created mode 0600; the session is known by it
  LoadOptions policy_source;    // reloaded when the config file changes
  std::string deny_list_copy;   // the current list, one entry per line, for the
                                // shim's fallback ("" = none)
  // Told the copy's text each time it is rewritten (a config edit), for a
  // copy kept elsewhere (the network mode's session volume). Called under the
  // oracle's lock on a worker thread: it must return at once. May be empty.
  std::function<void(const std::string& text)> on_deny_list_copy;
  // Given each decision as one JSON line ({"event":"command",...}, the
  // fields of `corral check --json`); called on a worker thread. May be empty.
  std::function<void(std::string_view line)> record;
  std::string inbox_dir;        // refusals while away ("" = no inbox)
  std::string session, project, agent;
  // Somebody is watching; asked only when a command would be refused.
  std::function<bool()> watching;
  // Told of each refusal while away, after the inbox has it (notifications).
  // Called on a worker thread: it must return at once.
  std::function<void(const InboxItem&)> on_refused_while_away;
  int workers = 4;
};

struct OracleStats {
  std::uint64_t allowed = 0;
  std::uint64_t refused = 0;
  std::uint64_t refused_while_away = 0;  // listed or undetermined, nobody watching
};

class Oracle {
 public:
  // Loads the policy, binds the socket and starts answering.
  static Result<std::unique_ptr<Oracle>> Start(OracleOptions options);
  virtual ~Oracle() = default;
  // Stops answering and removes the socket. Idempotent.
  virtual void Stop() = 0;
  virtual OracleStats Stats() const = 0;
};

// One decision, as the oracle makes it (exposed for tests and `corral check`).
struct OracleAnswer {
  Decision decision = Decision::kAllow;
  std::string message;
  MatchResult match;
};
OracleAnswer DecideCommand(const Matcher& matcher, const Policy& policy, std::string_view command,
                           const std::function<bool()>& watching);

}  // namespace corral::policy

// An agent's settings file without the keys that run programs (hooks, key
// helpers, MCP servers started by command, notify programs), for the box's
// own copy. JSON (comments allowed, as the agents allow them) or TOML. The
// text either parses whole or is not copied at all.
#include <toml++/toml.h>

#include <sstream>

#include <nlohmann/json.hpp>

#include "launcher/agents/agents.h"

namespace corral::launcher {
namespace {

// "projects.*.mcpServers.* if command" -> {projects, *, mcpServers, *}, "command".
struct KeyPattern {
  std::vector<std::string> parts;
  std::string only_if;
};

KeyPattern ParsePattern(const std::string& text) {
  KeyPattern pattern;
  std::string path = text;
  if (auto at = text.find(" if "); at != std::string::npos) {
    path = text.substr(0, at);
    pattern.only_if = text.substr(at + 4);
  }
  std::size_t start = 0;
  while (true) {
    std::size_t dot = path.find('.', start);
    pattern.parts.push_back(path.substr(start, dot - start));
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  return pattern;
}

bool Matches(const std::string& part, std::string_view key) { return part == "*" || part == key; }

std::string Joined(const std::string& prefix, std::string_view key) {
  return prefix.empty() ? std::string(key) : prefix + "." + std::string(key);
}

void DropJson(nlohmann::json& node, const KeyPattern& pattern, std::size_t depth,
              const std::string& prefix, std::vector<std::string>& dropped) {
  if (!node.is_object()) return;
  const std::string& part = pattern.parts[depth];
  const bool last = depth + 1 == pattern.parts.size();
  for (auto it = node.begin(); it != node.end();) {
    if (!Matches(part, it.key())) {
      ++it;
      continue;
    }
    std::string path = Joined(prefix, it.key());
    if (!last) {
      DropJson(it.value(), pattern, depth + 1, path, dropped);
      ++it;
    } else if (pattern.only_if.empty() ||
               (it.value().is_object() && it.value().contains(pattern.only_if))) {
      dropped.push_back(path);
      it = node.erase(it);
    } else {
      ++it;
    }
  }
}

void DropToml(toml::table& table, const KeyPattern& pattern, std::size_t depth,
              const std::string& prefix, std::vector<std::string>& dropped) {
  const std::string& part = pattern.parts[depth];
  const bool last = depth + 1 == pattern.parts.size();
  std::vector<std::string> gone;
  for (auto& [key, value] : table) {
    if (!Matches(part, key.str())) continue;
    std::string path = Joined(prefix, key.str());
    if (!last) {
      if (toml::table* inner = value.as_table()) DropToml(*inner, pattern, depth + 1, path, dropped);
      continue;
    }
    const toml::table* entry = value.as_table();
    if (pattern.only_if.empty() || (entry && entry->contains(pattern.only_if))) {
      dropped.push_back(path);
      gone.emplace_back(key.str());
    }
  }
  for (const std::string& key : gone) table.erase(key);
}

}  // namespace

Result<WithoutPrograms> LeaveOutProgramKeys(std::string_view text, bool toml,
                                            const std::vector<std::string>& program_keys) {
  WithoutPrograms out;
  if (toml) {
    toml::table table;
    try {
      table = toml::parse(text);
    } catch (const toml::parse_error& e) {
      return Error("it is not valid TOML (line " + std::to_string(e.source().begin.line) + ": " +
                   std::string(e.description()) + ")");
    }
    for (const std::string& key : program_keys) {
      DropToml(table, ParsePattern(key), 0, "", out.dropped);
    }
    std::ostringstream written;
    written << table << "\n";
    out.text = written.str();
    return out;
  }
  nlohmann::json json;
  try {
    json = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/true,
                                 /*ignore_comments=*/true);
  } catch (const nlohmann::json::parse_error& e) {
    return Error("it is not valid JSON (byte " + std::to_string(e.byte) + ")");
  }
  if (!json.is_object()) return Error("it is not a JSON object");
  for (const std::string& key : program_keys) {
    DropJson(json, ParsePattern(key), 0, "", out.dropped);
  }
  out.text = json.dump(2) + "\n";
  return out;
}

}  // namespace corral::launcher

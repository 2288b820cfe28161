// Codex's config.toml (~/.codex/config.toml), as openai/codex docs/config.md
// documents it: sandbox_mode, approval_policy and [sandbox_workspace_write]
// concern the box; the rest is Codex's own, and Codex still reads it in the box.
#include <toml++/toml.h>

#include <set>

#include "launcher/config_import/config_import.h"

namespace corral::config_import {
namespace {

// Top-level keys of Codex's config that are its own business (model, UI,
// MCP, telemetry, ...), from docs/config.md's reference table and ConfigToml.
const std::set<std::string_view> kCodexOwnKeys = {
    "model", "review_model", "model_provider", "model_providers", "model_context_window",
    "model_auto_compact_token_limit", "model_reasoning_effort", "model_reasoning_summary",
    "model_verbosity", "model_supports_reasoning_summaries", "model_reasoning_summary_format",
    "oss_provider", "personality", "tool_output_token_limit", "notify", "tui", "instructions",
    "developer_instructions", "base_instructions", "compact_prompt",
    "experimental_instructions_file", "experimental_use_exec_command_tool", "features",
    "ghost_snapshot", "mcp_servers", "mcp_oauth_credentials_store", "mcp_oauth_callback_port",
    "project_doc_max_bytes", "project_doc_fallback_filenames", "profile", "history",
    "file_opener", "hide_agent_reasoning", "show_raw_agent_reasoning",
    "check_for_update_on_startup", "chatgpt_base_url", "projects", "tools", "forced_login_method",
    "forced_chatgpt_workspace_id", "cli_auth_credentials_store", "shell_environment_policy",
    "otel", "analytics", "feedback", "web_search", "windows_wsl_setup_acknowledged", "notice",
    "disable_paste_burst", "suppress_unstable_features_warning", "agents", "skills",
    "include_apply_patch_tool", "approvals_reviewer"};

const std::set<std::string_view> kSandboxKeys = {"sandbox_mode", "approval_policy",
                                                 "sandbox_workspace_write"};

struct Context {
  const std::string& path;
  const ImportOptions& options;
  Translation& out;
};

std::string Where(const toml::source_region& source) {
  return source.begin.line ? "line " + std::to_string(source.begin.line) : "";
}

std::string Location(const std::string& path, const toml::source_region& source) {
  return path + ":" + std::to_string(source.begin.line) + ":" +
         std::to_string(source.begin.column);
}

Error WrongType(const Context& c, const toml::node& node, const std::string& key,
                std::string_view expected) {
  return Error(Location(c.path, node.source()) + ": " + key + ": expected " +
               std::string(expected));
}

Result<void> SandboxMode(const toml::node& node, Context& c) {
  auto mode = node.value<std::string>();
  if (!mode) return WrongType(c, node, "sandbox_mode", "a string");
  std::string setting = "sandbox_mode = \"" + *mode + "\"", where = Where(node.source());
  if (*mode == "workspace-write" || *mode == "read-only") {
    // Codex boxes every command; corral's level `always` does too.
    c.out.Set("level", "always", "sandbox_mode (" + where + ")");
    if (*mode == "read-only") {
      c.out.Add(NoteKind::kNotTranslated, setting, where,
                "translated as level: always, but corral's box can always write the project: "
                "it has no read-only mode");
    }
  } else if (*mode == "danger-full-access") {
    c.out.Add(NoteKind::kNotTranslated, setting, where,
              "Codex runs without a sandbox; corral's nearest is level: off (never boxed), "
              "which the import does not write for you: it would turn the box off");
  } else {
    c.out.Add(NoteKind::kUnknown, setting, where,
              "not one of read-only, workspace-write, danger-full-access; left out");
  }
  return Ok();
}

Result<void> ApprovalPolicy(const toml::node& node, Context& c) {
  std::string where = Where(node.source());
  auto policy = node.value<std::string>();
  if (!policy) {
    c.out.Add(NoteKind::kUnknown, "approval_policy", where,
              "a form the importer does not know (it reads a string); left out");
    return Ok();
  }
  std::string setting = "approval_policy = \"" + *policy + "\"";
  if (*policy == "never") {
    c.out.Set("agents.ask_first", false, "approval_policy (" + where + ")");
  } else if (*policy == "untrusted" || *policy == "on-failure" || *policy == "on-request") {
    // Codex asked before acting: keep boxed agents asking.
    c.out.Set("agents.ask_first", true, "approval_policy (" + where + ")");
  } else {
    c.out.Add(NoteKind::kUnknown, setting, where,
              "not one of untrusted, on-failure, on-request, never; left out");
  }
  return Ok();
}

Result<void> WorkspaceWrite(const toml::node& node, Context& c) {
  const toml::table* table = node.as_table();
  if (!table) return WrongType(c, node, "sandbox_workspace_write", "a table");
  for (const auto& [key, value] : *table) {
    std::string name = "sandbox_workspace_write." + std::string(key.str());
    std::string where = Where(value.source());
    if (key == "writable_roots") {
      const toml::array* roots = value.as_array();
      if (!roots) return WrongType(c, value, name, "a list of strings");
      for (const toml::node& root : *roots) {
        auto text = root.value<std::string>();
        if (!text) return WrongType(c, root, name, "a list of strings");
        TranslateHostPath(name, where, *text, PathUse::kWrite, c.options, c.out);
      }
    } else if (key == "network_access") {
      auto on = value.value<bool>();
      if (!on) return WrongType(c, value, name, "true or false");
      c.out.Add(NoteKind::kNotTranslated, name + " = " + (*on ? "true" : "false"), where,
                *on ? "corral's box reaches only the hosts in network.allowed_domains: add "
                      "the ones it needs there"
                    : "no network; corral keeps the hosts it allows now "
                      "(network.allowed_domains: yours, else package registries); the import "
                      "never removes entries: set it to [] yourself to allow none");
    } else if (key == "exclude_tmpdir_env_var" || key == "exclude_slash_tmp") {
      c.out.Add(NoteKind::kNoMeaning, name, where,
                "the box's temporary folders are its own, not the host's");
    } else {
      c.out.Add(NoteKind::kUnknown, name, where,
                "not a Codex setting the importer knows (docs/config.md); left out");
    }
  }
  return Ok();
}

void Profiles(const toml::node& node, Context& c) {
  const toml::table* profiles = node.as_table();
  if (!profiles) return;
  for (const auto& [name, profile] : *profiles) {
    std::string setting = "profiles." + std::string(name.str());
    const toml::table* table = profile.as_table();
    bool sandbox = false;
    if (table) {
      for (const auto& [key, unused] : *table) sandbox |= kSandboxKeys.count(key.str()) > 0;
    }
    c.out.Add(sandbox ? NoteKind::kNotTranslated : NoteKind::kNoMeaning, setting,
              Where(profile.source()),
              sandbox ? "corral has no profiles: only the top-level sandbox settings are "
                        "imported, not this profile's"
                      : "Codex's own setting; Codex reads it itself in the box");
  }
}

}  // namespace

Result<Translation> ImportCodex(const std::string& path, const std::string& text,
                                const ImportOptions& options) {
  toml::table root;
  try {
    root = toml::parse(text, path);
  } catch (const toml::parse_error& e) {
    return Error(Location(path, e.source()) + ": not valid TOML: " + std::string(e.description()));
  }
  Translation out;
  out.format = Format::kCodex;
  Context c{path, options, out};
  for (const auto& [key, value] : root) {
    std::string name(key.str());
    Result<void> done = Ok();
    if (name == "sandbox_mode") done = SandboxMode(value, c);
    else if (name == "approval_policy") done = ApprovalPolicy(value, c);
    else if (name == "sandbox_workspace_write") done = WorkspaceWrite(value, c);
    else if (name == "profiles") Profiles(value, c);
    else if (kCodexOwnKeys.count(name)) {
      out.Add(NoteKind::kNoMeaning, name, Where(value.source()),
              "Codex's own setting; Codex reads it itself in the box");
    } else {
      out.Add(NoteKind::kUnknown, name, Where(value.source()),
              "not a Codex setting the importer knows (docs/config.md); left out");
    }
    if (!done) return done.error();
  }
  return out;
}

}  // namespace corral::config_import

#include "policy/matcher/line_facts.h"

#include <algorithm>

namespace corral::policy {
namespace {

// Past these the facts are not kept and every variable counts as unknown:
// a line that assigns more is not one whose programs should be guessed.
constexpr std::size_t kMaxVariables = 256;
constexpr std::size_t kMaxValues = 16;
constexpr std::size_t kMaxFiles = 64;
constexpr std::size_t kMaxFileBytes = 64 * 1024;

}  // namespace

VariableFacts* Variables::Slot(std::string_view name) {
  if (name == "IFS") ifs_written_ = true;
  auto it = facts_.find(name);
  if (it != facts_.end()) return &it->second;
  if (facts_.size() >= kMaxVariables) {
    overflow_ = true;
    return nullptr;
  }
  return &facts_.emplace(std::string(name), VariableFacts{}).first->second;
}

void Variables::Assign(std::string_view name, std::string_view value,
                       std::uint32_t top_level_pipeline) {
  VariableFacts* facts = Slot(name);
  if (facts == nullptr) return;
  if (facts->values.size() >= kMaxValues) {
    facts->unknown = true;
  } else {
    facts->values.emplace_back(value);
  }
  // One assignment that qualifies is enough: a few are kept.
  if (top_level_pipeline != 0 && facts->set_by.size() < 8) {
    facts->set_by.push_back(top_level_pipeline);
  }
}

void Variables::MarkUnknown(std::string_view name) {
  VariableFacts* facts = Slot(name);
  if (facts != nullptr) facts->unknown = true;
}

const VariableFacts* Variables::Find(std::string_view name) const {
  auto it = facts_.find(name);
  return it == facts_.end() ? nullptr : &it->second;
}

const std::string* Variables::Latest(std::string_view name) const {
  const VariableFacts* facts = Find(name);
  return facts == nullptr || facts->values.empty() ? nullptr : &facts->values.back();
}

void CalledNames::Add(std::string_view name) {
  if (few_used_ + more_.size() >= kMaxNames || Contains(name)) return;
  if (few_used_ < kFew) {
    few_[few_used_++].assign(name);
  } else {
    more_.emplace(name);
  }
}

bool CalledNames::Contains(std::string_view name) const {
  for (std::size_t i = 0; i < few_used_; ++i) {
    if (few_[i] == name) return true;
  }
  return !more_.empty() && more_.find(name) != more_.end();  // no hash while unused
}

std::string NormalPath(std::string_view path) {
  std::string out;
  for (std::size_t i = 0; i < path.size(); ++i) {
    if (path[i] == '/' && !out.empty() && out.back() == '/') continue;
    out += path[i];
  }
  while (out.starts_with("./")) out.erase(0, 2);
  return out;
}

std::size_t WrittenFiles::Write(std::string_view path, WrittenFile::Kind kind,
                                std::string_view content, bool append, std::size_t entry) {
  std::string normal = NormalPath(path);
  if (normal.empty() || normal.starts_with("/dev/") || normal.starts_with("/proc/")) return 0;
  WrittenFile file{normal, kind, std::string(content), entry};
  if (append && kind == WrittenFile::Kind::kText) {
    auto it = std::find_if(files_.rbegin(), files_.rend(),
                           [&](const WrittenFile& f) { return f.path == normal; });
    if (it != files_.rend() && it->kind == WrittenFile::Kind::kText) {
      file.content = it->content + file.content;
    } else if (it != files_.rend()) {
      file.kind = it->kind;
      file.entry = it->entry;
    }
  }
  if (file.content.size() > kMaxFileBytes) {
    file.kind = WrittenFile::Kind::kUnknown;
    file.content.clear();
  }
  if (files_.size() >= kMaxFiles) {
    overflow_ = true;
    return 0;
  }
  std::size_t kept = file.content.size();
  files_.push_back(std::move(file));
  return kept;
}

const WrittenFile* WrittenFiles::Find(std::string_view path, bool named) const {
  static const WrittenFile kForgotten{"", WrittenFile::Kind::kUnknown, "", 0};
  std::string normal = NormalPath(path);
  for (auto it = files_.rbegin(); it != files_.rend(); ++it) {
    if (it->path == normal) return &*it;
  }
  std::string_view base = shell::Basename(normal);
  if (base.empty()) return nullptr;
  for (auto it = files_.rbegin(); it != files_.rend(); ++it) {
    if (shell::Basename(it->path) == base) return &*it;
  }
  return overflow_ && named ? &kForgotten : nullptr;
}

const WrittenFile* WrittenFiles::FindUnder(std::string_view folder) const {
  std::string prefix = NormalPath(folder);
  if (!prefix.empty() && prefix.back() != '/') prefix += '/';
  for (auto it = files_.rbegin(); it != files_.rend(); ++it) {
    if (it->path.starts_with(prefix) || it->path.find("/" + prefix) != std::string::npos) {
      return &*it;
    }
  }
  return nullptr;
}

}  // namespace corral::policy

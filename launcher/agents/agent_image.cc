// An agent's image: its tag, the version it holds (the one asked for, the
// recipe's pin, the host's own, the newest built, the registry's latest),
// and corral's images on the engine. Building is agent_image_build.cc.
#include <sys/stat.h>
#include <algorithm>
#include <cctype>
#include <chrono>
#include <filesystem>
#include <fstream>

#include "launcher/agents/agents.h"
#include "launcher/engine/engine.h"

namespace corral::launcher {
namespace {

bool Digit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }

// "1.2.0-beta.1" -> {"1.2.0", "beta.1"}; "+build" metadata is ignored.
std::pair<std::string, std::string> SplitRelease(const std::string& version) {
  std::string v = version.substr(0, version.find_first_of("+_"));
  auto dash = v.find('-');
  if (dash == std::string::npos) return {v, ""};
  return {v.substr(0, dash), v.substr(dash + 1)};
}

// Dot-separated parts, numbers compared as numbers, words as text.
int CompareParts(const std::string& a, const std::string& b) {
  std::size_t i = 0, j = 0;
  while (i < a.size() || j < b.size()) {
    std::size_t i_end = std::min(a.find('.', i), a.size());
    std::size_t j_end = std::min(b.find('.', j), b.size());
    std::string x = i < a.size() ? a.substr(i, i_end - i) : "";
    std::string y = j < b.size() ? b.substr(j, j_end - j) : "";
    bool x_number = !x.empty() && std::all_of(x.begin(), x.end(), Digit);
    bool y_number = !y.empty() && std::all_of(y.begin(), y.end(), Digit);
    int order = 0;
    if (x.empty() != y.empty()) {
      order = x.empty() ? -1 : 1;  // "1.2" < "1.2.1"
    } else if (x_number && y_number) {
      x.erase(0, std::min(x.find_first_not_of('0'), x.size() - 1));
      y.erase(0, std::min(y.find_first_not_of('0'), y.size() - 1));
      order = x.size() != y.size() ? (x.size() < y.size() ? -1 : 1) : x.compare(y);
    } else if (x_number != y_number) {
      order = x_number ? -1 : 1;  // a number sorts before a word, as semver says
    } else {
      order = x.compare(y);
    }
    if (order != 0) return order < 0 ? -1 : 1;
    i = i_end + 1;
    j = j_end + 1;
  }
  return 0;
}

}  // namespace

std::string AgentImageTag(const std::string& agent, const std::string& version) {
  std::string tag_version = version;
  std::replace(tag_version.begin(), tag_version.end(), '+', '_');
  return kAgentImagePrefix + agent + ":" + tag_version;
}

std::string VersionIn(const std::string& text) {
  auto word_char = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '+' ||
           c == '_';
  };
  for (std::size_t i = 0; i < text.size();) {
    if (!word_char(text[i])) {
      ++i;
      continue;
    }
    std::size_t end = i;
    while (end < text.size() && word_char(text[end])) ++end;
    std::string word = text.substr(i, end - i);
    i = end;
    if (word.size() > 1 && (word[0] == 'v' || word[0] == 'V') && Digit(word[1])) word.erase(0, 1);
    std::size_t digits = 0;
    while (digits < word.size() && Digit(word[digits])) ++digits;
    if (digits == 0 || digits + 1 >= word.size() || word[digits] != '.' ||
        !Digit(word[digits + 1])) {
      continue;  // "codex-cli", "22", "1.x": not a version
    }
    while (!word.empty() && !std::isalnum(static_cast<unsigned char>(word.back()))) word.pop_back();
    return word;
  }
  return "";
}

int CompareVersions(const std::string& a, const std::string& b) {
  auto [a_release, a_pre] = SplitRelease(a);
  auto [b_release, b_pre] = SplitRelease(b);
  if (int order = CompareParts(a_release, b_release); order != 0) return order;
  if (a_pre.empty() != b_pre.empty()) return a_pre.empty() ? 1 : -1;
  return CompareParts(a_pre, b_pre);
}

Result<AgentVersion> ChooseAgentVersion(const Recipe& recipe, const std::string& asked,
                                        const VersionSources& sources) {
  if (!asked.empty()) return AgentVersion{asked, "--version"};
  if (!recipe.version.empty()) return AgentVersion{recipe.version, "the recipe"};
  std::string binary = recipe.binary.empty() ? recipe.name : recipe.binary;
  if (sources.host_output) {
    if (auto output = sources.host_output(binary)) {
      if (std::string version = VersionIn(*output); !version.empty()) {
        return AgentVersion{version, "this host's " + binary};
      }
    }
  }
  if (sources.built) {
    auto built = sources.built(recipe.name);
    if (!built) return built.error().Context("listing the images already built");
    std::string newest;
    for (const std::string& version : *built) {
      if (VersionIn(version) == version &&
          (newest.empty() || CompareVersions(version, newest) > 0)) {
        newest = version;
      }
    }
    if (!newest.empty()) return AgentVersion{newest, "the newest image built"};
  }
  if (recipe.package.empty()) return AgentVersion{"latest", "its installer"};
  auto latest = sources.registry_latest(recipe.package);
  if (!latest) {
    return latest.error().Context("finding the latest version of " + recipe.package +
                                  " (name one with --version, or pin it in the recipe)");
  }
  return AgentVersion{*latest, "the npm registry"};
}

static std::string ProgramIdentity(const std::string& path) {
  std::error_code ec;
  std::string real = std::filesystem::canonical(path, ec).string();
  struct stat st {};
  if (ec || ::stat(real.c_str(), &st) != 0) return "";
  return real + " " + std::to_string(st.st_size) + " " + std::to_string(st.st_mtim.tv_sec) + "." +
         std::to_string(st.st_mtim.tv_nsec);
}

VersionSources HostVersionSources(Engine* engine) {
  VersionSources sources;
  // `BINARY --version` costs a node start (about 0.1 s) on every run: its
  // answer is kept beside the program's identity (resolved path, size,
  // mtime), so an update of the program asks again.
  sources.host_output = [](const std::string& binary) -> std::optional<std::string> {
    std::string path = FindInPath(binary);
    if (path.empty()) return std::nullopt;
    std::string identity = ProgramIdentity(path);
    std::string cache = policy::StateDir() + "/host-versions/" + binary;
    if (!identity.empty()) {
      std::string kept = ReadWholeFile(cache).value_or("");
      std::size_t newline = kept.find('\n');
      if (newline != std::string::npos && kept.substr(0, newline) == identity) {
        return kept.substr(newline + 1);
      }
    }
    auto ran = RunCapture({binary, "--version"}, std::chrono::seconds(10));
    if (!ran || ran->exit_status != 0) return std::nullopt;
    if (!identity.empty() && !VersionIn(ran->out).empty()) {
      std::error_code ec;
      std::filesystem::create_directories(policy::StateDir() + "/host-versions", ec);
      std::ofstream(cache + ".tmp") << identity << "\n" << ran->out;
      std::filesystem::rename(cache + ".tmp", cache, ec);
    }
    return ran->out;
  };
  if (engine != nullptr) {
    sources.built = [engine](const std::string& agent) -> Result<std::vector<std::string>> {
      auto images = ListCorralImages(*engine);
      if (!images) return images.error();
      std::vector<std::string> versions;
      for (const CorralImage& image : *images) {
        if (image.agent == agent) versions.push_back(image.version);
      }
      return versions;
    };
  }
  sources.registry_latest = [](const std::string& package) -> Result<std::string> {
    if (FindInPath("npm").empty()) return Error("npm is not installed on this host");
    // npm reads the user's registry and CA settings (~/.npmrc, npm_config_*).
    auto ran = RunCapture({"npm", "view", package, "version"}, std::chrono::seconds(60));
    if (!ran) return ran.error();
    std::string version(Trim(ran->out));
    if (ran->exit_status != 0 || VersionIn(version) != version) {
      return Error("`npm view " + package + " version` failed (exit " +
                   std::to_string(ran->exit_status) + "): is the npm registry reachable?");
    }
    return version;
  };
  return sources;
}

Result<std::string> AgentImageVersion(Engine* engine, const Recipe& recipe,
                                      const std::string& asked) {
  auto chosen = ChooseAgentVersion(recipe, asked, HostVersionSources(engine));
  if (!chosen) return chosen.error();
  return chosen->version;
}

std::string ShortTag(const std::string& tag) {
  for (const char* registry : {"docker.io/library/", "localhost/"}) {
    if (tag.rfind(registry, 0) == 0) return tag.substr(std::string(registry).size());
  }
  return tag;
}

Result<std::vector<CorralImage>> ListCorralImages(Engine& engine) {
  auto listed = engine.ListImages();
  if (!listed) return listed.error();
  std::vector<CorralImage> images;
  for (const auto& entry : *listed) {
    const auto& tags = entry.value("RepoTags", nlohmann::json::array());
    if (!tags.is_array()) continue;
    for (const auto& repo_tag : tags) {
      if (!repo_tag.is_string()) continue;
      std::string tag = ShortTag(repo_tag.get<std::string>());
      auto colon = tag.rfind(':');
      if (colon == std::string::npos) continue;
      std::string name = tag.substr(0, colon);
      bool agent = name.rfind(kAgentImagePrefix, 0) == 0;
      bool base = name == "corral-debian" || name == "corral-ubuntu";  // made by mmdebstrap
      if (!agent && !base && name != "corral") continue;
      CorralImage image;
      image.tag = tag;
      image.version = tag.substr(colon + 1);
      if (agent && name != std::string(kAgentImagePrefix) + "tools") {
        image.agent = name.substr(std::string(kAgentImagePrefix).size());
      }
      image.id = entry.value("Id", "");
      if (entry.contains("Size") && entry["Size"].is_number()) image.size = entry["Size"];
      if (entry.contains("Created") && entry["Created"].is_number()) {
        image.created = entry["Created"];
      }
      images.push_back(std::move(image));
    }
  }
  std::sort(images.begin(), images.end(),
            [](const CorralImage& a, const CorralImage& b) { return a.tag < b.tag; });
  return images;
}

}  // namespace corral::launcher

// Building an agent's image through the engine's API, in three layers that
// agents share all but the last of: the Debian base, the tools layer
// (Dockerfile.tools), the agent (Dockerfile). The Dockerfiles are compiled
// into corral (AgentImageFiles); the context of each build is a small tar
// made here, with the host's CA bundle, so downloads work behind a
// TLS-inspecting network, and the npm registry the user's npm uses.
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <thread>

#include "base/report.h"
#include "launcher/agents/agents.h"
#include "launcher/engine/engine.h"

namespace corral::launcher {
namespace {

namespace fs = std::filesystem;

constexpr const char* kDebianSlim = "debian:bookworm-slim";

struct ContextFile {
  std::string name;
  std::string bytes;
  unsigned mode = 0644;
};

// One ustar header block (names here are short: no long-name records).
std::string TarHeader(const ContextFile& file) {
  char block[512] = {};
  std::snprintf(block, 100, "%s", file.name.c_str());
  std::snprintf(block + 100, 8, "%07o", file.mode);
  std::snprintf(block + 108, 8, "%07o", 0);
  std::snprintf(block + 116, 8, "%07o", 0);
  std::snprintf(block + 124, 12, "%011llo", static_cast<unsigned long long>(file.bytes.size()));
  std::snprintf(block + 136, 12, "%011o", 0);  // mtime 0: the same bytes, the same cache key
  block[156] = '0';
  std::memcpy(block + 257, "ustar", 6);  // the magic with its NUL, then version "00"
  std::memcpy(block + 263, "00", 2);
  std::memset(block + 148, ' ', 8);
  unsigned sum = 0;
  for (unsigned char c : block) sum += c;
  std::snprintf(block + 148, 8, "%06o", sum);
  return std::string(block, sizeof block);
}

// The context as a tar in a memory file, read from its start.
Result<UniqueFd> ContextTar(const std::vector<ContextFile>& files) {
  std::string tar;
  for (const ContextFile& file : files) {
    tar += TarHeader(file);
    tar += file.bytes;
    tar.append((512 - file.bytes.size() % 512) % 512, '\0');
  }
  tar.append(1024, '\0');
  UniqueFd fd(::memfd_create("corral-agent-context", MFD_CLOEXEC));
  if (!fd.valid() || !WriteAll(fd.get(), tar.data(), tar.size()) ||
      ::lseek(fd.get(), 0, SEEK_SET) != 0) {
    return Error::FromErrno("cannot make the build context");
  }
  return fd;
}

std::string CacheFolder() {
  const char* home = std::getenv("HOME");
  const char* cache_home = std::getenv("XDG_CACHE_HOME");
  return cache_home && *cache_home ? std::string(cache_home) + "/corral"
                                   : std::string(home ? home : "/tmp") + "/.cache/corral";
}

Result<std::string> ReadBytes(const std::string& path, const std::string& what) {
  auto bytes = ReadWholeFile(path);
  if (!bytes)
    return Error::FromErrno("cannot read " + what + " (" + path + ")", bytes.error().code);
  return bytes;
}

std::string Embedded(std::string_view name) {
  for (const auto& [file, bytes] : AgentImageFiles()) {
    if (file == name) return std::string(bytes);
  }
  return "";
}

// The value of `ARG NAME=value` in a Dockerfile, "" when absent.
std::string ArgDefault(const std::string& dockerfile, const std::string& name) {
  std::string wanted = "\nARG " + name + "=";
  auto at = dockerfile.find(wanted);
  if (at == std::string::npos) return "";
  at += wanted.size();
  return dockerfile.substr(at, dockerfile.find('\n', at) - at);
}

// 8 hex digits of FNV-1a: a cache key, not a security check.
std::string ShortHash(std::string_view text) {
  std::uint32_t hash = 2166136261u;
  for (unsigned char c : text) hash = (hash ^ c) * 16777619u;
  char out[9];
  std::snprintf(out, sizeof out, "%08x", hash);
  return out;
}

// The registry the user's npm uses (npm_config_registry, ~/.npmrc, npm's
// global config), asked of npm itself; npm's default without npm.
std::string NpmRegistry() {
  if (!FindInPath("npm").empty()) {
    auto ran = RunCapture({"npm", "config", "get", "registry"}, std::chrono::seconds(30));
    if (ran && ran->exit_status == 0) {
      std::string url = ran->out.substr(0, ran->out.find_first_of("\r\n"));
      if (url.rfind("http", 0) == 0) return url;
    }
  }
  return "https://registry.npmjs.org/";
}

double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// The engine's word on a failed step, without the step's whole script:
// Docker says "The command '/bin/sh -c ...' returned a non-zero code: 1",
// Podman "... while running runtime: exit status 1".
std::string FailedStep(const std::string& message) {
  for (const char* said : {"returned a non-zero code: ", "exit status "}) {
    auto at = message.rfind(said);
    if (at != std::string::npos) {
      return "a step exited with status " + message.substr(at + std::strlen(said)) +
             " (its last lines are above)";
    }
  }
  return message;
}

Result<void> BuildLayer(Engine& engine, const std::string& tag, const std::string& what,
                        const std::vector<ContextFile>& files, const BuildOptions& options) {
  report::Line("corral: building " + tag + " (" + what + ") on " + engine.name());
  auto start = std::chrono::steady_clock::now();
  auto context = ContextTar(files);
  if (!context) return context.error();
  if (auto built = BuildShowingProgress(engine, context->get(), tag, options); !built) {
    return Error("the image " + tag + " did not build: " + FailedStep(built.error().message) +
                 "; nothing was tagged, so the next run builds it again");
  }
  report::Line("corral: built " + tag + " in " + report::Seconds(SecondsSince(start)));
  return Ok();
}

// The OS this host runs ("debian", "bookworm"), from /etc/os-release.
std::pair<std::string, std::string> HostRelease() {
  std::ifstream in("/etc/os-release");
  std::string id, codename;
  for (std::string line; std::getline(in, line);) {
    auto value = [&](const char* key) {
      std::string v = line.substr(std::string(key).size());
      v.erase(std::remove(v.begin(), v.end(), '"'), v.end());
      return v;
    };
    if (line.rfind("ID=", 0) == 0) id = value("ID=");
    if (line.rfind("VERSION_CODENAME=", 0) == 0) codename = value("VERSION_CODENAME=");
  }
  return {id, codename};
}

// Debian from this host's own package sources, where no registry gives
// debian:bookworm-slim: made once with mmdebstrap, kept in ~/.cache/corral,
// imported into the engine as corral-ID:CODENAME.
Result<std::string> MakeBaseImage(Engine& engine, const std::string& ca_bundle) {
  auto [id, codename] = HostRelease();
  if (id.empty() || codename.empty()) {
    return Error(
        "this host's /etc/os-release names no Debian or Ubuntu release to make a base "
        "image from; pull " +
        std::string(kDebianSlim) + " into the engine instead");
  }
  std::string tag = "corral-" + id + ":" + codename;
  auto exists = engine.ImageExists(tag);
  if (!exists) return exists.error();
  if (*exists) return tag;
  std::string cache = CacheFolder();
  std::string tarball = cache + "/corral-" + id + "-" + codename + ".tar";
  if (!fs::exists(tarball)) {
    if (FindInPath("mmdebstrap").empty()) {
      return Error("no registry gives " + std::string(kDebianSlim) +
                   " and mmdebstrap is not "
                   "installed to make it from this host's package sources: apt-get install "
                   "mmdebstrap, or pull the image into the engine");
    }
    std::string sources;
    for (const char* path : {"/etc/apt/sources.list.d/debian.sources",
                             "/etc/apt/sources.list.d/ubuntu.sources", "/etc/apt/sources.list"}) {
      std::error_code ec;
      if (fs::file_size(path, ec) > 0 && !ec) {
        sources = path;
        break;
      }
    }
    report::Line(std::string("corral: no registry gives ") + kDebianSlim + ": making " + tag +
                 " from this host's package sources (" +
                 (sources.empty() ? "apt's default mirror" : sources) + ") with mmdebstrap, once (" +
                 tarball + ")");
    std::error_code ec;
    fs::create_directories(cache, ec);
    std::vector<std::string> argv = {
        "sh", "-c", "exec \"$@\" 2>&1", "mmdebstrap", "mmdebstrap", "--variant=minbase",
        "--format=tar", "--quiet", "--aptopt=Acquire::https::CAInfo \"" + ca_bundle + "\"",
        // What debian:bookworm-slim leaves out too.
        "--dpkgopt=path-exclude=/usr/share/man/*", "--dpkgopt=path-exclude=/usr/share/locale/*",
        "--dpkgopt=path-exclude=/usr/share/doc/*",
        "--dpkgopt=path-include=/usr/share/doc/*/copyright", codename, tarball + ".part"};
    if (!sources.empty()) argv.push_back(sources);
    auto start = std::chrono::steady_clock::now();
    auto ran = RunCapture(argv, std::chrono::minutes(20));
    // apt could not reach the mirror, or it answered 5xx: tried again, twice.
    // Any other failure is the same the next time.
    for (int wait_s : {20, 60}) {
      if (!ran || ran->exit_status == 0) break;
      AptFailure failure = ReadAptFailure(ran->out);
      if (!failure.transient) break;
      report::Line("corral: mmdebstrap could not download from the package mirror:");
      for (const std::string& line : failure.lines) report::Line("  " + line);
      report::Line("corral: trying again in " + std::to_string(wait_s) + " s");
      std::this_thread::sleep_for(std::chrono::seconds(wait_s));
      ran = RunCapture(argv, std::chrono::minutes(20));
    }
    if (!ran || ran->exit_status != 0) {
      fs::remove(tarball + ".part", ec);
      if (!ran) return ran.error().Context("mmdebstrap could not make the base image");
      std::string said;
      for (const std::string& line : ReadAptFailure(ran->out).lines) said += "\n  " + line;
      return Error("mmdebstrap could not make the base image (exit status " +
                   std::to_string(ran->exit_status) + "):" + said);
    }
    fs::rename(tarball + ".part", tarball, ec);
    if (ec) return Error("cannot keep " + tarball + ": " + ec.message());
    report::Line("corral: made " + tarball + " in " + report::Seconds(SecondsSince(start)));
  }
  UniqueFd tar(::open(tarball.c_str(), O_RDONLY | O_CLOEXEC));
  if (!tar.valid()) return Error::FromErrno("cannot read " + tarball);
  report::Line("corral: importing " + tarball + " into " + engine.name() + " as " + tag);
  if (auto imported = engine.Import(tar.get(), tag); !imported) return imported.error();
  return tag;
}

// debian:bookworm-slim when the engine has it or can pull it; else made here.
Result<std::string> EnsureBaseImage(Engine& engine, const std::string& ca_bundle) {
  auto exists = engine.ImageExists(kDebianSlim);
  if (!exists) return exists.error();
  if (*exists) return std::string(kDebianSlim);
  auto [id, codename] = HostRelease();
  if (auto made = engine.ImageExists("corral-" + id + ":" + codename); made && *made) {
    return "corral-" + id + ":" + codename;
  }
  if (engine.Pull(kDebianSlim)) return std::string(kDebianSlim);
  return MakeBaseImage(engine, ca_bundle);
}

// A developer's build carries debug information (corral: about 100 MB) that
// an image has no use for: `strip --strip-debug` drops it when binutils is
// there; else the program goes as it is.
std::string WithoutDebugInfo(const std::string& path, std::string bytes) {
  if (FindInPath("strip").empty()) return bytes;
  char temp[] = "/tmp/corral-stripped-XXXXXX";
  UniqueFd fd(::mkstemp(temp));
  if (!fd.valid()) return bytes;
  auto ran = RunCapture({"strip", "--strip-debug", "-o", temp, path}, std::chrono::seconds(60));
  auto stripped = ReadBytes(temp, "corral, stripped");
  ::unlink(temp);
  if (!ran || ran->exit_status != 0 || !stripped || stripped->empty()) return bytes;
  return std::move(*stripped);
}

// The host's CA bundle and corral's programs for the box, as context files.
Result<std::vector<ContextFile>> HostFiles(const std::string& ca_bundle,
                                           const std::string& shim_path,
                                           const std::string& shell_path) {
  auto ca = ReadBytes(ca_bundle, "the host's CA bundle, which the build trusts");
  if (!ca) return ca.error();
  auto shim = ProgramWithoutDebugInfo(shim_path);
  if (!shim) return shim.error();
  auto shell = ProgramWithoutDebugInfo(shell_path);
  if (!shell) return shell.error();
  return std::vector<ContextFile>{{"build-ca.crt", std::move(*ca)},
                                  {"corral-shim", std::move(*shim), 0755},
                                  {"corral-shell", std::move(*shell), 0755}};
}

}  // namespace

Result<std::string> ProgramWithoutDebugInfo(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return Error::FromErrno("cannot read " + path);
  // Kept by the program's size and time: stripping a developer's 30 MB shim
  // costs more than a session's whole start.
  std::string name = path.substr(path.rfind('/') + 1);
  std::string cached = CacheFolder() + "/stripped/" + name + "-" +
                       ShortHash(path + " " + std::to_string(st.st_size) + " " +
                                 std::to_string(st.st_mtim.tv_sec) + "." +
                                 std::to_string(st.st_mtim.tv_nsec));
  if (auto bytes = ReadBytes(cached, name); bytes && !bytes->empty()) return bytes;
  auto bytes = ReadBytes(path, name);
  if (!bytes) return bytes.error();
  std::string stripped = WithoutDebugInfo(path, std::move(*bytes));
  std::error_code ec;
  fs::create_directories(CacheFolder() + "/stripped", ec);
  std::string temp = cached + ".tmp" + std::to_string(::getpid());
  if (std::ofstream out(temp, std::ios::binary); out.write(stripped.data(), stripped.size())) {
    out.close();
    fs::rename(temp, cached, ec);
  }
  fs::remove(temp, ec);
  PruneStripped(CacheFolder() + "/stripped", name, kStrippedKept);
  return stripped;
}

void PruneStripped(const std::string& folder, const std::string& name, std::size_t keep) {
  std::vector<std::pair<fs::file_time_type, fs::path>> copies;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(folder, ec)) {
    std::string file = entry.path().filename().string();
    // NAME-HASH: another program's name may extend this one (corral-shim-x).
    if (file.rfind(name + "-", 0) != 0 || file.find('-', name.size() + 1) != std::string::npos ||
        file.find('.') != std::string::npos) {
      continue;
    }
    auto time = entry.last_write_time(ec);
    if (!ec) copies.emplace_back(time, entry.path());
  }
  if (copies.size() <= keep) return;
  std::sort(copies.begin(), copies.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  for (std::size_t i = keep; i < copies.size(); ++i) fs::remove(copies[i].second, ec);
}

BaseImagePlan PlanBaseImage(Engine& engine) {
  auto [id, codename] = HostRelease();
  std::string made = "corral-" + id + ":" + codename;
  if (auto slim = engine.ImageExists(kDebianSlim); slim && *slim) {
    return {kDebianSlim, std::string(kDebianSlim) + " (on the engine)", true, ""};
  }
  if (auto own = engine.ImageExists(made); own && *own) {
    return {made, made + " (made earlier from this host's package sources)", true, ""};
  }
  std::string how = std::string(kDebianSlim) +
                    " when a registry gives it, else made from this host's package sources with "
                    "mmdebstrap";
  std::string pull =
      "or load " + std::string(kDebianSlim) + " into the engine (docker load, podman load)";
  if (id.empty() || codename.empty()) {
    return {kDebianSlim, how, false,
            "this host's /etc/os-release names no Debian or Ubuntu release for mmdebstrap: " + pull};
  }
  if (FindInPath("mmdebstrap").empty()) {
    return {made, how, false, "apt-get install mmdebstrap, " + pull};
  }
  return {made, how, true, ""};
}

std::string DescribeAgentImage(Engine& engine, const std::string& tag) {
  if (auto built = engine.ImageExists(tag); built && *built) return "image " + tag + ": built";
  return "image " + tag + ": not built yet; the first run builds it on " +
         PlanBaseImage(engine).how + ", then the shared tools layer and the agent";
}

Result<std::string> EnsureCorralImage(Engine& engine, const std::string& version,
                                      const std::string& corral_path, const std::string& ca_bundle,
                                      const std::string& shim_path, const std::string& shell_path) {
  // Tagged by this build, not only its version: a sidecar must run the
  // corral that asks it (its relay speaks this build's protocol), so a new
  // build of the same version gets an image of its own.
  std::string identity;
  for (const std::string& path : {corral_path, shim_path, shell_path}) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) return Error::FromErrno("cannot read " + path);
    identity += path.substr(path.rfind('/') + 1) + " " + std::to_string(st.st_size) + " " +
                std::to_string(st.st_mtim.tv_sec) + "." + std::to_string(st.st_mtim.tv_nsec) +
                "\n";
  }
  std::string tag = "corral:" + version + "-" + ShortHash(identity);
  auto exists = engine.ImageExists(tag);
  if (!exists) return exists.error();
  if (*exists) return tag;
  auto files = HostFiles(ca_bundle, shim_path, shell_path);
  if (!files) return files.error();
  auto corral = ReadBytes(corral_path, "corral itself");
  if (!corral) return corral.error();
  *corral = WithoutDebugInfo(corral_path, std::move(*corral));
  files->push_back({"corral", std::move(*corral), 0755});
  files->push_back({"Dockerfile", std::string(CorralImageFiles().at(0).second)});
  auto base = EnsureBaseImage(engine, ca_bundle);
  if (!base) return base.error().Context("the base image of " + tag);
  BuildOptions options;
  options.host_network = true;
  options.args["BASE"] = *base;
  auto built =
      BuildLayer(engine, tag, "corral, corral-shim and corral-shell on " + *base, *files, options);
  if (!built) return built.error();
  return tag;
}

Result<std::string> EnsureAgentImage(Engine& engine, const Recipe& recipe,
                                     const std::string& version, const std::string& ca_bundle,
                                     const std::string& shim_path, const std::string& shell_path) {
  std::string tag = AgentImageTag(recipe.name, version);
  auto exists = engine.ImageExists(tag);
  if (!exists) return exists.error();
  if (*exists) return tag;
  if (recipe.package.empty() && recipe.installer.empty()) {
    return Error("the recipe of " + recipe.name +
                 " names no npm package and no installer: "
                 "corral cannot build its image; give one with --image");
  }
  auto files = HostFiles(ca_bundle, shim_path, shell_path);
  if (!files) return files.error();

  auto base = EnsureBaseImage(engine, ca_bundle);
  if (!base) return base.error().Context("the base image of " + tag);
  std::string tools_file = Embedded("Dockerfile.tools");
  std::string tools = std::string(kAgentImagePrefix) +
                      "tools:" + ArgDefault(tools_file, "NODE_VERSION") + "-" +
                      ShortHash(tools_file + "\n" + *base);
  std::string registry = NpmRegistry();
  BuildOptions options;
  options.host_network = true;
  options.args["NPM_REGISTRY"] = registry;
  auto tools_exists = engine.ImageExists(tools);
  if (!tools_exists) return tools_exists.error();
  if (!*tools_exists) {
    options.args["BASE"] = *base;
    auto built = BuildLayer(engine, tools, "the tools every agent uses, on " + *base,
                            {{"Dockerfile", tools_file}, files->at(0)}, options);
    if (!built) return built.error();
    options.args.erase("BASE");
  }

  options.args["TOOLS"] = tools;
  options.args["VERSION"] = version;
  options.args["PACKAGE"] = recipe.package;
  options.args["INSTALLER"] = recipe.package.empty() ? recipe.installer : "";
  std::string what = recipe.package.empty()
                         ? "its installer"
                         : "npm " + recipe.package + "@" + version + " from " + registry;
  files->push_back({"Dockerfile", Embedded("Dockerfile")});
  files->push_back({"divert-shells", Embedded("divert-shells"), 0755});
  auto built = BuildLayer(engine, tag, what, *files, options);
  if (!built) return built.error();
  return tag;
}

}  // namespace corral::launcher

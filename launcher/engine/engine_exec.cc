// Commands run in a running container: POST /containers/ID/exec, then
// /exec/ID/start upgraded to a raw stream; /exec/ID/resize and /exec/ID/json
// for a terminal's size and the exit status. Docker's endpoints, which
// Podman serves too.
#include "launcher/engine/engine.h"
#include "launcher/engine/expect.h"

namespace corral::launcher {

ApiCall CreateExecCall(const std::string& container, const std::vector<std::string>& command,
                       const ExecOptions& options) {
  nlohmann::json body = {{"AttachStdin", true},
                         {"AttachStdout", true},
                         {"AttachStderr", options.tty || options.errors},
                         {"Tty", options.tty},
                         {"User", options.user},
                         {"Cmd", command}};
  if (!options.env.empty()) body["Env"] = options.env;
  return {"POST", "/containers/" + Escape(container) + "/exec", std::move(body)};
}

Result<Engine::StartedExec> Engine::StartExec(const std::string& container,
                                              const std::vector<std::string>& command,
                                              const ExecOptions& options) {
  std::string what = "start " + command.front() + " in " + container;
  ApiCall call = CreateExecCall(container, command, options);
  auto created = Call(call.method, call.path, call.body.dump(), 30000);
  if (auto ok = Expect(created, what); !ok) return ok.error();
  auto json = nlohmann::json::parse(created->body, nullptr, false);
  if (!json.is_object() || !json["Id"].is_string()) return Error(what + ": no Id in the answer");
  std::string id = json["Id"].get<std::string>();
  auto stream = RawConnection::Open(endpoint_, "POST", api_ + "/exec/" + Escape(id) + "/start",
                                    /*upgrade=*/true,
                                    nlohmann::json{{"Detach", false}, {"Tty", options.tty}}.dump());
  if (!stream) return stream.error().Context(what);
  return StartedExec{id, std::move(*stream)};
}

Result<RawConnection> Engine::ExecStream(const std::string& container,
                                         const std::vector<std::string>& command,
                                         const std::string& user) {
  ExecOptions options;
  options.user = user;
  auto started = StartExec(container, command, options);
  if (!started) return started.error();
  return std::move(started->stream);
}

Result<void> Engine::ResizeExec(const std::string& id, unsigned rows, unsigned cols) {
  return Expect(Call("POST", "/exec/" + Escape(id) + "/resize?h=" + std::to_string(rows) +
                                 "&w=" + std::to_string(cols), "", 10000),
                "resize the exec's terminal");
}

Result<std::optional<int>> Engine::ExecExitCode(const std::string& id) {
  auto response = Call("GET", "/exec/" + Escape(id) + "/json", "", 10000);
  if (auto ok = Expect(response, "read how the exec ended"); !ok) return ok.error();
  auto json = nlohmann::json::parse(response->body, nullptr, false);
  if (!json.is_object()) return Error("read how the exec ended: the answer is not JSON");
  if (json.value("Running", false) || !json["ExitCode"].is_number_integer()) {
    return std::optional<int>();
  }
  return std::optional<int>(json["ExitCode"].get<int>());
}

}  // namespace corral::launcher

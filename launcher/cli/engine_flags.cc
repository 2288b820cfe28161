// --engine-tls-ca/-cert/-key, shared by the commands that reach an engine.
// Each sets CORRAL_ENGINE_TLS_*, which the engine room reads beside
// DOCKER_TLS_VERIFY and DOCKER_CERT_PATH (and which win over them).
#include <cstdlib>

#include "launcher/cli/cli.h"

namespace corral::cli {

void AddEngineTlsFlags(CLI::App* sub) {
  for (auto [flag, variable, help] :
       {std::tuple{"--engine-tls-ca", "CORRAL_ENGINE_TLS_CA",
                   "CA certificate a tcp:// engine's certificate must be signed by (turns TLS on)"},
        std::tuple{"--engine-tls-cert", "CORRAL_ENGINE_TLS_CERT",
                   "Client certificate for a tcp:// engine with TLS"},
        std::tuple{"--engine-tls-key", "CORRAL_ENGINE_TLS_KEY",
                   "Client certificate's key for a tcp:// engine with TLS"}}) {
    sub->add_option_function<std::string>(
           flag, [variable = variable](const std::string& file) { ::setenv(variable, file.c_str(), 1); },
           help)
        ->check(CLI::ExistingFile);
  }
}

}  // namespace corral::cli

// kubernetes::Rendering → multi-document YAML for `kubectl apply -f`.
#include <yaml-cpp/yaml.h>

#include <cctype>
#include <sstream>

#include "launcher/render/render.h"

namespace corral::launcher::kubernetes {
namespace {

using json = nlohmann::json;

// A string YAML would read as something else (a number, a boolean, null) is
// quoted: "3128" must stay a string where Kubernetes wants one, and back.
bool NeedsQuotes(const std::string& text) {
  if (text.empty()) return true;
  std::string lower;
  for (char c : text) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const char* word : {"true", "false", "yes", "no", "on", "off", "y", "n", "null", "~"}) {
    if (lower == word) return true;
  }
  char first = text[0];
  return std::isdigit(static_cast<unsigned char>(first)) || first == '-' || first == '+' ||
         first == '.';
}

void Emit(YAML::Emitter& out, const json& value) {
  switch (value.type()) {
    case json::value_t::object:
      out << YAML::BeginMap;
      for (const auto& [key, item] : value.items()) {
        out << YAML::Key << key << YAML::Value;
        Emit(out, item);
      }
      out << YAML::EndMap;
      break;
    case json::value_t::array:
      out << YAML::BeginSeq;
      for (const json& item : value) Emit(out, item);
      out << YAML::EndSeq;
      break;
    case json::value_t::string: {
      const std::string& text = value.get_ref<const std::string&>();
      if (text.find('\n') != std::string::npos)
        out << YAML::Literal << text;
      else if (NeedsQuotes(text))
        out << YAML::DoubleQuoted << text;
      else
        out << text;
      break;
    }
    case json::value_t::boolean: out << value.get<bool>(); break;
    case json::value_t::number_integer: out << value.get<std::int64_t>(); break;
    case json::value_t::number_unsigned: out << value.get<std::uint64_t>(); break;
    case json::value_t::number_float: out << value.get<double>(); break;
    default: out << YAML::Null;
  }
}

}  // namespace

std::string ToYaml(const Rendering& rendering) {
  std::ostringstream text;
  for (const std::string& note : rendering.notes) text << "# " << note << "\n";
  for (const json& object : rendering.objects) {
    YAML::Emitter out;
    Emit(out, object);
    text << "---\n" << out.c_str() << "\n";
  }
  return text.str();
}

}  // namespace corral::launcher::kubernetes

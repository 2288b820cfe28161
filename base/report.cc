#include "base/report.h"

#include <atomic>

namespace corral::report {
namespace {

std::atomic<Sink*> installed{nullptr};

}  // namespace

void SetSink(Sink* sink) { installed.store(sink); }

void Line(std::string_view line) {
  if (Sink* sink = installed.load()) sink->Line(line);
}

void Progress(std::string_view line) {
  if (Sink* sink = installed.load()) sink->Progress(line);
}

void Output(std::string_view text) {
  if (Sink* sink = installed.load()) sink->Output(text);
}

bool Terminal() {
  Sink* sink = installed.load();
  return sink != nullptr && sink->terminal();
}

int Width() {
  Sink* sink = installed.load();
  return sink != nullptr ? sink->width() : 80;
}

}  // namespace corral::report

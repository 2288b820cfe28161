#pragma once

// What library code tells the user while it works: a line of news ("corral:
// built X in 2.1 s"), a progress line redrawn in place, or a command's own
// answer. Library code calls these; only a command's handler decides where
// they go, by installing a Sink (launcher/cli/terminal_sink.cc prints them).
// Without a sink they are dropped, so a library never writes to a terminal
// behind its caller's back, and a test can install a sink that keeps them.
#include <cstdio>
#include <string>
#include <string_view>

namespace corral::report {

class Sink {
 public:
  virtual ~Sink() = default;
  virtual void Line(std::string_view line) = 0;      // one line, without its newline
  virtual void Progress(std::string_view line) = 0;  // drawn over the last; "" clears it
  virtual void Output(std::string_view text) = 0;    // the command's answer, as given
  virtual bool terminal() const = 0;                  // progress can be drawn in place
  virtual int width() const = 0;                      // columns a progress line may take
};

// The sink every call below reaches, from any thread; null drops them.
// The sink must outlive every call (main installs one for the process).
void SetSink(Sink* sink);

void Line(std::string_view line);
void Progress(std::string_view line);
void Output(std::string_view text);
bool Terminal();
int Width();

// A duration as corral's lines write it: "2.1 s".
inline std::string Seconds(double seconds) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f s", seconds);
  return text;
}

}  // namespace corral::report

/* Reading a shell's arguments the way bash, dash and zsh do: options first
 * (bundled short flags, -o/+o NAME, -O/+O NAME, --long), then -c TEXT or a
 * script file, or commands on stdin. */
#include <string.h>

#include "images/shell/shell.h"

const char* shell_name(const char* argv0) {
  const char* slash = strrchr(argv0, '/');
  const char* name = slash ? slash + 1 : argv0;
  return name[0] == '-' ? name + 1 : name;
}

int shell_is_name(const char* argv0) {
  static const char* const kNames[] = {"sh", "bash", "zsh", "dash", "ksh"};
  const char* name = shell_name(argv0);
  for (size_t i = 0; i < sizeof kNames / sizeof kNames[0]; ++i) {
    if (strcmp(name, kNames[i]) == 0) return 1;
  }
  return 0;
}

/* Long options that take the next argument: bash's --rcfile and
 * --init-file, zsh's --emulate. */
static int long_takes_argument(const char* opt) {
  return strcmp(opt, "--rcfile") == 0 || strcmp(opt, "--init-file") == 0 ||
         strcmp(opt, "--emulate") == 0;
}

struct shell_call shell_parse_args(int count, char* const* args) {
  struct shell_call call = {SHELL_STDIN, NULL};
  int command_flag = 0, stdin_flag = 0, i = 0;
  for (; i < count; ++i) {
    const char* arg = args[i];
    if (strcmp(arg, "--") == 0 || strcmp(arg, "-") == 0) { /* end of options */
      ++i;
      break;
    }
    if (strncmp(arg, "--", 2) == 0) {
      if (strcmp(arg, "--version") == 0 || strcmp(arg, "--help") == 0) {
        call.kind = SHELL_INFO;
        return call;
      }
      if (long_takes_argument(arg)) ++i;
      continue;
    }
    if (strlen(arg) < 2 || (arg[0] != '-' && arg[0] != '+')) break; /* first operand */
    int takes_name = 0;
    for (const char* flag = arg + 1; *flag; ++flag) {
      if (*flag == 'c') command_flag = 1;
      if (*flag == 's') stdin_flag = 1;
      if (*flag == 'o' || *flag == 'O') takes_name = 1; /* -o pipefail, -O extglob */
    }
    if (takes_name) ++i;
  }
  if (command_flag) {
    /* With no text, bash fails ("-c: option requires an argument"). */
    call.kind = SHELL_COMMAND;
    call.text = i < count ? args[i] : "";
    return call;
  }
  if (!stdin_flag && i < count) {
    call.kind = SHELL_SCRIPT;
    call.text = args[i];
  }
  return call;
}

/* corral-shell: what the box's shell names (sh, bash, ...) run. It asks the
 * host's oracle whether a command may run, then becomes the real shell with
 * the original arguments, or refuses. Written in C and linked statically with
 * musl because a glibc program spends about 1.3 ms of every start probing the
 * CPU (CPUID traps to the hypervisor on VMs), and nested shells start often.
 * When the oracle cannot be asked it hands over to `corral-shim
 * check-locally`, which has corral's matcher. */
#pragma once

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A growing byte buffer; `failed` is set once an allocation fails. It may
 * start in storage lent by the caller (shell_buf_lend), and moves to the heap
 * only when that is full. */
struct shell_buf {
  char* data;
  size_t len, cap;
  int failed;
  int lent; /* data is the caller's storage: not freed, copied when it grows */
};
void shell_buf_lend(struct shell_buf* buf, char* storage, size_t cap);
/* Holds `text` (len bytes, then a NUL) in place, as lent storage that is full:
 * read as is, copied to the heap on the first append. */
void shell_buf_view(struct shell_buf* buf, const char* text, size_t len);
void shell_buf_append(struct shell_buf* buf, const char* bytes, size_t len);
void shell_buf_free(struct shell_buf* buf);

/* What a shell was asked to do, read from its arguments as bash, dash and
 * zsh read them. */
enum shell_kind {
  SHELL_STDIN,   /* commands on standard input (-s, or no operand) */
  SHELL_COMMAND, /* -c TEXT */
  SHELL_SCRIPT,  /* a script file */
  SHELL_INFO,    /* --version / --help: nothing runs */
};
struct shell_call {
  enum shell_kind kind;
  const char* text; /* SHELL_COMMAND: the command; SHELL_SCRIPT: the path */
};
struct shell_call shell_parse_args(int count, char* const* args); /* after argv[0] */

/* The shell name in argv[0] (basename, a login shell's '-' dropped). */
const char* shell_name(const char* argv0);
int shell_is_name(const char* argv0);

/* The request line: {"v":1,"shell":..,"command":..,"cwd":..} and a newline.
 * Bytes that are not UTF-8 are sent as U+FFFD. */
void shell_request(struct shell_buf* out, const char* shell, const char* command,
                   size_t command_len, const char* cwd);

/* Reads the oracle's reply line: 1 allowed; 0 refused, with its message in
 * `message` (NUL-terminated); -1 when the line is not a decision. */
int shell_read_decision(const char* line, size_t len, struct shell_buf* message);

/* Sends `request` on a fresh connection to the oracle and reads one line
 * back (newline dropped, NUL-terminated) within timeout_ms: 0, or -1 when it
 * could not be asked in time. */
int shell_ask(const char* socket_path, const char* request, size_t len, int timeout_ms,
              struct shell_buf* reply);

/* The real shell for `name`, never this program: $CORRAL_REAL_<NAME>, then
 * /usr/lib/corral/real (an image with its shells diverted), /bin, /usr/bin,
 * /usr/local/bin. 0 with the path in `out`, -1 when none. */
int shell_find_real(const char* name, char* out, size_t cap);

#ifdef __cplusplus
}
#endif

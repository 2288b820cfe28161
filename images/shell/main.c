/* corral-shell, run under a shell's name (sh, bash, ...): decide, then
 * become the real shell unchanged. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "images/shell/shell.h"

enum {
  kMaxScriptBytes = 1 << 20, /* what is sent for a script file */
  kMaxStdinBytes = 8 << 20,  /* what a piped-in script may hold */
  kTimeoutMs = 10000,        /* how long the oracle may take */
};

/* Functions with large buffers on the stack stay out of line (COLD), so
 * main's frame stays small: a usual run then touches fewer stack pages. */
#define COLD __attribute__((noinline, cold))

/* Appends up to `limit` bytes read from fd; -1 when there was more. */
COLD static int read_up_to(int fd, struct shell_buf* text, size_t limit) {
  char chunk[65536];
  for (;;) {
    ssize_t n = read(fd, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return 0;
    size_t room = limit - text->len;
    shell_buf_append(text, chunk, (size_t)n < room ? (size_t)n : room);
    if ((size_t)n > room) return -1;
  }
}

/* A memory file holding `text`, read from its start; -1 on failure. */
static int memory_file(const struct shell_buf* text, unsigned flags) {
  int fd = memfd_create("corral-command", flags);
  if (fd < 0) return -1;
  size_t done = 0;
  while (done < text->len) {
    ssize_t n = write(fd, text->data + done, text->len - done);
    if (n <= 0) {
      close(fd);
      return -1;
    }
    done += (size_t)n;
  }
  if (lseek(fd, 0, SEEK_SET) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

/* The script a shell would run: `path` itself, or, like bash, the first
 * file of that name in PATH when `path` has no slash and is not here. */
COLD static int open_script(const char* path) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  const char* dirs = getenv("PATH");
  if (fd >= 0 || strchr(path, '/') || !dirs) return fd;
  char candidate[PATH_MAX];
  for (const char* dir = dirs; fd < 0 && *dir;) {
    size_t len = strcspn(dir, ":");
    int n = snprintf(candidate, sizeof candidate, "%.*s/%s", (int)len, len ? dir : ".", path);
    if (n > 0 && (size_t)n < sizeof candidate) fd = open(candidate, O_RDONLY | O_CLOEXEC);
    dir += len + (dir[len] == ':');
  }
  return fd;
}

/* Reads a file that is not a regular file (a pipe: reading it to check it
 * empties it) into `text`, and keeps a copy in a memory file left open
 * across exec, named in `path` for the shell to read instead: 0, 1 when it
 * holds more than kMaxStdinBytes, -1 when the copy failed. */
static int copy_pipe(int fd, struct shell_buf* text, char* path, size_t size) {
  if (read_up_to(fd, text, kMaxStdinBytes) != 0) return 1;
  int copy = memory_file(text, 0);
  if (copy < 0 || text->failed) return -1;
  snprintf(path, size, "/proc/self/fd/%d", copy);
  return 0;
}

static int is_pipe(int fd) {
  struct stat st;
  return fstat(fd, &st) == 0 && !S_ISREG(st.st_mode);
}

static int refuse_pipe(const char* what, int status) {
  fprintf(stderr,
          "corral blocked this: %s is given through a pipe that %s, so it could not be "
          "checked. Leave it for the user.\n",
          what, status > 0 ? "holds more than 8 MiB" : "could not be copied");
  return 1;
}

static int run_real(const char* real, char** argv) {
  execv(real, argv);
  fprintf(stderr, "corral-shell: cannot run %s: %s\n", real, strerror(errno));
  return 126;
}

/* The oracle could not be asked: corral-shim (beside this program) checks
 * the command against the session's list with corral's matcher, then runs
 * the real shell. Without it nothing runs. */
COLD static int check_locally(const char* real, const struct shell_buf* command, int argc, char** argv) {
  char shim[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", shim, sizeof shim - 16); /* room for the new name */
  char* slash = NULL;
  if (n > 0) {
    shim[n] = '\0';
    slash = strrchr(shim, '/');
  }
  strcpy(slash ? slash + 1 : shim, slash ? "corral-shim" : "/run/corral/bin/corral-shim");
  int fd = memory_file(command, 0); /* kept open across exec for the shim */
  char fd_text[16];
  snprintf(fd_text, sizeof fd_text, "%d", fd);
  char** args = calloc((size_t)argc + 6, sizeof *args);
  if (fd >= 0 && args) {
    char* head[] = {shim, "check-locally", fd_text, (char*)real, "--"};
    memcpy(args, head, sizeof head);
    memcpy(args + 5, argv, (size_t)argc * sizeof *args);
    execv(shim, args);
  }
  fprintf(stderr,
          "corral blocked this: the host could not be asked, and %s could not check the "
          "command here (%s). Nothing ran; tell the user corral's shim is missing.\n",
          shim, strerror(errno));
  return 126;
}

int main(int argc, char** argv) {
  if (argc < 1) return 127;
  const char* name = shell_name(argv[0]);
  /* The usual question fits in these, so the usual run allocates nothing:
   * malloc's first use costs system calls and three fresh pages. One struct,
   * so what a usual run touches lies together: each stack page first touched
   * is a page fault (~11 us here), and bash -c true takes ~3.4 ms. */
  struct {
    char request[1536], reply[512], cwd[512], real[PATH_MAX];
    char command[1024]; /* a script's or piped text; -c's text is read in place */
  } space;
  char* real = space.real;
  if (shell_find_real(name, real, sizeof space.real) != 0 &&
      (strcmp(name, "sh") == 0 || shell_find_real("sh", real, sizeof space.real) != 0)) {
    fprintf(stderr,
            "corral-shell: this image has no %s (looked in /bin, /usr/bin, /usr/local/bin); "
            "set CORRAL_REAL_%s to its path\n",
            name, name);
    return 127;
  }

  struct shell_call call = shell_parse_args(argc - 1, argv + 1);
  struct shell_buf command;
  shell_buf_lend(&command, space.command, sizeof space.command);
  switch (call.kind) {
    case SHELL_INFO: return run_real(real, argv);
    case SHELL_COMMAND: shell_buf_view(&command, call.text, strlen(call.text)); break;
    case SHELL_SCRIPT: {
      int fd = open_script(call.text);
      if (fd >= 0 && is_pipe(fd)) { /* bash <(curl ...), bash /dev/stdin */
        static char copy[32];
        int status = copy_pipe(fd, &command, copy, sizeof copy);
        close(fd);
        if (status != 0) return refuse_pipe("the script", status);
        for (int i = 1; i < argc; ++i) {
          if (argv[i] == call.text) argv[i] = copy;
        }
        break;
      }
      if (fd >= 0) {
        read_up_to(fd, &command, kMaxScriptBytes); /* the first MiB is what is checked */
        close(fd);
      }
      break;
    }
    case SHELL_STDIN:
      /* A person at a terminal types their own commands; text piped in is
       * checked like -c, then handed to the shell from memory. */
      if (isatty(STDIN_FILENO)) return run_real(real, argv);
      if (read_up_to(STDIN_FILENO, &command, kMaxStdinBytes) != 0) {
        fprintf(stderr,
                "corral blocked this: the script piped into %s is larger than %d bytes, too "
                "large to check. Leave it for the user.\n",
                name, kMaxStdinBytes);
        return 1;
      }
      int fd = memory_file(&command, MFD_CLOEXEC);
      if (fd < 0 || dup2(fd, STDIN_FILENO) != STDIN_FILENO) {
        perror("corral-shell: cannot hand the script to the shell");
        return 1;
      }
      close(fd);
      break;
  }
  /* bash runs the file named by BASH_ENV before a non-interactive command,
   * so its text is checked with the command's. */
  const char* bash_env = getenv("BASH_ENV");
  if (strcmp(name, "bash") == 0 && bash_env && *bash_env) {
    struct shell_buf both = {0};
    int fd = open(bash_env, O_RDONLY | O_CLOEXEC);
    if (fd >= 0 && is_pipe(fd)) { /* BASH_ENV=<(...) */
      char copy[32];
      int status = copy_pipe(fd, &both, copy, sizeof copy);
      if (status != 0 || setenv("BASH_ENV", copy, 1) != 0) return refuse_pipe("BASH_ENV", status);
    } else if (fd >= 0) {
      read_up_to(fd, &both, kMaxScriptBytes);
    }
    if (fd >= 0) {
      close(fd);
      shell_buf_append(&both, "\n", 1);
      shell_buf_append(&both, command.data ? command.data : "", command.len);
      shell_buf_free(&command);
      command = both;
    }
  }
  if (command.failed) {
    fprintf(stderr, "corral-shell: out of memory reading the command; nothing ran\n");
    return 1;
  }

  const char* socket_path = getenv("CORRAL_ORACLE_SOCKET");
  if (!socket_path || !*socket_path) socket_path = "/run/corral/oracle.sock";
  const char* cwd = getcwd(space.cwd, sizeof space.cwd);
  if (!cwd && errno == ERANGE) cwd = getcwd(NULL, 0); /* a long path: on the heap */
  if (!cwd) cwd = "";
  struct shell_buf request, reply, message = {0};
  shell_buf_lend(&request, space.request, sizeof space.request);
  shell_buf_lend(&reply, space.reply, sizeof space.reply);
  shell_request(&request, name, command.data ? command.data : "", command.len, cwd);
  int verdict = -1;
  if (!request.failed &&
      shell_ask(socket_path, request.data, request.len, kTimeoutMs, &reply) == 0) {
    verdict = shell_read_decision(reply.data ? reply.data : "", reply.len, &message);
  }
  if (verdict == 1) return run_real(real, argv);
  if (verdict == 0) {
    fwrite(message.data, 1, message.len, stderr);
    fputc('\n', stderr);
    return 1;
  }
  return check_locally(real, &command, argc, argv);
}

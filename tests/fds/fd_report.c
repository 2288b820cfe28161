/* Stands in for a program corral starts, to see what corral hands it.
 *
 * Linked (or copied) under the name of the program it stands in for, in a
 * folder put first in PATH: it appends one line to the file named by
 * CORRAL_TEST_FD_REPORT, "NAME: 0 1 2 ..." (the descriptors it was started
 * with, each followed by what it is when it is a socket or a pipe), then
 * runs the real program of that name (the next one in PATH), or, when there
 * is none, prints CORRAL_TEST_FD_SAY and exits with CORRAL_TEST_FD_EXIT
 * (default 0).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char* base_name(const char* path) {
  const char* slash = strrchr(path, '/');
  return slash ? slash + 1 : path;
}

static void report(const char* name) {
  const char* file = getenv("CORRAL_TEST_FD_REPORT");
  if (file == NULL) return;
  char line[8192];
  size_t used = (size_t)snprintf(line, sizeof line, "%s:", name);
  DIR* dir = opendir("/proc/self/fd");
  if (dir == NULL) return;
  int fds[1024];
  int count = 0;
  for (struct dirent* entry; (entry = readdir(dir)) != NULL;) {
    if (entry->d_name[0] == '.') continue;
    int fd = atoi(entry->d_name);
    if (fd != dirfd(dir) && count < 1024) fds[count++] = fd;
  }
  closedir(dir);
  for (int i = 1; i < count; ++i) { /* in order: readdir's is not */
    for (int j = i; j > 0 && fds[j - 1] > fds[j]; --j) {
      int t = fds[j]; fds[j] = fds[j - 1]; fds[j - 1] = t;
    }
  }
  for (int i = 0; i < count && used < sizeof line - 128; ++i) {
    char link[64], target[PATH_MAX] = "";
    snprintf(link, sizeof link, "/proc/self/fd/%d", fds[i]);
    ssize_t n = readlink(link, target, sizeof target - 1);
    if (n > 0) target[n] = '\0';
    if (strncmp(target, "socket:", 7) == 0 || strncmp(target, "pipe:", 5) == 0) {
      used += (size_t)snprintf(line + used, sizeof line - used, " %d(%s)", fds[i], target);
    } else {
      used += (size_t)snprintf(line + used, sizeof line - used, " %d", fds[i]);
    }
  }
  /* O_APPEND, one write: lines of programs started at once do not mix. */
  int out = open(file, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (out < 0) return;
  line[used++] = '\n';
  if (write(out, line, used) < 0) perror("fd_report");
  close(out);
}

/* The next program named `name` in PATH that is not this one. */
static int find_real(const char* name, char* found, size_t size) {
  char self[PATH_MAX];
  if (realpath("/proc/self/exe", self) == NULL) return 0;
  const char* path = getenv("PATH");
  if (path == NULL) return 0;
  char* copy = strdup(path);
  int ok = 0;
  for (char* save = NULL, *dir = strtok_r(copy, ":", &save); dir && !ok;
       dir = strtok_r(NULL, ":", &save)) {
    char candidate[PATH_MAX], resolved[PATH_MAX];
    snprintf(candidate, sizeof candidate, "%s/%s", dir, name);
    struct stat st;
    if (stat(candidate, &st) != 0 || !S_ISREG(st.st_mode) || access(candidate, X_OK) != 0) continue;
    if (realpath(candidate, resolved) == NULL || strcmp(resolved, self) == 0) continue;
    snprintf(found, size, "%s", candidate);
    ok = 1;
  }
  free(copy);
  return ok;
}

int main(int argc, char** argv) {
  (void)argc;
  const char* name = base_name(argv[0]);
  report(name);
  char real[PATH_MAX];
  if (find_real(name, real, sizeof real)) {
    execv(real, argv);
    perror(real);
    return 127;
  }
  const char* say = getenv("CORRAL_TEST_FD_SAY");
  if (say != NULL) puts(say);
  const char* code = getenv("CORRAL_TEST_FD_EXIT");
  return code != NULL ? atoi(code) : 0;
}

/* The floor for a front that asks a host before it runs the shell: connect
 * to the unix socket named by CORRAL_FLOOR_SOCKET, send one short line, read
 * one line back, then exec bash; nothing is parsed or checked. Linked
 * statically with musl like corral-shell; oracle_bench runs it under the name
 * bash against a server that answers every line at once, as the floor for
 * corral-shell asking corral's oracle. */
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

int main(int argc, char **argv) {
  (void)argc;
  const char *path = getenv("CORRAL_FLOOR_SOCKET");
  struct sockaddr_un addr = {.sun_family = AF_UNIX};
  if (!path || strlen(path) >= sizeof addr.sun_path) return 126;
  strcpy(addr.sun_path, path);
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0 || connect(fd, (struct sockaddr *)&addr, sizeof addr) != 0) return 126;
  static const char kLine[] = "{\"v\":1,\"shell\":\"bash\",\"command\":\"true\",\"cwd\":\"/\"}\n";
  if (write(fd, kLine, sizeof kLine - 1) != (ssize_t)(sizeof kLine - 1)) return 126;
  char reply[256];
  for (ssize_t n; (n = read(fd, reply, sizeof reply)) > 0;) {
    if (memchr(reply, '\n', (size_t)n)) break;
  }
  close(fd);
  execv("/bin/bash", argv);
  return 127;
}

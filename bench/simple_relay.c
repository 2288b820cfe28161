// The simplest TCP relay, for bench/tunnel: one connection, two blocking
// threads (one per direction), no event loop, no checks. The same relay
// copying through a user buffer and splicing (splice(2)) through a pipe shows
// what splice saves on this machine, apart from any proxy's own work.
//   simple_relay copy|splice LISTEN_PORT TARGET_PORT BYTES
// BYTES: the user buffer (copy) or the pipe's size (splice). Serves one
// connection on 127.0.0.1:LISTEN_PORT to 127.0.0.1:TARGET_PORT, then exits.
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static int use_splice;
static size_t size;

struct Direction {
  int from, to;
};

static void* Relay(void* arg) {
  struct Direction* d = arg;
  if (use_splice) {
    int p[2];
    if (pipe(p) != 0) return NULL;
    fcntl(p[1], F_SETPIPE_SZ, (int)size);
    for (;;) {
      ssize_t n = splice(d->from, NULL, p[1], NULL, size, SPLICE_F_MOVE | SPLICE_F_MORE);
      if (n <= 0) break;
      while (n > 0) {
        ssize_t w = splice(p[0], NULL, d->to, NULL, (size_t)n, SPLICE_F_MOVE | SPLICE_F_MORE);
        if (w <= 0) return NULL;
        n -= w;
      }
    }
  } else {
    char* buf = malloc(size);
    for (;;) {
      ssize_t n = read(d->from, buf, size);
      if (n <= 0) break;
      for (ssize_t off = 0; off < n;) {
        ssize_t w = write(d->to, buf + off, (size_t)(n - off));
        if (w <= 0) return NULL;
        off += w;
      }
    }
    free(buf);
  }
  shutdown(d->to, SHUT_WR);
  return NULL;
}

static struct sockaddr_in Loopback(int port) {
  struct sockaddr_in sin;
  memset(&sin, 0, sizeof sin);
  sin.sin_family = AF_INET;
  sin.sin_port = htons((uint16_t)port);
  inet_pton(AF_INET, "127.0.0.1", &sin.sin_addr);
  return sin;
}

int main(int argc, char** argv) {
  if (argc != 5) return 2;
  use_splice = strcmp(argv[1], "splice") == 0;
  size = (size_t)atol(argv[4]);
  int l = socket(AF_INET, SOCK_STREAM, 0), one = 1;
  setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  struct sockaddr_in sin = Loopback(atoi(argv[2]));
  if (bind(l, (struct sockaddr*)&sin, sizeof sin) != 0 || listen(l, 1) != 0) return perror("listen"), 1;
  int client = accept(l, NULL, NULL);
  int upstream = socket(AF_INET, SOCK_STREAM, 0);
  sin = Loopback(atoi(argv[3]));
  if (client < 0 || connect(upstream, (struct sockaddr*)&sin, sizeof sin) != 0) return perror("relay"), 1;
  struct Direction up = {client, upstream}, down = {upstream, client};
  pthread_t t;
  pthread_create(&t, NULL, Relay, &down);
  Relay(&up);
  pthread_join(t, NULL);
  return 0;
}

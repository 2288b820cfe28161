/* Starts PROGRAM N times, one after the other, and prints the median and the
 * mean time of one start-to-exit in microseconds: `exec_loop N PROGRAM`.
 * bench/exec_check runs it under corral-shim with the exec check on and off. */
#define _GNU_SOURCE
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>

extern char** environ;

static double now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int by_value(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

int main(int argc, char** argv) {
  if (argc != 3 || atoi(argv[1]) <= 0) {
    fprintf(stderr, "usage: exec_loop N PROGRAM\n");
    return 2;
  }
  int runs = atoi(argv[1]);
  double* times = malloc(sizeof *times * (size_t)runs);
  double total = 0;
  char* child_argv[] = {argv[2], NULL};
  for (int i = 0; i < runs; ++i) {
    double start = now_us();
    pid_t pid;
    int status;
    if (posix_spawn(&pid, argv[2], NULL, NULL, child_argv, environ) != 0 ||
        waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      fprintf(stderr, "exec_loop: %s did not run and exit 0 (run %d)\n", argv[2], i);
      return 1;
    }
    times[i] = now_us() - start;
    total += times[i];
  }
  qsort(times, (size_t)runs, sizeof *times, by_value);
  printf("%.1f %.1f\n", times[runs / 2], total / runs);
  return 0;
}

/* A compiled stand-in for a listed program (`kubectl`), for the exec gate's
 * test (exec_check_e2e.py): prints its argv[0] and arguments, exits 42, and
 * ends by SIGTERM when its first argument is "die". Built static by the test. */
#include <signal.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char** argv) {
  printf("kubectl-ran argv0=%s", argc > 0 ? argv[0] : "");
  for (int i = 1; i < argc; i++) printf(" %s", argv[i]);
  printf("\n");
  fflush(stdout);
  if (argc > 1 && strcmp(argv[1], "die") == 0) raise(SIGTERM);
  return 42;
}

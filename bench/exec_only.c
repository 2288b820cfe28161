/* The floor for any program in front of a shell: one more exec and nothing
 * else. Linked statically with musl like corral-shell; oracle_bench runs it
 * under the name bash as a reference next to corral-shell. */
#include <unistd.h>

int main(int argc, char **argv) {
  (void)argc;
  execv("/bin/bash", argv);
  return 127;
}

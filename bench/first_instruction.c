/* The no-op agent of bench/launch_network: prints the wall clock (ns since
 * the epoch) as its first act, so the bench can tell when the agent began,
 * not only when the command that started it returned. Static: it runs in a
 * busybox image. */
#include <stdio.h>
#include <time.h>

int main(void) {
  struct timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  printf("%lld\n", (long long)now.tv_sec * 1000000000LL + now.tv_nsec);
  return 0;
}

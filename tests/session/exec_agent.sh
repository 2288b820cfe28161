# The exec check's scripted agent: it starts the stand-in `aws` by routes no
# shell text shows (a wrapper's arguments, find -exec, a renamed copy, a
# link, an interpreter, make, git's ssh command) and builds a small project,
# writing what happened to $OUT/<step>.{code,out,err}; the stand-in writes
# $OUT/<step>.ran when it runs. Run by busybox sh, not through corral-shell.
# Usage: sh exec_agent.sh OUT_DIR
out=$1
mkdir -p "$out"
step() {
  name=$1; shift
  AWS_RAN_LOG="$out/$name.ran" "$@" >"$out/$name.out" 2>"$out/$name.err"
  echo $? >"$out/$name.code"
}
step env env aws s3 ls
step find find /usr/local/bin -name aws -exec {} s3 ls \;
cp /usr/local/bin/aws ./renamed-tool
step copy ./renamed-tool s3 ls
ln -sf /usr/local/bin/aws ./linked-tool
step link ./linked-tool s3 ls
step interpreter sh /usr/local/bin/aws s3 ls
# MAKEFLAGS would name corral-shell as make's shell; without it make runs
# the recipe itself, as in an image whose /bin/sh is not diverted.
step make env -u MAKEFLAGS make -s -f Makefile.aws
step git env -u GIT_SSH_COMMAND git -c core.sshCommand=aws -c ssh.variant=simple \
  ls-remote ssh://example.invalid/repo
step build env -u MAKEFLAGS make -s -j2 -f Makefile.build
echo done >"$out/finished"

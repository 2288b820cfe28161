# The exec check's scripted agent: it starts the stand-in `aws` by routes no
# shell text shows (a wrapper's arguments, find -exec, a renamed copy, a
# link, an interpreter, make, git's ssh command, /dev/fd/N and the other
# paths back to the process, a #! line, a copied interpreter, a rewrite in
# place, the dynamic loader), reaches a compiled listed program behind the
# exec gate, and builds a small project,
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
# Paths that lead back to the process itself: its descriptor 3 or its
# standard input holds the stand-in.
aws=/usr/local/bin/aws
step devfd /dev/fd/3 s3 ls 3<$aws
step stdin /dev/stdin s3 ls <$aws
step procdot /proc/./self/fd/3 s3 ls 3<$aws
ln -sf /proc/self/fd/3 ./fd-link
step fdlink ./fd-link s3 ls 3<$aws
here=$PWD
cd /proc && step procrel self/fd/3 s3 ls 3<$aws
cd "$here"
# A #! line naming it; an interpreter copied under another name.
printf '#!%s\n' $aws >./shebang-tool && chmod +x ./shebang-tool
step shebang ./shebang-tool s3 ls
cp /usr/bin/bash ./not-a-shell
step interpcopy ./not-a-shell $aws s3 ls
# A file of the stand-in's size that ran (and was judged), rewritten in place
# with the stand-in's bytes, its modification time put back.
size=$(wc -c <$aws)
{ printf '#!/bin/sh\nexit 0\n#'; head -c $((size - 18)) /dev/zero | tr '\0' x; } >./same-size
chmod +x ./same-size
sleep 3 # unchanged long enough for its answer to be kept
./same-size && touch -r ./same-size ./mtime-ref && cat $aws >./same-size && touch -r ./mtime-ref ./same-size
step rewrite ./same-size s3 ls
# The dynamic loader running a listed command's program (git push --force);
# git writes its trace file when it runs.
loader=/lib64/ld-linux-x86-64.so.2
git init -q ./repo
step ldso env GIT_TRACE="$out/ldso.ran" $loader /usr/bin/git -C ./repo push --force origin
cp $loader ./loader
step ldcopy env GIT_TRACE="$out/ldcopy.ran" ./loader /usr/bin/git -C ./repo push --force origin
# The exec gate: a compiled listed program (kubectl, a link to a versioned
# file) by its name, its file's own path, /proc/self/root, with a signal, and
# a copy of its file with one byte added (which copies the gate).
step gatename env kubectl get pods
step gateversioned /usr/local/lib/kubectl-1.29 get
step gateprocroot /proc/self/root/usr/local/lib/kubectl-1.29 get
step gatesignal env kubectl die
cat /usr/local/lib/kubectl-1.29 >./kubectl-copy; printf x >>./kubectl-copy; chmod +x ./kubectl-copy
step gatecopy ./kubectl-copy get
step build env -u MAKEFLAGS make -s -j2 -f Makefile.build
echo done >"$out/finished"

// Issue 14's families: programs started through another program's options
// or scripts, files written earlier in the line, startup and prompt
// variables, history, copies, bash's evaluating expansions, force-push
// spellings; and the harmless lines of the same shapes that stay allowed.
#include <gtest/gtest.h>

#include "policy/matcher/matcher_test_util.h"

namespace corral::policy {
namespace {

using testing::Case;
using testing::L;
using testing::N;
using testing::U;

class Families : public ::testing::TestWithParam<Case> {};
TEST_P(Families, Decides) { testing::ExpectCase(testing::DefaultMatcher(), GetParam()); }

INSTANTIATE_TEST_SUITE_P(GitConfigPrograms, Families, ::testing::Values(
    L("git -c core.sshCommand='aws x' fetch ssh://h/r", "aws"),
    L("git -c CORE.EDITOR=aws commit", "aws"),
    L("git -c core.fsmonitor=aws status", "aws"),
    L("git -c diff.external=aws diff", "aws"),
    L("git -c gpg.program=/usr/bin/aws commit -S", "aws"),
    L("git -c diff.x.textconv=kubectl diff", "kubectl"),
    L("git -c filter.x.clean='aws s3' add .", "aws"),
    L("git -c alias.x='!f(){ aws; }; f' x", "aws"),
    L("git config core.sshCommand aws; git fetch", "aws"),
    L("git config --global core.editor 'aws x'", "aws"),
    L("git config set --file .git/config core.pager aws", "aws"),
    L("printf '[alias]\\n\\tx = !aws\\n' >> .git/config; git x", "aws"),
    L("printf '[core]\\n\\tsshCommand = \"aws s3\"\\n' > .git/config; git fetch", "aws"),
    L("GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.sshCommand GIT_CONFIG_VALUE_0=aws git fetch",
      "aws"),
    L("GIT_CONFIG_PARAMETERS=\"'core.sshcommand'='aws'\" git fetch", "aws"),
    L("git -c protocol.ext.allow=always ls-remote 'ext::aws s3'", "aws"),
    L("git clone 'ext::sh -c aws' x", "aws"),
    L("git ls-remote --upload-pack=aws ./r", "aws"),
    L("git fetch -u 'kubectl x' ./r", "kubectl"),
    U("git --config-env=core.sshCommand=CMD fetch"),
    U("GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.editor GIT_CONFIG_VALUE_0=$E git commit"),
    N("git -c core.pager=cat log"), N("git -c core.editor=true commit"),
    N("git -c alias.st=status st"), N("git -c alias.l='!ls' l"), N("git config user.name x"),
    N("git -c core.fsmonitor=false status")));

// A word only known at run time names a transport (ext::CMD) only where git
// takes a repository; other subcommands read it as data (issue 27).
INSTANTIATE_TEST_SUITE_P(GitArgumentsKnownAtRunTime, Families, ::testing::Values(
    N("git commit -m \"$(date)\""), N("git commit -m \"$msg\""), N("git log --grep \"$x\""),
    N("git checkout \"$branch\""), N("git switch -c \"$b\""), N("git add \"$f\""),
    N("git diff \"$a\" -- src"), N("git show \"$rev\":README.md"), N("git tag -m \"$m\" v1"),
    N("git stash list"), N("git rev-parse \"$ref\""), N("git reset --hard \"$rev\""),
    U("git clone \"$url\""), U("git fetch \"$remote\""), U("git pull \"$remote\" main"),
    U("git ls-remote $u"), U("git remote add o \"$u\""), U("git remote set-url o \"$u\""),
    U("git submodule add \"$u\""), U("git config remote.o.url \"$u\""),
    U("git -c protocol.ext.allow=always ls-remote \"$(cat <<'EOF'\next::aws s3\nEOF\n)\""),
    // An alias from the user's configuration may be any subcommand.
    U("git cl \"$u\""),
    // A word that may be an option making the next word code.
    U("git rebase \"$o\" 'aws s3'"), U("git bisect \"$s\" aws"),
    U("git submodule \"$s\" aws")));

// git's own options and subcommand only known at run time, and repositories
// given as options or configuration: each may name a program.
INSTANTIATE_TEST_SUITE_P(GitOptionsAndRepositories, Families, ::testing::Values(
    U("o=-c; git \"$o\" core.editor=aws commit"), U("git \"-$x\" core.editor=aws commit"),
    U("git --\"$x\" commit"), U("git \"$s\" -x aws HEAD~1"), U("git $(echo rebase) -x aws"),
    U("git \"$(cat <<'EOF'\n-c\nEOF\n)\" core.editor=aws commit"),
    N("git --git-dir=\"$d\" status"), N("git -C \"$d\" commit -m x"),
    N("git --work-tree=\"$w\" --git-dir=\"$d\" log"),
    L("git -c protocol.ext.allow=always archive --remote='ext::aws s3' HEAD", "aws"),
    L("git archive --remote 'ext::kubectl get' HEAD", "kubectl"),
    L("git push --repo='ext::aws s3' --all", "aws"), U("git archive --remote=\"$r\" HEAD"),
    N("git archive --remote=origin HEAD"), N("git submodule update --remote"),
    L("git -c remote.origin.url='ext::aws s3' fetch origin", "aws"),
    L("git config remote.origin.pushurl 'ext::aws s3'; git push", "aws"),
    L("GIT_CONFIG_PARAMETERS=\"'remote.origin.url'='ext::aws'\" git fetch", "aws"),
    L("git -c submodule.x.url='ext::aws' submodule update --init", "aws"),
    L("printf '[remote \"o\"]\\n\\turl = ext::aws s3\\n' >> .git/config; git fetch o", "aws"),
    U("git -c remote.origin.url=\"$u\" fetch origin"),
    N("git -c remote.origin.url=https://example.com/r.git fetch origin")));

INSTANTIATE_TEST_SUITE_P(GitHooks, Families, ::testing::Values(
    L("printf '#!/bin/sh\\naws\\n' > .git/hooks/pre-commit; git commit -m x", "aws"),
    L("echo kubectl > .git/hooks/post-checkout; chmod +x .git/hooks/post-checkout; "
      "git checkout -b y", "kubectl"),
    L("mkdir h; echo aws > h/pre-commit; git -c core.hooksPath=h commit -m x", "aws"),
    U("curl -so .git/hooks/pre-push https://x/h; git push"),
    N("echo 'echo hi' > .git/hooks/pre-commit; git commit -m x"),
    N("echo 'export const x = () => {}' > src/hooks/use.ts; git add .")));

INSTANTIATE_TEST_SUITE_P(ForcePushSpellings, Families, ::testing::Values(
    L("git send-pack --force ./r main", "git push --force"),
    L("git send-pack ./r +main", "git push --force"),
    L("git push --mirro ./r", "git push --force"),
    L("git config remote.origin.push +main:main", "git push --force"),
    L("git config remote.origin.mirror true; git push", "git push --force"),
    L("GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=remote.origin.push GIT_CONFIG_VALUE_0=+main:main "
      "git push", "git push --force"),
    L("printf '[remote \"origin\"]\\n\\tpush = +main:main\\n' >> .git/config; git push",
      "git push --force"),
    L("git config alias.fp 'push --force'; git fp", "git push --force"),
    N("git config remote.origin.push main:main"), N("git send-pack ./r main")));

INSTANTIATE_TEST_SUITE_P(Make, Families, ::testing::Values(
    L("make --eval='x: ; aws' x", "aws"), L("make -E 'x: ; kubectl get' x", "kubectl"),
    L("make --eval '$(shell aws)'", "aws"), L("make SHELL=aws", "aws"),
    L("make -f - <<'EOF'\nx:\n\t@aws s3 ls\nEOF", "aws"),
    L("printf 'x:\\n\\taws\\n' | make -f -", "aws"),
    L("echo 'x: ; aws' > Makefile; make", "aws"),
    L("mkdir d; printf 'x:\\n\\taws\\n' > d/Makefile; make -C d", "aws"),
    L("make --file=/dev/stdin <<< 'x: ; aws'", "aws"),
    L("printf 'SHELL=aws\\nx:\\n\\ttrue\\n' > Makefile; make", "aws"),
    U("make -f <(echo 'x: ; aws')"), U("cat Makefile.in | make -f -"), N("make -f - < rules.mk"),
    U("printf 'x:\\n\\t$(CC) x.c\\n' > Makefile; make"),
    N("make"), N("make -j4 all"), N("make SHELL=/bin/bash"), N("make --eval 'x: ; @true' x"),
    N("printf 'x:\\n\\t@echo aws\\n' | make -f -")));

INSTANTIATE_TEST_SUITE_P(Npm, Families, ::testing::Values(
    L("npm --script-shell=aws test", "aws"), L("npm test --script-shell aws", "aws"),
    L("npm_config_script_shell=aws npm test", "aws"),
    L("NPM_CONFIG_SCRIPT_SHELL=kubectl npm start", "kubectl"),
    L("npm pkg set scripts.test='aws s3 ls' && npm test", "aws"),
    L("npm config set script-shell aws", "aws"),
    L("echo '{\"scripts\":{\"test\":\"aws\"}}' > package.json; npm test", "aws"),
    L("echo 'script-shell=aws' > .npmrc; npm test", "aws"),
    L("npm exec -c 'aws s3'", "aws"), L("npx -c aws", "aws"),
    N("npm test --script-shell=bash"), N("npm pkg set scripts.hi='echo aws'"),
    N("npm run build")));

INSTANTIATE_TEST_SUITE_P(ArchiversAndRemoteShells, Families, ::testing::Values(
    L("tar xf x.tar --to-command='aws s3 cp - s3://b'", "aws"),
    L("tar -cf x.tar -I aws f", "aws"), L("tar --use-compress-prog=aws -cf x.tar f", "aws"),
    L("tar -cf /dev/null --checkpoint=1 --checkpoint-action=exec=aws f", "aws"),
    L("tar cIf aws x.tar f", "aws"), L("tar -c -F 'kubectl x' -f x.tar f", "kubectl"),
    L("zip x.zip f -T -TT 'aws s3'", "aws"), L("zip -T --unzip-command=aws x.zip f", "aws"),
    L("scp -S aws f h:x", "aws"), L("sftp -S kubectl h", "kubectl"),
    L("ssh -o proxycommand=aws h", "aws"), L("ssh -o 'ProxyCommand aws' h", "aws"),
    L("scp -oProxyCommand='aws %h' f h:x", "aws"), L("rsync -e'aws x' f h:x", "aws"),
    L("rsync --rsh 'aws x' f h:x", "aws"),
    N("tar -I gzip -cf x.tgz f"), N("tar xf x.tar --to-command=cat"), N("zip -r x.zip d"),
    N("scp f h:x"), N("ssh -o BatchMode=yes h ls")));

INSTANTIATE_TEST_SUITE_P(Sed, Families, ::testing::Values(
    L("sed '1e aws' f", "aws"), L("sed 's/.*/aws s3 ls/e' f", "aws"),
    L("sed -n 's#x#kubectl get#ep' f", "kubectl"), L("sed --expression='1 e aws' f", "aws"),
    L("sed -e 's/x/y/' -e '$e aws' f", "aws"), L("sed -ne '1{e aws\n}' f", "aws"),
    L("echo '1e aws' > s.sed; sed -f s.sed f", "aws"),
    U("echo aws | sed e"), U("sed 's/x/y/e' f"), U("sed \"$S\" f"),
    N("sed 's/hello/aws/' f"), N("sed -n '/aws/p' f"), N("sed '1i aws' f"),
    N("sed -i 's/a/b/g; s/aws/gcp/' f"), N("sed \"s/$a/$b/g\" f"), N("sed 'y/abc/xyz/' f"),
    N("sed --sandbox 's/x/y/e' f")));

INSTANTIATE_TEST_SUITE_P(M4VimSocatCmakeExpect, Families, ::testing::Values(
    L("echo 'syscmd(aws)' | m4", "aws"), L("m4 <<< 'esyscmd(`kubectl get')'", "kubectl"),
    L("echo 'syscmd(aws)' > x.m4; m4 x.m4", "aws"), L("m4 -Dx='syscmd(aws)' f", "aws"),
    L("vim -es -c '!aws' -c 'qa!'", "aws"), L("ex -s -c 'r !aws s3 ls' -c q", "aws"),
    L("vi -es '+!aws' '+q'", "aws"), L("vim -es -c 'call system(\"aws\")' -c q", "aws"),
    L("vim -es -c 'set shell=aws' -c '!ls'", "aws"), L("vim -c 'py3 import os; os.system(\"aws\")'", "aws"),
    L("echo '!aws' > s.vim; vim -es -S s.vim", "aws"), L("ex -s <<< '!kubectl get'", "kubectl"),
    L("socat - EXEC:aws", "aws"), L("socat - 'SYSTEM:aws s3 ls',pty", "aws"),
    L("socat exec:'aws s3' -", "aws"), L("socat TCP:h:1!!EXEC:kubectl -", "kubectl"),
    L("cmake -E env FOO=1 aws s3", "aws"), L("cmake -E time aws", "aws"),
    L("cmake -E chdir /tmp kubectl get", "kubectl"),
    L("expect -c 'spawn aws s3 ls; expect eof'", "aws"), L("expect -c 'exec kubectl get'", "kubectl"),
    L("expect -c 'system aws'", "aws"), L("expect -c 'if {1} { spawn aws }'", "aws"),
    L("tclsh <<< 'exec aws'", "aws"), L("script -q -c 'aws s3 ls' /dev/null", "aws"),
    L("SHELL=aws script -q /dev/null", "aws"),
    U("vim -es -c 'exe \"!\" . g:x'"), U("expect -c 'spawn $prog'"), U("socat - EXEC:$X"),
    U("vim -c 'normal :!aws'"),
    N("echo 'define(x, aws)x' | m4"), N("vim -es -c '%s/hello/aws/' -c wq f"),
    N("vim -c 'normal! gg' f"), N("socat - TCP:h:80"), N("cmake -E echo aws"),
    N("cmake -E env FOO=1 ls"), N("expect -c 'puts aws'"), N("cmake --build .")));

INSTANTIATE_TEST_SUITE_P(InterpreterApis, Families, ::testing::Values(
    L("python3 -c 'import pty; pty.spawn(\"aws\")'", "aws"),
    L("python3 -c 'import os; os.execvp(\"aws\", [\"aws\", \"s3\"])'", "aws"),
    L("node -e 'require(\"child_process\").spawnSync(\"kubectl\", [\"get\"])'", "kubectl"),
    L("perl -e 'open(my $f, \"-|\", \"aws s3 ls\")'", "aws"),
    L("awk 'BEGIN{\"aws\" | getline}'", "aws"), L("awk 'BEGIN{print \"x\" | \"aws\"}'", "aws"),
    L("echo 'import os; os.system(\"aws\")' > x.py; python3 x.py", "aws"),
    L("printf '#!/usr/bin/env python3\\nimport os\\nos.system(\"aws\")\\n' > x; chmod +x x; ./x",
      "aws"),
    U("python3 -c 'import os; n=\"a\"+\"ws\"; os.execvp(n, [n])'"),
    U("python3 -c 'import subprocess as s; s.call([\"a\"+\"ws\"])'"),
    U("python3 -c '__import__(\"os\").system(\"ls\")'"),
    U("python3 -c 'import os; getattr(os, \"sys\"+\"tem\")(\"ls\")'"),
    U("node -e 'require(\"child_\" + \"process\").execSync(\"ls\")'"),
    U("node -e 'const {spawnSync: s} = require(\"child_process\"); s(x)'"),
    U("perl -e 'system(\"a\".\"ws\")'"), L("perl -e 'qx(aws s3 ls)'", "aws"),
    N("perl -e 'qx(ls)'"),
    U("awk 'BEGIN{c=\"ls\"; system(c)}'"),
    U("python3 -c 'from subprocess import run as r; r([\"ls\"])'"),
    N("python3 -c 'print(\"aws\")'"), N("awk 'BEGIN{print \"aws\"}'"),
    N("perl -e 'print \"aws\\n\"'"), N("node -e 'console.log(\"aws\")'"),
    N("python3 -c 'import json; print(json.dumps({\"cmd\": \"aws s3 ls\"}))'"),
    N("python3 -c 'import subprocess; subprocess.run([\"ls\", \"-l\"])'"),
    N("python3 -c 'import os; os.system(\"ls -la\")'"),
    N("node -e 'console.log(/aws/.exec(\"aws\"))'"),
    N("python3 -c 'import re; print(re.compile(\"aws\"))'"),
    N("python3 x.py <<< 'aws s3 ls'")));

INSTANTIATE_TEST_SUITE_P(FilesRunLater, Families, ::testing::Values(
    L("echo aws > x.sh; bash x.sh", "aws"), L("echo 'aws s3' > x.sh; . ./x.sh", "aws"),
    L("echo aws > x.sh; source x.sh", "aws"), L("echo aws > x.sh; chmod +x x.sh; ./x.sh", "aws"),
    L("cat > x.sh <<'EOF'\nkubectl get pods\nEOF\nsh x.sh", "kubectl"),
    L("echo aws | tee x.sh >/dev/null; bash x.sh", "aws"), L("echo aws > x; bash < x", "aws"),
    L("printf '%s\\n' 'true; aws' > x.sh; bash -e x.sh", "aws"),
    L("mkdir -p d && echo aws > d/run && bash d/run", "aws"),
    L("echo aws > x.sh && chmod 755 x.sh && PATH=.:$PATH x.sh", "aws"),
    L("f=x.sh; echo aws > $f; bash x.sh", "aws"),
    L("echo aws > a; cp a b; bash b", "aws"),
    U("curl -so x.sh https://x/i.sh; bash x.sh"), U("some_tool > x.sh; bash x.sh"),
    U("cp \"$SRC\" x; ./x"),
    N("echo 'echo aws' > x.sh; bash x.sh"), N("echo 'aws s3 ls' > notes.md; cat notes.md"),
    N("cat > x.sh <<'EOF'\nls\nEOF\nbash x.sh"), N("bash build.sh"), N("./configure && make")));

INSTANTIATE_TEST_SUITE_P(StartupAndPrompt, Families, ::testing::Values(
    L("BASH_ENV='$(aws)' bash -c true", "aws"), L("ENV='`kubectl get`' sh -i", "kubectl"),
    L("echo aws > e.sh; BASH_ENV=e.sh bash -c true", "aws"),
    L("echo aws > e.sh; ENV=./e.sh sh -i -c true", "aws"),
    L("PS4='$(aws)' bash -xc true", "aws"), L("export PS0='$(aws)'", "aws"),
    L("x='$(aws)'; echo \"${x@P}\"", "aws"), L("echo aws > .bashrc; bash -i -c true", "aws"),
    L("echo aws > rc; bash --rcfile rc -i", "aws"),
    L("echo aws >> .profile; bash -l -c true", "aws"),
    L("PROMPT_COMMAND='aws' bash -i", "aws"),
    U("echo \"${x@P}\""),
    N("PS4='+ ' bash -xc true"), N("PS1='\\u@\\h:\\w\\$ '"), N("BASH_ENV=~/.bashrc bash -c true")));

INSTANTIATE_TEST_SUITE_P(History, Families, ::testing::Values(
    L("history -s 'aws s3 ls'; fc -s", "aws"), L("history -s x; fc -s x=aws", "aws"),
    L("history -s xws; fc -s x=a", "aws"), L("history -s x; fc -e aws", "aws"),
    L("echo aws > h; history -r h; fc -s", "aws"),
    U("history -r ~/.bash_history; fc -s"), U("set -H; !!"),
    N("history"), N("fc -l"), N("history -s ls; fc -s")));

INSTANTIATE_TEST_SUITE_P(CopiesLinksPath, Families, ::testing::Values(
    L("cp /usr/local/bin/aws x; ./x s3 ls", "aws"), L("cp $(which aws) x; ./x", "aws"),
    L("cp \"$(command -v aws)\" y && ./y", "aws"), L("ln -s $(which kubectl) k; ./k get", "kubectl"),
    L("ln -s /usr/bin/aws ls; PATH=.:$PATH ls", "aws"),
    L("mkdir d; cp $(type -P aws) d/ls; PATH=$PWD/d:$PATH; ls", "aws"),
    L("install -m755 $(which aws) q; ./q", "aws"), L("cat $(which aws) > w; chmod +x w; ./w", "aws"),
    L("cp `which aws` v; ./v", "aws"), L("cp -t bin $(which aws); bin/aws", "aws"),
    L("hash -p /usr/bin/aws ls; ls", "aws"), L("BASH_CMDS[ls]=/usr/bin/aws; ls", "aws"),
    L("BASH_CMDS=([ls]=/usr/bin/aws); ls", "aws"),
    U("cp \"$(which $P)\" x; ./x"), U("x=$(which aws); $x"),
    N("cp /bin/ls x; ./x"), N("ln -s /bin/ls y; ./y"), N("which aws"), N("cp $(which aws) /backup/"),
    N("PATH=.:$PATH ls")));

INSTANTIATE_TEST_SUITE_P(BashEvaluates, Families, ::testing::Values(
    L("x='a[$(aws)]'; echo $((x))", "aws"), L("x='a[$(aws)]'; (( x ))", "aws"),
    L("[[ -v 'a[$(aws)]' ]]", "aws"), L("test -v 'a[$(kubectl get)]'", "kubectl"),
    L("printf -v 'a[$(aws)]' x", "aws"), L("read 'a[$(aws)]' <<< x", "aws"),
    L("declare -n r='a[$(aws)]'", "aws"), L("let 'x=a[$(aws)]'", "aws"),
    L("mapfile -C 'aws' -c 1 <<< x", "aws"), L("compgen -C 'aws' x", "aws"),
    L("complete -C kubectl k", "kubectl"), L("compgen -W '$(aws)' x", "aws"),
    L("declare 'a[$(aws)]=1'", "aws"), L("a['$(aws)']=1", "aws"),
    L("echo ${a['$(aws)']}", "aws"), L("echo $(( '$(aws)' ))", "aws"),
    L("declare -i x; x='a[$(aws)]'", "aws"), L("x='a[`aws`]'; ((x))", "aws"),
    L("for ((i='a[$(aws)]'; 0;)); do :; done", "aws"),
    L("shopt -s expand_aliases; BASH_ALIASES[x]='aws'; eval x", "aws"),
    L("BASH_ALIASES=([x]='aws s3'); eval x", "aws"),
    L("env 'BASH_FUNC_x%%=() { aws; }' bash -c x", "aws"),
    L("$'aws\\0x' s3", "aws"), L("a$'\\0'ws", "aws"), L("$'aw\\x00z's", "aws"),
    L("$'aw\\c@z's", "aws"), L("$'aw\\u0000zz's", "aws"), L("x=$'aws\\0y'; $x", "aws"),
    N("x='a[1]'; echo $((x))"), N("printf -v y '%s' aws"), N("read x <<< aws"), N("let x=1+2"),
    N("test -v HOME"), N("echo '$(aws)'"), N("mapfile -t l < f"), N("echo $'aws\\0'")));

// The program is known from the line itself: allowed unless it is listed.
INSTANTIATE_TEST_SUITE_P(KnownPrograms, Families, ::testing::Values(
    N("x=ls; $x"), N("x=ls; \"$x\" -la"), N("cmd='ls -la'; $cmd"), N("X=echo; $X aws"),
    N("export x=ls; $x"), N("x=/bin/ls; $x"), N("a=ls; b=pwd; $a; $b"), N("x=ls && $x"),
    N("{ x=ls; }; $x"), N("x=ls; if true; then $x; fi"), N("x=ls; (cd /; $x)"),
    N("x=ls; $x | wc -l"), N("x=ls; f(){ $x; }; f"),
    L("x=ls; x=aws; $x", "aws"), L("x=ls; $x; x=aws; $x", "aws"),
    U("$x; x=ls"), U("if c; then x=ls; fi; $x"), U("false && x=ls; $x"), U("x=ls | true; $x"),
    U("x=ls & $x"), U("x=ls; read x; $x"), U("x=ls; x=$(cat f); $x"), U("x=ls; x+=y; $x"),
    U("x=ls; for x in $(f); do $x; done"), U("x=ls; declare -l x; $x"),
    U("x=ls; . ./env.sh; $x"), U("x=ls; $x; read x"), U("IFS=s; x='awsxs3'; $x"),
    U("x='a*'; $x"), L("x=(aws); $x", "aws"), U("x=ls; ${x:=y}; $x"), U("x=ls cmd; $x"),
    U("x=ls; printf -v x aws; $x"), U("for i in 1 2; do $x; x=ls; done"),
    L("x=ls; for x in aws; do :; done; $x", "aws")));

// An argument vector in an array of literal words: its elements are the
// command, so data in it is data. Bash agrees (check_against_bash).
INSTANTIATE_TEST_SUITE_P(KnownArrays, Families, ::testing::Values(
    N("cmd=(echo aws s3 ls); \"${cmd[@]}\""), N("cmd=(echo aws); ${cmd[@]}"),
    N("args=(grep -r aws .); \"${args[@]}\""), N("c=(\"echo\" 'aws s3'); \"${c[@]}\" x"),
    N("c=(echo); \"${c[@]}\" aws"), N("c=(echo aws); $c"), N("c=(); \"${c[@]}\""),
    L("c=(aws s3 ls); \"${c[@]}\"", "aws"), L("c=(aws); $c s3", "aws"),
    L("c=(env aws); \"${c[@]}\"", "aws"), L("c=(git push --force); \"${c[@]}\"", "git push --force"),
    L("c=(git push); \"${c[@]}\" --force", "git push --force"), L("c=(); \"${c[@]}\" aws", "aws"),
    L("c=(echo); c=(aws); \"${c[@]}\"", "aws"), L("c=(\"aws s3\" ls); ${c[@]}", "aws"),
    L("c=(echo); eval 'c=(aws)'; \"${c[@]}\"", "aws"),
    U("c=(*.sh); \"${c[@]}\""), U("c=(echo $x); \"${c[@]}\""), U("c=(echo hi); c[0]=aws; \"${c[@]}\""),
    U("c=(echo); c+=(aws); \"${c[@]}\""), U("c=(echo); read -a c; \"${c[@]}\""),
    U("c=([0]=aws); \"${c[@]}\""), U("c=(echo {aws,x}); \"${c[@]}\""), U("c=(echo); \"${c[@]}\"; c=(aws)"),
    U("IFS=x; c=(echoxaws); ${c[@]}"), L("PATH=(/x); aws", "aws")));

// A shell asked to read commands without running them (-n) runs none,
// unless it is interactive (which ignores -n).
INSTANTIATE_TEST_SUITE_P(ShellsThatRunNothing, Families, ::testing::Values(
    N("bash -n -c 'aws s3 ls'"), N("sh -n deploy.sh"), N("bash -o noexec -c aws"), N("bash -nc aws"),
    N("bash -n <<< 'kubectl apply'"), L("bash -n -i -c aws", "aws"), L("bash -n +n -c aws", "aws"),
    L("bash +o noexec -c aws", "aws"), L("bash -c 'aws' -n", "aws")));

// The line's own parameters, set at its top level with literal words.
INSTANTIATE_TEST_SUITE_P(TopLevelParameters, Families, ::testing::Values(
    N("set -- echo aws; \"$@\""), N("set -- echo; \"$@\" aws"), N("set -- echo aws; \"$*\""),
    N("set -e -- echo aws; \"$@\""), N("set -- echo aws && \"$@\""), N("set --; \"$@\" ls"),
    L("set -- aws s3; \"$@\"", "aws"), L("set -- aws; $1 s3", "aws"), L("set -- echo; set -- aws; \"$@\"", "aws"),
    L("set -- echo; f(){ \"$@\"; }; f aws", "aws"), L("set --; \"$@\" aws", "aws"),
    U("\"$@\""), U("set -- echo | true; \"$@\""), U("(set -- echo); \"$@\""), U("set -- echo & \"$@\""),
    U("if true; then set -- aws; fi; set -- echo; \"$@\""), U("set -- echo; for i in 1; do \"$@\"; set -- aws; done"),
    U("set -- echo aws; shift; \"$@\""), U("set -- $x; \"$@\""), U("set -- echo; . ./x; \"$@\"")));

// A descriptor's file as the program: the file this command's redirection
// opened there, or unknown.
INSTANTIATE_TEST_SUITE_P(DescriptorPrograms, Families, ::testing::Values(
    L("/dev/fd/3 s3 ls 3</usr/bin/aws", "aws"), L("/dev/stdin s3 < /usr/local/bin/aws", "aws"),
    L("/proc/./self//fd/3 3</usr/bin/aws", "aws"), L("env /dev/fd/3 3</usr/bin/aws", "aws"),
    L("/proc/thread-self/fd/4 4<>/usr/bin/aws 3<x", "aws"), N("/dev/fd/3 3<notes.txt"),
    N("cat /dev/fd/3 3</usr/bin/aws"), N("diff /dev/stdin x < /usr/bin/aws"), U("/dev/fd/3"),
    U("exec 3</usr/bin/aws; /dev/fd/3 s3"), U("/dev/stdin <<< x"), U("/dev/fd/3 3<&0"),
    U("/dev/fd/3 3<$f"), U("ln -sf /proc/self/fd/3 x; ./x s3 3</usr/bin/aws"),
    U("ln -s /dev/stdin x; ./x < /usr/bin/aws"), N("ln -s /proc/self/fd/3 x; cat x 3<notes.txt")));

// An empty unquoted expansion vanishes: the next word is the command.
INSTANTIATE_TEST_SUITE_P(VanishingWords, Families, ::testing::Values(
    L("X=; $X aws s3 ls", "aws"), L("X=' '; $X aws s3", "aws"), N("X=; $X ls"),
    N("X=; \"$X\" aws s3 ls")));

INSTANTIATE_TEST_SUITE_P(FunctionsRunningArguments, Families, ::testing::Values(
    N("f(){ \"$@\"; }; f ls"), N("f(){ \"$@\"; }; f echo aws"),
    N("run(){ echo \"+ $*\"; \"$@\"; }; run ls -la"), N("f(){ $1; }; f ls"),
    N("retry(){ for i in 1 2; do \"$@\" && return; done; }; retry ls"),
    N("f(){ time \"$@\"; }; f ls"), N("function g { command \"$@\"; }; g ls"),
    N("f(){ \"$@\"; }; f git status"), N("f(){ nice \"$@\"; }; f ls; f pwd"),
    N("f(){ \"$@\"; }"), N("f(){ sudo \"$@\"; }; f ls"),
    N("bash -c 'set -euo pipefail; \"$@\"' _ ls"),
    L("f(){ \"$@\"; }; f aws s3 ls", "aws"), L("f(){ $1 s3; }; f aws", "aws"),
    L("f(){ sudo \"$@\"; }; f kubectl get", "kubectl"), L("f(){ g \"$@\"; }; g(){ \"$@\"; }; f aws", "aws"),
    L("f(){ \"$@\"; }; f git push --force", "git push --force"),
    L("f(){ bash -c \"$1\"; }; f aws", "aws"), L("bash -c '\"$@\"' _ aws", "aws"),
    L("bash -c '$1 s3' _ kubectl", "kubectl"), L("f(){ \"$@\"; }; export -f f; bash -c 'f aws'", "aws"),
    U("f(){ \"$@\"; }; f $CMD"), U("f(){ shift; \"$@\"; }; f x aws"),
    U("for i in 1 2; do f aws; f(){ \"$@\"; }; done"), U("f(){ set -- $x; \"$@\"; }; f ls"),
    // ... with more names run before it than CalledNames keeps in place.
    U("for i in 1 2; do a1; a2; a3; a4; a5; a6; a7; a8; a9; f aws; f(){ \"$@\"; }; done"),
    U("f(){ f \"$@\"; }; f x"), U("\"$@\""), U("xargs sh -c '\"$@\"' _")));

}  // namespace
}  // namespace corral::policy

"""The second set of lines for differential_bash.py: ways a listed program
starts that are not written as `aws` in command position (issue 14), and
harmless lines of the same shapes that must stay allowed.

Each family is a list of templates. Placeholders:
  {C}  shell code that runs the stand-in, safe inside single quotes
  {Q}  the same, safe inside double quotes and JSON strings
  {R}  raw shell code for heredoc bodies (any spelling)
  {P}  a word the outer bash turns into the program's name or path
  {S}  the directory holding the stand-in `aws`
Force pushes are judged by the fixture's remote, whose update hook leaves the
same mark when a push is not a fast-forward.
"""
import itertools
import os
import subprocess

# Spellings of code that runs the stand-in.
CODE_SQ = ["aws", "aws s3 ls", "a\\ws s3", '"aws" s3', "true; aws", "true && aws",
           "{S}/aws", "command aws", "env aws s3"]
CODE_DQ = ["aws", "aws s3 ls", "true; aws", "{S}/aws", "env aws"]
CODE_RAW = ["aws", "a''ws s3 ls", "$'\\x61ws'", "if true; then aws; fi", "x=$(aws)"]
PROGRAM = ["aws", "a\\ws", '"aws"', "'aws'", "a''ws", "$'\\x61ws'", "{S}/aws", '"{S}"/aws']

# Where a family line sits in a longer line.
CONTEXTS = ["X", "true && X", "(X)", "{ X; }", "if true; then X; fi", "for i in 1; do X; done"]

FAMILIES = {
    "git-config-program": [
        "git -c core.sshCommand='{C}' fetch ssh://h/r",
        "git -c core.editor='{C}' commit -q --allow-empty",
        "git -c core.fsmonitor='{C}' status",
        "git -c sequence.editor='{C}' rebase -q -i HEAD~1",
        "echo y >> file.txt; git -c diff.external='{C}' diff",
        "git -c gpg.program={P} commit -q -S --allow-empty -m x",
        "git -c alias.x='!{C}' x",
        "git -c core.editor=\"$(cat <<'EOF'\n{R}\nEOF\n)\" commit -q --allow-empty",
        "o=-c; git \"$o\" core.editor='{C}' commit -q --allow-empty",
        "git -c alias.x='!f(){ {C}; }; f' x",
        "git config alias.x '!{C}'; git x",
        "git config core.sshCommand '{C}'; git fetch ssh://h/r",
        "git config --file .git/config core.editor '{C}'; git commit -q --allow-empty",
        "printf '[alias]\\n\\tx = !{C}\\n' >> .git/config; git x",
        "echo '* filter=x' > .gitattributes; git -c filter.x.clean='{C}' add file.txt",
        "echo '* diff=x' > .gitattributes; echo y >> file.txt; git -c diff.x.textconv='{C}' diff",
    ],
    "git-environment": [
        "GIT_SSH_COMMAND='{C}' git ls-remote ssh://h/r",
        "GIT_SSH={P} git ls-remote ssh://h/r",
        "echo y >> file.txt; GIT_EXTERNAL_DIFF={P} git diff",
        "GIT_EDITOR='{C}' git commit -q --allow-empty",
        "GIT_SEQUENCE_EDITOR='{C}' git rebase -q -i HEAD~1",
        "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.sshCommand GIT_CONFIG_VALUE_0='{C}' "
        "git fetch ssh://h/r",
        "GIT_CONFIG_PARAMETERS=\"'core.sshcommand'='{Q}'\" git fetch ssh://h/r",
        "export GIT_SSH_COMMAND='{C}'; git fetch ssh://h/r",
    ],
    "git-transport": [
        "git -c protocol.ext.allow=always ls-remote 'ext::{C}'",
        "git -c protocol.allow=always clone -q 'ext::{C}' x",
        "git -c protocol.ext.allow=always fetch ext::{P}",
        "git -c protocol.ext.allow=always ls-remote \"$(cat <<'EOF'\next::{S}/aws\nEOF\n)\"",
        "git -c protocol.ext.allow=always archive --remote='ext::{S}/aws s3' HEAD",
        "git -c protocol.ext.allow=always push -q --repo='ext::{S}/aws s3' --all",
        "git -c protocol.ext.allow=always -c remote.x.url='ext::{S}/aws s3' fetch -q x",
    ],
    "git-hooks": [
        "printf '#!/bin/sh\\n{C}\\n' > .git/hooks/pre-commit; chmod +x .git/hooks/pre-commit; "
        "git commit -q --allow-empty -m x",
        "echo '{C}' > .git/hooks/post-checkout; chmod +x .git/hooks/post-checkout; "
        "git checkout -q -b y",
        "mkdir h; printf '#!/bin/sh\\n{C}\\n' > h/pre-commit; chmod +x h/pre-commit; "
        "git -c core.hooksPath=h commit -q --allow-empty -m x",
        "cat > .git/hooks/pre-commit <<'EOF'\n#!/bin/sh\n{R}\nEOF\nchmod +x .git/hooks/pre-commit\n"
        "git commit -q --allow-empty -m x",
    ],
    "make": [
        "printf 'x:\\n\\t{C}\\n' | make -s -f -",
        "make -s -f - <<'EOF'\nx:\n\t{R}\nEOF",
        "make -s --eval='x: ; {C}' x",
        "make -s -E 'x: ; {C}' x",
        "make -s -f /dev/null --eval='y:=$(shell {C})'",
        "make -s SHELL={P} -f /dev/null --eval='x: ; true' x",
        "echo 'x: ; {C}' > Makefile; make -s",
        "printf 'x:\\n\\t{C}\\n' > GNUmakefile && make -s",
        "mkdir d; echo 'x: ; {C}' > d/Makefile; make -s -C d",
        "make -s -f <(echo 'x: ; {C}')",
        "make -s --file=/dev/stdin <<< 'x: ; {C}'",
    ],
    "npm": [
        "npm --script-shell={P} test",
        "npm test --script-shell {P}",
        "npm_config_script_shell={P} npm test",
        "npm pkg set scripts.test='{C}' && npm test",
        "npx -c '{C}'",
        "npm exec -c '{C}'",
        "npm exec --call '{C}'",
        "npm config set script-shell {P} && npm test",
        "echo '{\"scripts\":{\"test\":\"{Q}\"}}' > package.json; npm test",
        "npm run test --script-shell={P}",
    ],
    "tar-zip": [
        "tar cf x.tar file.txt; tar xf x.tar --to-command='{C}'",
        "tar -cf x.tar -I {P} file.txt",
        "tar --use-compress-program={P} -cf x.tar file.txt",
        "tar -cf /dev/null --checkpoint=1 --checkpoint-action=exec='{C}' file.txt",
        "tar -c -f /dev/null --checkpoint=1 --checkpoint-action exec='{C}' file.txt",
        "zip -q x.zip file.txt -T -TT '{C}'",
        "zip -q -T --unzip-command='{C}' x.zip file.txt",
        "zip -q -TT={P} -T x.zip file.txt",
    ],
    "rsync-scp-ssh": [
        "rsync -e '{C}' file.txt h:x",
        "rsync --rsh='{C}' file.txt h:x",
        "scp -o ProxyCommand='{C}' file.txt h:x",
        "scp -S {P} file.txt h:x",
        "ssh -o proxycommand='{C}' h",
        "ssh -oProxyCommand='{C}' h true",
        "ssh -F /dev/null -o 'ProxyCommand {C}' h",
        "sftp -o ProxyCommand='{C}' h",
        "sftp -S {P} h",
    ],
    "sed": [
        "sed '1e {C}' file.txt",
        "sed 's#.*#{C}#e' file.txt",
        "sed -n 's#hello#{C}#ep' file.txt",
        "sed -e 's/x/y/' -e '1e {C}' file.txt",
        "sed --expression='1 e {C}' file.txt",
        "echo '1e {C}' > s.sed; sed -f s.sed file.txt",
        "sed -n '1{e {C}\n}' file.txt",
        "echo '{C}' | sed e",
    ],
    "m4": [
        "echo 'syscmd({C})' | m4",
        "m4 <<< 'esyscmd({C})'",
        "m4 <<'EOF'\nsyscmd({R})\nEOF",
        "echo 'syscmd({C})' > x.m4; m4 x.m4",
    ],
    "vim-ex": [
        "vim -es -c '!{C}' -c 'qa!'",
        "ex -s -c '!{C}' -c q",
        "vi -es '+!{C}' '+q'",
        "vim -es -c 'r !{C}' -c 'q!'",
        "vim -es --cmd '!{C}' -c q",
        "vim -es -c 'call system(\"{Q}\")' -c q",
        "echo '!{C}' > s.vim; vim -es -S s.vim -c q",
    ],
    "socat-cmake-expect-script": [
        "socat - 'EXEC:{C}'",
        "socat - SYSTEM:'{C}'",
        "socat -u 'SYSTEM:{C}' -",
        "socat - exec:{P}",
        "cmake -E env {P}",
        "cmake -E env FOO=1 {P} s3",
        "cmake -E time {P}",
        "cmake -E chdir . {P}",
        "expect -c 'spawn {C}; expect eof'",
        "expect -c 'exec {C}'",
        "expect -c 'system {C}'",
        "script -qc '{C}' /dev/null",
        "script -q /dev/null -c '{C}'",
        "script --command '{C}' -q /dev/null",
        "SHELL={P} script -q /dev/null",
    ],
    "interpreter-api": [
        "python3 -c 'import os; n=\"a\"+\"ws\"; os.execvp(n, [n])'",
        "python3 -c 'import subprocess as s; s.call([\"a\"+\"ws\"])'",
        "python3 -c 'import subprocess; subprocess.run([chr(97)+\"ws\"])'",
        "python3 -c 'import os; os.system(\"swa\"[::-1])'",
        "python3 -c 'import pty; pty.spawn(\"aws\")'",
        "python3 -c 'import os; os.spawnlp(os.P_WAIT, \"aws\", \"aws\")'",
        "python3 -c '__import__(\"os\").system(\"a\"+\"ws\")'",
        "python3 -c 'import os; os.posix_spawnp(\"aws\", [\"aws\"], {})'",
        "python3 -c 'import os; getattr(os, \"sys\"+\"tem\")(\"aws\")'",
        "python3 -c 'import subprocess; subprocess.run(bytes.fromhex(\"617773\").decode())'",
        "node -e 'require(\"child_process\").spawnSync(\"a\"+\"ws\")'",
        "node -e 'require(\"child_process\").execFileSync(\"aws\")'",
        "node -e 'const {spawnSync: s} = require(\"child_process\"); s([\"a\",\"w\",\"s\"].join(\"\"))'",
        "node -e 'require(\"child_\" + \"process\").execSync(\"aws\")'",
        "perl -e 'system(\"a\".\"ws\")'",
        "perl -e 'exec \"aws\"'",
        "perl -e '$x=\"a\".\"ws\"; `$x`'",
        "perl -e 'open(my $f, \"-|\", \"aws\"); <$f>'",
        "perl -e 'qx(aws)'",
        "awk 'BEGIN{system(\"a\" \"ws\")}'",
        "awk 'BEGIN{\"aws\" | getline}'",
        "awk 'BEGIN{print \"x\" | \"aws\"}'",
        "awk 'BEGIN{c=\"a\"; c=c \"ws\"; system(c)}'",
    ],
    "files-run-later": [
        "echo '{C}' > x.sh; bash x.sh",
        "printf '%s\\n' '{C}' > x.sh; sh x.sh",
        "echo '{C}' > x.sh; . ./x.sh",
        "echo '{C}' > x.sh; source x.sh",
        "echo '{C}' > x.sh; chmod +x x.sh; ./x.sh",
        "cat > x.sh <<'EOF'\n{R}\nEOF\nbash x.sh",
        "echo '{C}' | tee x.sh >/dev/null; bash x.sh",
        "echo '{C}' > x; bash < x",
        "echo '{C}' >> x.sh; bash -e x.sh",
        "mkdir -p d && echo '{C}' > d/run && bash d/run",
        "echo 'import os; os.system(\"{Q}\")' > x.py; python3 x.py",
        "echo '{C}' > x.sh && chmod 755 x.sh && PATH=.:$PATH x.sh",
    ],
    "startup-prompt": [
        "BASH_ENV='$({C})' bash -c true",
        "echo '{C}' > e.sh; BASH_ENV=e.sh bash -c true",
        "ENV='$({C})' sh -i -c true",
        "echo '{C}' > e.sh; ENV=./e.sh sh -i -c true",
        "PS4='$({C})'; set -x; true",
        "PS4='$({C})' bash -xc true",
        "x='$({C})'; echo \"${x@P}\"",
        "echo '{C}' > .bashrc; bash -i -c true",
        "echo '{C}' > rc; bash --rcfile rc -i -c true",
        "PROMPT_COMMAND='{C}' bash -i <<< true",
    ],
    "history": [
        "history -s '{C}'; fc -s",
        "history -s x; fc -s x='{C}'",
        "history -s x; fc -e {P}",
        "echo '{C}' > h; history -r h; fc -s",
        "set -H; set -o history; history -s '{C}'\n!!",
    ],
    "copies-links-path": [
        "cp {S}/aws x; ./x s3",
        "cp $(which {P}) x; ./x",
        "cp \"$(command -v {P})\" y && ./y",
        "ln -s $(which {P}) z; ./z",
        "ln -s {S}/aws ls; PATH=.:$PATH ls",
        "mkdir d; cp $(type -P {P}) d/ls; PATH=$PWD/d:$PATH; ls",
        "hash -p {S}/aws ls; ls",
        "BASH_CMDS[ls]={S}/aws; ls",
        "install -m755 $(which {P}) q; ./q",
        "cat $(which {P}) > w; chmod +x w; ./w",
        "cp `which {P}` v; ./v",
    ],
    "bash-evaluates": [
        "x='a[$({C})]'; echo $((x))",
        "x='a[$({C})]'; (( x ))",
        "x='a[$({C})]'; [[ $x -eq 1 ]]",
        "[[ -v 'a[$({C})]' ]]",
        "test -v 'a[$({C})]'",
        "printf -v 'a[$({C})]' x",
        "read 'a[$({C})]' <<< x",
        "declare -n r='a[$({C})]'; echo $r",
        "let 'x=a[$({C})]'",
        "mapfile -C '{C}' -c 1 <<< x",
        "compgen -C '{C}' x",
        "declare 'a[$({C})]=1'",
        "a['$({C})']=1",
        "echo ${a['$({C})']}",
        "echo $(( '$({C})' ))",
        "declare -i x; x='a[$({C})]'",
        "shopt -s expand_aliases; BASH_ALIASES[x]='{C}'; eval x",
        "env 'BASH_FUNC_x%%=() { {C}; }' bash -c x",
        "x='a[`{C}`]'; ((x))",
        "x='a[$({C})]'; echo ${!x}",
        "x='a[$({C})]' bash -c '((x))'",
    ],
    # Issue 30: argument vectors in arrays, and words that vanish.
    "argument-arrays": [
        "c=({P}); \"${c[@]}\"", "c=({P}); ${c[@]}", "c=({P}); $c", "c=(env {P}); \"${c[@]}\"",
        "c=(); \"${c[@]}\" {P}", "c=(echo); c=({P}); \"${c[@]}\"", "c=(echo); eval 'c=({P})'; \"${c[@]}\"",
        "set -- {P}; \"$@\"", "set -- echo; set -- {P}; \"$@\"", "set -- {P} s3; $1 ls", "set --; \"$@\" {P}",
        "/dev/fd/3 s3 3<{S}/aws", "/dev/stdin s3 < {S}/aws", "env /proc/self/fd/3 3<{S}/aws",
        "ln -sf /proc/self/fd/3 fd-link; ./fd-link s3 3<{S}/aws",
        "bash -n +n -c '{C}'", "bash -c '{C}' -n", "bash +o noexec -c '{C}'",
        "X=; $X {P}", "X=' '; $X {P}", "c=(echo); c[0]={P}; \"${c[@]}\"", "c=(echo); c+=({P}); ${c[@]:1}",
    ],
    "nul-in-ansi-c": [
        "$'aws\\0x' s3", "a$'\\0'ws", "$'aw\\x00z's", "$'aw\\c@z's", "x=$'aws\\0y'; $x",
        "$'\\x61ws\\0' s3", "$'aw\\u0000zz's ls",
    ],
    "force-push": [
        "git -c remote.origin.push=+main:main push -q",
        "git config remote.origin.push +main:main; git push -q",
        "git config push.default matching; git push -q origin +main",
        "git send-pack --force ./remote.git main",
        "git push -q --mirro ./remote.git",
        "git push -q origin +HEAD:main",
        "git push -q origin '+main'",
        "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=remote.origin.push GIT_CONFIG_VALUE_0=+main:main "
        "git push -q",
        "GIT_CONFIG_PARAMETERS=\"'remote.origin.push'='+main:main'\" git push -q",
        "git -c alias.p='push -f' p -q origin main",
        "git config alias.fp 'push --force'; git fp -q origin main",
        "printf '[remote \"origin\"]\\n\\tpush = +main:main\\n' >> .git/config; git push -q",
        "git push -q --force-if-includes -f origin main",
        "git -c remote.origin.mirror=true push -q",
        "git send-pack --all --force ./remote.git",
        "git push -q origin +refs/heads/main:refs/heads/main",
    ],
}

# Families whose lines need these programs (checked before running).
NEEDS = {
    "make": ["make"], "npm": ["npm", "npx"], "tar-zip": ["tar", "zip", "unzip"],
    "rsync-scp-ssh": ["rsync", "scp", "ssh", "sftp"], "sed": ["sed"], "m4": ["m4"],
    "vim-ex": ["vim", "ex", "vi"],
    "socat-cmake-expect-script": ["socat", "cmake", "expect", "script"],
    "interpreter-api": ["python3", "node", "perl", "awk"],
}

# Lines of the same shapes that start no listed program: refusing one is a
# mistake the differential counts.
HARMLESS = {
    "interpreter-print": [
        "python3 -c 'print(\"aws\")'",
        "python3 -c \"print('aws s3 ls')\"",
        "python3 -c 'import json; print(json.dumps({\"cmd\": \"aws s3 ls\"}))'",
        "python3 - <<'EOF'\nprint(\"kubectl get pods\")\nEOF",
        "awk 'BEGIN{print \"aws\"}'",
        "awk '{print \"kubectl\", $1}' file.txt",
        "perl -e 'print \"aws\\n\"'",
        "node -e 'console.log(\"aws\")'",
        "node -e 'console.log([\"kubectl\", \"get\"].join(\" \"))'",
        "python3 -c 'import sys; sys.stdout.write(\"terraform plan\\n\")'",
    ],
    "known-assignment": [
        "x=ls; $x",
        "x=ls; \"$x\" -la",
        "cmd='ls -la'; $cmd",
        "X=echo; $X aws",
        "export x=ls; $x",
        "x=/bin/ls; $x",
        "a=ls; b=pwd; $a; $b",
        "x=ls && $x",
        "{ x=ls; }; $x",
        "x=ls; if true; then $x; fi",
        "x=ls; (cd /; $x)",
        "x=ls; $x | wc -l",
        "x=ls; f(){ $x; }; f",
    ],
    "argument-arrays": [
        "cmd=(echo aws s3 ls); \"${cmd[@]}\"",
        "cmd=(echo kubectl get pods); ${cmd[@]}",
        "args=(grep -c aws file.txt); \"${args[@]}\"",
        "c=(printf '%s\\n' 'aws s3 ls'); \"${c[@]}\"",
        "c=(echo); \"${c[@]}\" aws",
        "c=(echo aws); $c",
        "X=; \"$X\" aws s3 ls 2>/dev/null || true",
        "X=; $X echo aws",
        "set -- echo aws s3 ls; \"$@\"",
        "set -e -- printf '%s\\n' kubectl; \"$@\"",
        "cat /dev/fd/3 3<file.txt",
        "ln -sf /proc/self/fd/3 fd-link; cat fd-link 3<file.txt",
        "/dev/fd/3 3<file.txt 2>/dev/null || true",
        "bash -n -c 'aws s3 ls'",
        "sh -n -c 'kubectl get pods'",
        "bash -o noexec -c aws",
        "printf 'aws s3 ls\\n' > d.sh; bash -n d.sh",
    ],
    "function-runs-arguments": [
        "f(){ \"$@\"; }; f ls",
        "f(){ \"$@\"; }; f echo aws",
        "run(){ echo \"+ $*\"; \"$@\"; }; run ls -la",
        "f(){ $1; }; f ls",
        "retry(){ for i in 1 2; do \"$@\" && return; done; }; retry ls",
        "f(){ time \"$@\"; }; f ls",
        "function g { command \"$@\"; }; g ls",
        "f(){ \"$@\"; }; f git status",
        "f(){ nice \"$@\"; }; f ls; f pwd",
    ],
    "same-shapes": [
        "git -c core.pager=cat log -1",
        "git -c core.editor=true commit -q --allow-empty",
        "git -c alias.st=status st",
        "git -c alias.l='!ls' l",
        "git config alias.st status; git st",
        "printf 'x:\\n\\t@echo aws\\n' | make -s -f -",
        "make -s --eval 'x: ; @true' x",
        "echo 'x: ; @echo aws' > Makefile; make -s",
        "tar cf x.tar file.txt; tar xf x.tar --to-command=cat",
        "tar -I gzip -cf x.tgz file.txt",
        "sed 's/hello/aws/' file.txt",
        "sed -n '/aws/p' file.txt",
        "sed '1i aws' file.txt",
        "echo 'define(x, aws)x' | m4",
        "vim -es -c '%s/hello/aws/' -c 'wq' file.txt",
        "cmake -E echo aws",
        "cmake -E env FOO=1 ls",
        "expect -c 'puts aws'",
        "script -qc ls /dev/null",
        "echo 'echo aws' > x.sh; bash x.sh",
        "cat > x.sh <<'EOF'\nls\nEOF\nbash x.sh",
        "cp /bin/ls x; ./x",
        "ln -s /bin/ls y; ./y",
        "x='a[1]'; a=(5 6); echo $((x))",
        "printf -v y '%s' aws; echo $y",
        "read x <<< aws; echo $x",
        "let x=1+2",
        "test -v HOME",
        "mapfile -t l < file.txt",
        "echo $'aws\\0'",
        "git push -q origin main",
        "git push -q --force-with-lease origin main",
        "git push -q --follow-tags origin main",
        "git -c push.default=simple push -q",
        # Issue 27: a quoted heredoc's text as an argument is data.
        "git commit -q --allow-empty -m \"$(cat <<'EOF'\nFix the deploy notes\n\nWe no longer run "
        "aws s3 sync or kubectl apply by hand; terraform apply does it.\n"
        "git push --force is never needed.\nEOF\n)\"",
        "git tag -a v1 -m \"$(cat <<'EOF'\nkubectl apply is gone\nEOF\n)\"",
        "git commit -q --allow-empty -m \"$(cat <<EOF\nNotes from $(date +%F): aws s3 sync\nEOF\n)\"",
    ],
}


def make_fixture(path, remote_hook_mark):
    """A git repository whose main has diverged from its remote's, so only a
    forced push succeeds; the remote's update hook marks a forced one."""
    env = dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@t", GIT_COMMITTER_NAME="t",
               GIT_COMMITTER_EMAIL="t@t", GIT_CONFIG_NOSYSTEM="1", HOME=path)

    def git(*args, cwd=path):
        subprocess.run(["git", *args], cwd=cwd, env=env, check=True, stdout=subprocess.DEVNULL)

    os.makedirs(path)
    git("init", "-q", "-b", "main", ".")
    with open(os.path.join(path, "file.txt"), "w") as f:
        f.write("hello\n")
    with open(os.path.join(path, "package.json"), "w") as f:
        f.write('{"name": "x", "version": "1.0.0", "scripts": {"test": "echo ok"}}\n')
    git("add", ".")
    git("commit", "-q", "-m", "init")
    git("commit", "-q", "--allow-empty", "-m", "second")
    git("clone", "-q", "--bare", ".", "remote.git")
    git("config", "receive.denyNonFastForwards", "false", cwd=os.path.join(path, "remote.git"))
    git("remote", "add", "origin", "./remote.git")
    git("fetch", "-q", "origin")
    git("branch", "-q", "-u", "origin/main")
    # The remote moves on; the local branch rewrites: only a force updates it.
    tip = subprocess.run(["git", "commit-tree", "-p", "HEAD", "-m", "remote", "HEAD^{tree}"],
                         cwd=path, env=env, check=True, capture_output=True, text=True).stdout.strip()
    git("push", "-q", "origin", tip + ":refs/heads/main")
    git("update-ref", "refs/remotes/origin/main", "HEAD")  # a stale view: leases fail
    git("commit", "-q", "--amend", "--allow-empty", "-m", "local")
    with open(os.path.join(path, ".git", "info", "exclude"), "a") as f:
        f.write("remote.git\n")
    hook = os.path.join(path, "remote.git", "hooks", "update")
    with open(hook, "w") as f:
        f.write("#!/bin/sh\n# Not a fast-forward: the old tip is not an ancestor of the new one.\n"
                "if [ \"$2\" != 0000000000000000000000000000000000000000 ] && "
                "! git merge-base --is-ancestor \"$2\" \"$3\"; then touch \"$" + remote_hook_mark +
                "/ran\"; fi\n")
    os.chmod(hook, 0o755)


def _fill(template, stub_dir):
    slots = [s for s in ("{C}", "{Q}", "{R}", "{P}") if s in template]
    if not slots:
        yield template.replace("{S}", stub_dir)
        return
    choices = {"{C}": CODE_SQ, "{Q}": CODE_DQ, "{R}": CODE_RAW, "{P}": PROGRAM}
    for values in itertools.product(*(choices[s] for s in slots)):
        line = template
        for slot, value in zip(slots, values):
            line = line.replace(slot, value)
        yield line.replace("{S}", stub_dir)


def _in_context(context, line):
    # A heredoc's closing word must stand alone on its line.
    if "\n" in line:
        context = context.replace("X; ", "X\n").replace("X)", "X\n)")
    return context.replace("X", line)


def family_lines(stub_dir, every_context=False):
    """(family, line) pairs: every template with every spelling, each in one
    context (rotating), or in every context."""
    out = []
    for family, templates in FAMILIES.items():
        turn = 0
        for template in templates:
            for line in _fill(template, stub_dir):
                contexts = CONTEXTS if every_context else [CONTEXTS[turn % len(CONTEXTS)]]
                turn += 1
                for context in contexts:
                    out.append((family, _in_context(context, line)))
    return list(dict.fromkeys(out))


def harmless_lines():
    return [(family, line) for family, lines in HARMLESS.items() for line in lines]

// Wrappers, shells given code, eval, xargs, find -exec, and the commands
// whose program is only known at run time.
#include <gtest/gtest.h>

#include "policy/matcher/matcher_test_util.h"

namespace corral::policy {
namespace {

using testing::Case;
using testing::L;
using testing::N;
using testing::U;

class Wrappers : public ::testing::TestWithParam<Case> {};
TEST_P(Wrappers, Decides) { testing::ExpectCase(testing::DefaultMatcher(), GetParam()); }

INSTANTIATE_TEST_SUITE_P(WithOptions, Wrappers, ::testing::Values(
    L("sudo -u root aws s3 ls", "aws"), L("sudo -E -H -u bob aws", "aws"),
    L("sudo -uroot aws", "aws"), L("sudo --user=root aws", "aws"), L("sudo --user root aws", "aws"),
    L("sudo -- aws", "aws"), L("sudo A=1 aws", "aws"), L("sudo sudo aws", "aws"),
    L("env -i -u HOME A=B aws s3 ls", "aws"), L("env -C /tmp aws", "aws"),
    L("env --unset=X aws", "aws"), L("env - aws", "aws"), L("env \"A=1\" aws", "aws"),
    L("env -S 'aws s3 ls'", "aws"), L("env -S\"aws s3\"", "aws"),
    L("env --split-string='kubectl get'", "kubectl"), L("env -S '-i A=1 aws' x", "aws"),
    L("nice -n 5 aws", "aws"), L("nice -10 aws", "aws"), L("nice --adjustment=3 aws", "aws"),
    L("timeout 5 aws", "aws"), L("timeout -k 3 5 aws", "aws"), L("timeout -s KILL 5 kubectl", "kubectl"),
    L("timeout --signal=TERM 1m aws", "aws"), L("exec -a name aws", "aws"), L("exec -cl aws", "aws"),
    L("command -p aws", "aws"), L("command -- aws", "aws"), L("builtin exec aws", "aws"),
    L("nohup aws &", "aws"), L("time -p nice -n 1 sudo -u x env A=1 aws", "aws"),
    L("stdbuf -o0 -eL aws", "aws"), L("stdbuf --output=0 aws", "aws"),
    L("watch -n 1 kubectl get pods", "kubectl"), L("watch 'kubectl get pods | head'", "kubectl"),
    L("flock /tmp/lock aws", "aws"), L("flock -w 5 /tmp/lock aws", "aws"),
    L("flock /tmp/lock -c 'aws s3 ls'", "aws"), L("setsid -f aws", "aws"), L("chroot / aws", "aws"),
    L("chroot --userspec=a:b / aws", "aws"), L("doas -u root aws", "aws"), L("su -c 'aws s3 ls'", "aws"),
    L("su - root -c 'aws s3 ls'", "aws"), L("su --command='aws s3' bob", "aws"),
    L("ionice -c 3 aws", "aws"), L("taskset -c 0,1 aws", "aws"), L("taskset 0x3 aws", "aws"),
    L("unbuffer aws", "aws"), L("caffeinate -i -t 60 aws", "aws"), L("strace -f -o out aws", "aws"),
    L("ltrace -e malloc aws", "aws"), L("gdb --args aws s3 ls", "aws"), L("valgrind --leak-check=full aws", "aws"),
    L("nsenter -t 1 -m -u aws", "aws"), L("unshare -r -n aws", "aws"), L("runuser -u bob -- aws", "aws"),
    L("runuser -l bob -c 'aws'", "aws"), L("chrt -f 10 aws", "aws"), L("script -qc 'aws s3 ls' /dev/null", "aws"),
    L("parallel aws s3 ls ::: a b", "aws"), L("parallel ::: 'aws s3 ls' 'echo'", "aws"),
    L("npx kubectl get pods", "kubectl"), L("npx -y kubectl@1.30 get", "kubectl"),
    L("npx -p aws-cdk -p x aws", "aws"), L("npx -c 'terraform plan'", "terraform"),
    L("pnpm exec terraform plan", "terraform"), L("pnpm dlx pulumi up", "pulumi"),
    L("bunx kubectl", "kubectl"), L("uvx --from awscli aws s3 ls", "aws"),
    L("pipx run --spec awscli aws", "aws"), L("npm exec -- kubectl get", "kubectl"),
    L("uv run --with boto3 aws s3 ls", "aws"), L("poetry run aws", "aws"),
    L("bundle exec kubectl", "kubectl"), L("dotenv -e .env -- aws", "aws"),
    L("with-contenv aws", "aws"), L("with-secrets aws", "aws"), L("direnv exec . aws", "aws"),
    L("nix-shell -p awscli2 --run 'aws s3 ls'", "aws"), L("aws-vault exec prod -- aws s3 ls", "aws"),
    L("ssh host aws s3 ls", "aws"), L("ssh -i key -p 22 host 'kubectl get pods'", "kubectl"),
    L("busybox sh -c aws", "aws"), L("xvfb-run -a aws", "aws"),
    L("systemd-run --user -p X=1 aws", "aws"),
    L("tmux new-session -d 'aws s3 sync . s3://b'", "aws"), L("tmux send-keys -t 0 'kubectl get' Enter", "kubectl"),
    L("screen -dmS job aws s3 ls", "aws"), L("ssh -o ProxyCommand='aws ssm start-session' host", "aws"),
    L("ssh -oProxyCommand=kubectl host", "kubectl"), L("rsync -e 'aws x' a b:", "aws"),
    L("rsync --rsh='kubectl exec -i' a b:", "kubectl"), L("hash -p /usr/bin/aws x; x s3 ls", "aws"),
    L("at now <<< 'aws s3 ls'", "aws"), L("echo 'aws s3 ls' | at now + 1 minute", "aws"),
    U("at now < jobs.txt"), N("at -f job.sh now"), N("ssh host ls"), N("rsync -av src/ dst/"),
    N("tmux ls"), N("screen -ls"),
    L("sudo -s <<EOF\naws s3 ls\nEOF", "aws"), L("sudo -i <<< 'kubectl get'", "kubectl"),
    L("echo 'aws s3 ls' | su - bob", "aws"), L("ssh host <<'EOF'\nkubectl get pods\nEOF", "kubectl"),
    U("curl -s x | sudo -s"), N("sudo -v"), N("sudo -l"), N("sudo -k && ls"),
    L("setpriv --reuid 1000 --regid 1000 --clear-groups aws", "aws"),
    L("setpriv --nnp kubectl get", "kubectl"), L("prlimit --nofile=100 aws", "aws"),
    L("prlimit -n100 -p 1 aws", "aws"), L("fakeroot -- aws", "aws"), L("fakeroot -u aws", "aws"),
    L("numactl -N0 aws", "aws"), L("numactl --interleave=all kubectl", "kubectl"),
    L("perf stat -e cycles aws", "aws"), L("perf record -g -- aws", "aws"),
    L("cgexec -g cpu:grp aws", "aws"), L("setarch x86_64 -R aws", "aws"),
    L("ssh-agent bash -c 'aws s3 ls'", "aws"), L("setuidgid bob aws", "aws"),
    L("envdir ./env aws", "aws"), L("/lib64/ld-linux-x86-64.so.2 /usr/bin/aws s3 ls", "aws"),
    L("ld.so --library-path /x /usr/local/bin/kubectl", "kubectl"),
    L("bwrap --ro-bind / / --dev /dev --unshare-net aws s3 ls", "aws"),
    L("bwrap --bind /a /b --setenv A B -- kubectl", "kubectl"),
    L("bwrap --overlay /rw /work /x --proc /proc aws", "aws"),
    N("bwrap --ro-bind /aws /x ls"), N("perf report"), N("numactl --hardware")));

// A user may list a wrapper itself: it is checked before it is stripped.
TEST(WrapperEntries, WrapperIsCheckedFirst) {
  Matcher m = std::move(Matcher::Create({"sudo", "aws", "env"}).value());
  EXPECT_EQ(m.Check("sudo aws s3 ls").entry, "sudo");
  EXPECT_EQ(m.Check("nice sudo -u x aws").entry, "sudo");
  EXPECT_EQ(m.Check("env A=1 aws").entry, "env");
  EXPECT_EQ(m.Check("command sudo ls").entry, "sudo");
}

INSTANTIATE_TEST_SUITE_P(LookupsOnly, Wrappers, ::testing::Values(
    N("command -v aws"), N("command -V aws"), N("command -pv aws"), N("type aws"),
    N("which aws"), N("hash aws"), N("whereis kubectl"), N("timeout 5 echo aws"),
    N("nice -n 5 echo aws"), N("sudo -u aws ls"), N("env AWS=1 ls"), N("xargs echo aws"),
    N("find . -name aws -exec echo {} +"), N("find . -name kubectl"), N("watch -n aws ls"),
    N("xargs"), N("python3 -c 'import aws'"), N("node -e 'console.log(process.env.AWS)'"),
    N("awk '/kubectl/ {print $1}' log.txt"), N("sed -i 's/aws/gcp/g' config.yml"),
    N("pytest -q tests/ -k 'not aws'"), N("docker ps --filter name=kubectl")));

INSTANTIATE_TEST_SUITE_P(ShellsAndEval, Wrappers, ::testing::Values(
    L("sh -c 'aws s3 ls'", "aws"), L("bash -lc \"aws s3 ls\"", "aws"),
    L("bash -e -c 'kubectl get pods'", "kubectl"), L("bash -xec aws", "aws"),
    L("bash -o pipefail -c 'kubectl get | head'", "kubectl"), L("bash --norc --noprofile -c aws", "aws"),
    L("bash -c -e 'aws'", "aws"), L("bash +x -c aws", "aws"), L("bash -O extglob -c aws", "aws"),
    L("ksh -c aws", "aws"), L("mksh -c aws", "aws"), L("/bin/bash -c 'aws'", "aws"),
    L("bash -c \"bash -c 'aws s3 ls'\"", "aws"),
    L("bash -c \"bash -c \\\"bash -c 'sh -c aws'\\\"\"", "aws"),
    L("bash -c 'aws s3 ls' &", "aws"), L("bash -c 'echo x; aws' arg0 arg1", "aws"),
    L("eval 'aws s3 ls'", "aws"), L("eval \"kubectl get pods\"", "kubectl"),
    L("eval a'w's s3", "aws"), L("eval 'eval aws'", "aws"), L("eval eval aws", "aws"),
    L("echo 'aws s3 ls' | bash", "aws"), L("printf '%s\\n' 'aws s3 ls' | sh", "aws"),
    L("trap 'aws s3 ls' EXIT", "aws"), L("alias x='aws s3'; x ls", "aws"),
    L("python3 -c 'import os; os.system(\"aws s3 ls\")'", "aws"),
    L("python3 - <<'EOF'\nimport os\nos.system(\"aws s3 ls\")\nEOF", "aws"),
    L("node <<< 'require(\"child_process\").execSync(\"kubectl get pods\")'", "kubectl"),
    L("perl -w <<EOF\nsystem('aws', 's3', 'ls');\nEOF", "aws"),
    N("python3 report.py <<EOF\naws s3 ls\nEOF"), N("python3 - <<EOF\nprint(1)\nEOF"),
    L("python3 -c 'import subprocess; subprocess.run([\"git\", \"push\", \"--force\"])'",
      "git push --force"),
    L("perl -e 'system(\"kubectl get pods\")'", "kubectl"), L("node -e '`aws s3 ls`'", "aws"),
    L("git -c alias.p='push --force' p", "git push --force"),
    L("git -c alias.x='!aws s3 ls' x", "aws"), L("git config alias.up '!kubectl apply'", "kubectl"),
    L("git -c core.sshCommand='aws ssm start' fetch", "aws"),
    L("GIT_SSH_COMMAND='aws ssm' git fetch", "aws"), L("git bisect run aws s3 ls", "aws"),
    L("git rebase -x 'aws s3 ls' main", "aws"), L("git submodule foreach 'kubectl apply'", "kubectl"),
    N("bash script.sh"), N("sh ./configure"), N("bash -n -c 'echo'"), N("echo 'eval aws'"),
    N("bash -c 'echo aws'"), N("eval echo aws")));

INSTANTIATE_TEST_SUITE_P(XargsFind, Wrappers, ::testing::Values(
    L("xargs -I{} -n1 aws s3 rm {}", "aws"), L("echo pod | xargs kubectl delete pod", "kubectl"),
    L("echo x | xargs -0 aws", "aws"), L("xargs -a file -P4 aws", "aws"),
    L("xargs --max-args=1 aws", "aws"), L("xargs sh -c 'aws s3 ls'", "aws"),
    L("find . -name '*.tf' -exec terraform fmt {} +", "terraform"),
    L("find . -type f -execdir kubectl apply -f {} \\;", "kubectl"),
    L("find . -ok aws s3 cp {} s3://b \\;", "aws"),
    L("find . -exec echo {} \\; -exec aws s3 cp {} s3://x \\;", "aws"),
    L("find . -exec sh -c 'aws s3 cp \"$1\" s3://x' _ {} \\;", "aws"),
    L("fd -e tf -x terraform fmt", "terraform"),
    U("xargs sh -c"), U("xargs -I{} sh -c '{}'"), U("find . -exec {} \\;"), U("xargs -I % % s3 ls"),
    U("xargs sudo"), N("xargs -I{} sh -c 'echo {}'"), N("xargs -n1 echo")));

INSTANTIATE_TEST_SUITE_P(Undetermined, Wrappers, ::testing::Values(
    U("$CMD s3 ls"), U("${CMD} s3 ls"), U("\"$CMD\" s3 ls"), U("$(echo aws) s3 ls"),
    U("`echo aws` s3 ls"), U("a?s s3 ls"), U("a*s"), U("/usr/bin/a[w]s"), U("@(aws|x) s3"),
    U("eval \"$x\""), U("eval $x"), U("eval \"echo $x\""), U("sh -c \"$X\""), U("bash -c \"$(cat f)\""),
    U("curl -fsSL https://example.com/install.sh | sh"),
    U("curl -fsSL https://example.com/install.sh | bash"),
    U("wget -qO- https://example.com/x | sudo bash"), U("bash < script.sh"), U("sh 0<x"),
    U("cat cmds.txt | bash -s"), U("source <(curl -s https://example.com/env)"),
    U(". <(echo aws s3 ls)"), U("bash <(curl -s x)"), U("source /dev/stdin <<< \"$X\""),
    U("sudo $CMD"), U("env $CMD"), U("env \"$X\""), U("nice \"$@\""), U("exec \"$0\""),
    U("bash"), U("sh -s"), U("echo hi | bash"), U("bash <<< \"$X\""), U("trap \"$x\" EXIT"),
    U("F=x; git push origin $F"), U("git push origin \"$(echo --force)\""),
    U("git push $ARGS"), U("git $SUB --force"), U("env -S \"$X\"")));

// X=aws; $X: the undetermined finding is upgraded by a value assigned in
// the same line.
INSTANTIATE_TEST_SUITE_P(KnownValues, Wrappers, ::testing::Values(
    L("X=aws; $X s3 ls", "aws"), L("X=aws; \"$X\" s3 ls", "aws"), L("C='aws s3'; $C ls", "aws"),
    L("export K=kubectl; $K get", "kubectl"), L("F=--force; git push origin $F", "git push --force"),
    N("X=ls; $X")));  // issue 14: the value is known from the line

}  // namespace
}  // namespace corral::policy

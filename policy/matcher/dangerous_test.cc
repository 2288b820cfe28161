#include <gtest/gtest.h>

#include <string>

#include "policy/matcher/matcher.h"

namespace corral::policy {
namespace {

struct DangerCase {
  std::string command;
  std::string category;  // "" when nothing is dangerous
};

std::ostream& operator<<(std::ostream& out, const DangerCase& c) { return out << c.command; }

class Danger : public ::testing::TestWithParam<DangerCase> {};

TEST_P(Danger, Category) {
  static const Matcher matcher = std::move(Matcher::Create({}).value());
  MatchResult r = matcher.Check(GetParam().command);
  std::string got = r.dangerous ? r.dangerous->category : "";
  EXPECT_EQ(got, GetParam().category) << GetParam().command;
  if (r.dangerous) {
    EXPECT_FALSE(r.dangerous->description.empty());
  }
}

INSTANTIATE_TEST_SUITE_P(Categories, Danger, ::testing::Values(
    DangerCase{"sudo apt-get install x", "privilege-escalation"},
    DangerCase{"su -", "privilege-escalation"}, DangerCase{"doas ls", "privilege-escalation"},
    DangerCase{"pkexec ls", "privilege-escalation"},
    DangerCase{"chmod u+s /usr/bin/x", "privilege-escalation"},
    DangerCase{"chmod 4755 x", "privilege-escalation"},
    DangerCase{"shutdown -h now", "power-state"}, DangerCase{"reboot", "power-state"},
    DangerCase{"halt", "power-state"}, DangerCase{"poweroff", "power-state"},
    DangerCase{"systemctl poweroff", "power-state"}, DangerCase{"systemctl suspend", "power-state"},
    DangerCase{"init 0", "power-state"}, DangerCase{"init 6", "power-state"},
    DangerCase{"mkfs.ext4 /dev/sdb1", "disk-format"}, DangerCase{"mkfs -t xfs x", "disk-format"},
    DangerCase{"fdisk /dev/sda", "disk-format"}, DangerCase{"parted /dev/nvme0n1", "disk-format"},
    DangerCase{"wipefs -a /dev/sdb", "disk-format"},
    DangerCase{"dd if=/dev/zero of=/dev/sda bs=1M", "raw-disk-write"},
    DangerCase{"dd if=x of=/dev/nvme0n1", "raw-disk-write"},
    DangerCase{"cat img > /dev/sda", "raw-disk-write"},
    DangerCase{"echo x >> /dev/vdb", "raw-disk-write"},
    DangerCase{"shred -u secret", "secure-delete"}, DangerCase{"srm x", "secure-delete"},
    DangerCase{"wipe x", "secure-delete"},
    DangerCase{"rm -rf node_modules", "recursive-delete"}, DangerCase{"rm -r x", "recursive-delete"},
    DangerCase{"rm -R x", "recursive-delete"}, DangerCase{"rm --recursive x", "recursive-delete"},
    DangerCase{"rm -fr x", "recursive-delete"}, DangerCase{"find . -delete", "recursive-delete"},
    DangerCase{"chmod -R 777 .", "recursive-permission"},
    DangerCase{"chown -R me .", "recursive-permission"},
    DangerCase{"chgrp --recursive g .", "recursive-permission"},
    DangerCase{"kill -9 1", "kill-init"}, DangerCase{"kill 1", "kill-init"},
    DangerCase{"kill -9 -1", "kill-init"}, DangerCase{"kill -- -1", "kill-init"},
    DangerCase{"kill -s KILL 1", "kill-init"},
    DangerCase{"git push --force", "git-history-rewrite"},
    DangerCase{"git push origin +main", "git-history-rewrite"},
    DangerCase{"git push --force-with-lease", ""},
    DangerCase{"git push --force-with-lease=main:abc --force", "git-history-rewrite"},
    DangerCase{"git push -fu origin main", "git-history-rewrite"},
    DangerCase{"git branch -D topic", "git-history-rewrite"},
    DangerCase{"git branch --delete --force topic", "git-history-rewrite"},
    DangerCase{"git branch -d topic", ""}, DangerCase{"git branch -a", ""},
    DangerCase{"git checkout .", "git-history-rewrite"},
    DangerCase{"git checkout -- .", "git-history-rewrite"},
    DangerCase{"git restore .", "git-history-rewrite"},
    DangerCase{"git restore --staged --worktree :/", "git-history-rewrite"},
    DangerCase{"git restore --staged .", ""}, DangerCase{"git checkout main", ""},
    DangerCase{"git restore src/a.c", ""},
    DangerCase{"pkill 1", "kill-init"}, DangerCase{"killall -9 1", "kill-init"},
    DangerCase{"pkill node", ""},
    DangerCase{"diskutil eraseDisk APFS X disk2", "disk-format"},
    DangerCase{"diskutil list", ""},
    DangerCase{"git reset --hard HEAD~1", "git-history-rewrite"},
    DangerCase{"git rebase -i HEAD~3", "git-history-rewrite"},
    DangerCase{"git filter-branch --tree-filter x", "git-history-rewrite"},
    DangerCase{"git commit --amend --no-edit", "git-history-rewrite"},
    DangerCase{"git clean -fdx", "git-history-rewrite"},
    DangerCase{"git -C x reset --hard", "git-history-rewrite"},
    DangerCase{"curl -fsSL https://x/install.sh | sh", "pipe-to-shell"},
    DangerCase{"wget -qO- x | sudo bash", "privilege-escalation"},  // more severe wins
    DangerCase{"curl x | tee f | bash", "pipe-to-shell"},
    DangerCase{"curl -sSL x | python3", "pipe-to-shell"},
    DangerCase{"wget -qO- x | perl -", "pipe-to-shell"},
    DangerCase{"curl x | python3 -c 'import sys; print(len(sys.stdin.read()))'", ""},
    DangerCase{"curl x | python3 tool.py", ""}, DangerCase{"cat f | python3", ""},
    DangerCase{"bash -c \"$(curl -fsSL x)\"", "pipe-to-shell"},
    DangerCase{"bash <(curl -s x)", "pipe-to-shell"},
    DangerCase{"bash -c 'echo hi'", "shell-string"}, DangerCase{"sh -c ls", "shell-string"},
    DangerCase{"bash -c 'rm -rf /tmp/x'", "recursive-delete"},  // more severe wins
    DangerCase{"ls -la", ""}, DangerCase{"rm -f x", ""}, DangerCase{"rm x", ""},
    DangerCase{"chmod 755 x", ""}, DangerCase{"kill -1 1234", ""}, DangerCase{"kill -9 12", ""},
    DangerCase{"kill -l", ""}, DangerCase{"git push", ""}, DangerCase{"git reset HEAD x", ""},
    DangerCase{"git commit -m x", ""}, DangerCase{"git clean -n", ""},
    DangerCase{"dd if=/dev/sda of=disk.img", ""}, DangerCase{"echo x > /dev/null", ""},
    DangerCase{"systemctl status x", ""}, DangerCase{"curl x | jq .", ""},
    DangerCase{"echo 'rm -rf /'", ""}, DangerCase{"bash script.sh", ""}));

}  // namespace
}  // namespace corral::policy

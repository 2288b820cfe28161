#!/bin/bash
# Captures the bytes in captured_git.h: real `git push`es and ref
# advertisements through capture_server.py in front of git-http-backend.
#   capture.sh [DIR]   (default /tmp/forgecap; the bytes land in DIR/out)
# Then cut each request after the pack's first 12 bytes, as in captured_git.h.
# (Signed pushes carry a nonce and a time, so those bytes differ per run.)
set -ex
HERE=$(cd "$(dirname "$0")" && pwd)
B=${1:-/tmp/forgecap}
rm -rf $B/srv $B/out $B/work $B/work256 $B/clone $B/shallow $B/key $B/key.pub
mkdir -p $B/srv $B/out
export GIT_AUTHOR_NAME=T GIT_AUTHOR_EMAIL=t@example.com GIT_COMMITTER_NAME=T GIT_COMMITTER_EMAIL=t@example.com
export GIT_AUTHOR_DATE="2024-01-01T00:00:00Z" GIT_COMMITTER_DATE="2024-01-01T00:00:00Z"
export GIT_CONFIG_NOSYSTEM=1 HOME=$B/home
mkdir -p $HOME; git config --global init.defaultBranch main; git config --global protocol.version 0
git init -q --bare $B/srv/repo.git
git -C $B/srv/repo.git config receive.advertisePushOptions true
git init -q --bare --object-format=sha256 $B/srv/repo256.git
git init -q --bare $B/srv/empty.git
sc(){ echo "$1" > $B/out/scenario.txt; }
python3 $HERE/capture_server.py $B/srv $B/out 8765 & SRV=$!
trap "kill $SRV" EXIT
sleep 1
U=http://127.0.0.1:8765
git init -q $B/work; cd $B/work
echo a > a; git add a; git commit -qm one
sc empty_advert; git ls-remote $U/empty.git || true
sc create; git push $U/repo.git main
echo b >> a; git commit -qam two
sc update; git push $U/repo.git main
git branch feature; git tag v1
sc create_two; git push $U/repo.git feature v1
sc delete; git push $U/repo.git :feature
git reset -q --hard HEAD~1; echo c >> a; git commit -qam three
sc force; git push --force $U/repo.git main
echo d >> a; git commit -qam four
sc push_option; git push --push-option=x --push-option="ci.skip" $U/repo.git main
git branch f2
echo e >> a; git commit -qam five
sc atomic; git push --atomic $U/repo.git main f2
git -C $B/srv/repo.git symbolic-ref HEAD refs/heads/main
sc ls_remote_v2; git -c protocol.version=2 ls-remote $U/repo.git
git tag -a -m annotated v2
sc annotated_tag; git push $U/repo.git v2
sc upload_advert_peeled; git ls-remote $U/repo.git
sc mixed; git push $U/repo.git main:refs/heads/newb :f2
git tag -f -a -m moved v2 HEAD~1
sc tag_force; git push --force $U/repo.git v2
git clone -q --depth 1 $U/repo.git $B/shallow
cd $B/shallow; echo s > s; git add s; git commit -qm shallow
sc shallow; git push $U/repo.git HEAD:refs/heads/fromshallow
cd $B/work
ssh-keygen -q -t ed25519 -N "" -f $B/key -C t@example.com
git -C $B/srv/repo.git config receive.certNonceSeed seed
sc signed; git -c gpg.format=ssh -c user.signingkey=$B/key.pub push --signed $U/repo.git main:refs/heads/signed
git init -q --object-format=sha256 $B/work256; cd $B/work256
echo a > a; git add a; git commit -qm one
sc sha256_create; git push $U/repo256.git main
echo b >> a; git commit -qam two
sc sha256_update; git push $U/repo256.git main

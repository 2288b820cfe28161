#!/bin/bash
# Makes the test packs with real git (2.39 made the committed ones). Dates and
# names are fixed, so the commit oids come out the same on every run; the pack
# bytes may differ with zlib's version. The expected `git rev-list --parents`
# lines it prints are written into pack_reader_test.cc by hand.
# usage: make_packs.sh OUT_DIR
set -euo pipefail
out=$(realpath "$1")
here=$(dirname "$(realpath "$0")")
work=$(mktemp -d)
server_pid=
trap '[ -z "$server_pid" ] || kill $server_pid; rm -rf "$work"' EXIT
export GIT_AUTHOR_NAME=Ada GIT_AUTHOR_EMAIL=ada@example.com
export GIT_COMMITTER_NAME=Ada GIT_COMMITTER_EMAIL=ada@example.com
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1
tick=1704067200
commit() {  # commit MESSAGE [git commit options]
  local message=$1; shift
  tick=$((tick + 60))
  GIT_AUTHOR_DATE="@$tick +0000" GIT_COMMITTER_DATE="@$tick +0000" git commit -q "$@" -m "$message"
}
lines() { python3 -c "import sys; [print('line %d of %s' % (i, sys.argv[1])) for i in range(int(sys.argv[2]))]" "$@"; }
revs() { echo "== $1"; shift; git rev-list --parents "$@"; }

# A history with a root, plain commits, a merge and an annotated tag.
make_history() {  # make_history DIR [init options]
  git init -q -b main "$@"
  cd "$1"
  lines a 200 >a.txt; lines b 100 >b.txt; git add .; commit root
  git tag c1
  sed -i 's/line 50 of a/line fifty of a/' a.txt; commit second -a
  git tag c2
  git checkout -q -b side c1
  sed -i 's/line 7 of b/line seven of b/' b.txt; commit side -a
  git checkout -q main
  tick=$((tick + 60))
  GIT_AUTHOR_DATE="@$tick +0000" GIT_COMMITTER_DATE="@$tick +0000" git merge -q --no-ff -m merge side
  GIT_COMMITTER_DATE="@$tick +0000" git tag -a v1 -m "version one"
  sed -i 's/line 120 of a/line 120 of A/' a.txt; commit fifth -a
}

(make_history "$work/sha1"
 git pack-objects -q --stdout --revs --all --delta-base-offset </dev/null >"$out/full_ofs.pack"
 git pack-objects -q --stdout --revs --all </dev/null >"$out/full_ref.pack"
 printf 'main\n^c2\n' | git pack-objects -q --stdout --revs --thin >"$out/thin.pack"
 git pack-objects -q --stdout </dev/null >"$out/empty.pack"
 revs "sha1 all" --all; revs "sha1 thin" main ^c2; git show-ref -d)

(make_history "$work/sha256" --object-format=sha256
 git pack-objects -q --stdout --revs --all --delta-base-offset </dev/null >"$out/sha256.pack"
 revs "sha256 all" --all)

# Commits deltified against commits: long messages that differ in one line.
(git init -q -b main "$work/deltas"; cd "$work/deltas"
 for i in $(seq 1 12); do
   { lines message 150; echo "change $i"; } >msg
   tick=$((tick + 60))
   GIT_AUTHOR_DATE="@$tick +0000" GIT_COMMITTER_DATE="@$tick +0000" git commit -q --allow-empty -F msg
 done
 git repack -q -adf --window=250 --depth=50
 cp .git/objects/pack/*.pack "$out/commit_deltas_ofs.pack"; chmod 644 "$out/commit_deltas_ofs.pack"
 git verify-pack -v .git/objects/pack/*.idx | awk '$2 == "commit" && NF == 7' | sed 's/^/delta commit: /'
 git pack-objects -q --stdout --revs --all --window=250 --depth=50 --no-reuse-delta \
   </dev/null >"$out/commit_deltas_ref.pack"
 revs "deltas all" --all)

# What `git push` sends over smart HTTP: a fast-forward, then a force push.
git init -q --bare "$work/server.git"
mkdir "$work/bodies"
python3 "$here/receive_pack_server.py" "$work/server.git" "$work/bodies" "$work/port" &
server_pid=$!
while [ ! -s "$work/port" ]; do sleep 0.1; done
url="http://127.0.0.1:$(cat "$work/port")/server.git"
(cd "$work/sha1"
 git push -q "$url" c2:refs/heads/main
 git push -q "$url" main:refs/heads/main
 git checkout -q -b rewrite c1
 echo rewritten >c.txt; git add c.txt; commit rewrite
 git push -q --force "$url" rewrite:refs/heads/main
 revs "sha1 rewrite" rewrite)
split_body() {  # split_body BODY PACK: print the commands, save the pack
  python3 - "$1" "$2" <<'PY'
import sys
body = open(sys.argv[1], "rb").read()
at = 0
while True:
    size = int(body[at:at + 4], 16)
    if size == 0:
        at += 4
        break
    print("command:", body[at + 4:at + size].split(b"\0")[0].decode().strip())
    at += size
open(sys.argv[2], "wb").write(body[at:])
PY
}
split_body "$work/bodies/body2.bin" "$out/push_fast_forward.pack"
split_body "$work/bodies/body3.bin" "$out/push_force.pack"

#!/usr/bin/env python3
"""Writes commands.jsonl: realistic shell command lines of the kind coding
agents run (git, npm, pytest, make, cargo, grep/sed/awk pipelines, heredocs,
loops, long one-liners), one JSON object per line: {"command": "..."}.

The hand-written lines below are the corpus; a few templates vary file and
branch names so the corpus is not dominated by one shape. Deterministic."""
import json
import os

HAND = r"""
git status
git status --short
git diff
git diff --stat
git diff HEAD~1 -- src/
git diff --cached
git log --oneline -20
git log --oneline --graph --decorate -15
git log -p -1 -- README.md
git show HEAD --stat
git show HEAD~2:src/main.rs | head -50
git branch -a
git branch --show-current
git checkout -b feature/add-login
git switch main
git add -A && git commit -m "Add login form validation"
git add src/ tests/ && git commit -m "fix: handle empty input in parser"
git commit --amend --no-edit
git stash && git pull --rebase && git stash pop
git fetch origin && git rebase origin/main
git push -u origin feature/add-login
git push origin HEAD
git remote -v
git rev-parse --abbrev-ref HEAD
git rev-parse --show-toplevel
git blame -L 10,40 src/lib.rs
git grep -n "TODO" -- '*.py'
git ls-files | wc -l
git ls-files '*.ts' | xargs wc -l | sort -n | tail -20
git log --since="2 weeks ago" --pretty=format:'%h %an %s' | head -30
git diff main...HEAD --name-only | grep '\.py$'
git tag -l 'v*' | sort -V | tail -5
git cherry-pick abc1234
git reset --soft HEAD~1
git restore --staged package-lock.json
git clean -n
git worktree list
git submodule update --init --recursive
git config user.email
git log --format='%H' -n 1
cd "$(git rev-parse --show-toplevel)" && git status
npm install
npm ci
npm test
npm run build
npm run lint -- --fix
npm run test -- --watchAll=false
npm run dev &
npm install --save-dev @types/node typescript
npm ls react
npm outdated
npm audit --audit-level=high
npx tsc --noEmit
npx eslint src --ext .ts,.tsx
npx prettier --write "src/**/*.{ts,tsx}"
npx jest --coverage src/utils
npx vitest run
npx playwright test --project=chromium
yarn install --frozen-lockfile
yarn test --silent
pnpm install
pnpm -r build
pnpm test -- --run
node -e "console.log(require('./package.json').version)"
node scripts/generate.js --out dist/
cat package.json | jq '.scripts'
jq -r '.dependencies | keys[]' package.json
pytest
pytest -q
pytest -x -q tests/test_parser.py
pytest tests/ -k "not slow" -q --maxfail=3
pytest -vv tests/test_api.py::test_create_user
python -m pytest --cov=src --cov-report=term-missing
python3 -m venv .venv && . .venv/bin/activate && pip install -r requirements.txt
pip install -e ".[dev]"
pip list | grep -i requests
python3 manage.py migrate
python3 manage.py test accounts
python3 -c "import sys; print(sys.version)"
python3 -c 'import json,sys; print(json.load(sys.stdin)["name"])' < package.json
ruff check . --fix
ruff format src tests
mypy src --ignore-missing-imports
black --check .
flake8 src/ | head -40
tox -e py311
uv sync && uv run pytest -q
poetry install && poetry run pytest
make
make -j4
make test
make clean && make -j"$(nproc)"
make lint 2>&1 | tail -20
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Debug
cmake --build build -j 4
ctest --test-dir build --output-on-failure
ninja -C build
./build/app --help
cargo build
cargo build --release
cargo test
cargo test --lib parser:: -- --nocapture
cargo clippy --all-targets -- -D warnings
cargo fmt --all -- --check
cargo run -- --config config.toml
cargo tree -d | head
go build ./...
go test ./... -run TestHandler -v
go vet ./...
go mod tidy
gofmt -l . | grep -v vendor
ls
ls -la
ls -la src/
ls -1 tests | head
pwd
cd src && ls
cd .. && pwd
tree -L 2 -I node_modules
find . -name "*.py" -not -path "./.venv/*" | head -50
find . -type f -name '*.log' -mtime +7 -print
find src -name '*.ts' | xargs grep -l "useEffect"
find . -name node_modules -prune -o -name '*.json' -print | head
du -sh * | sort -h | tail
df -h .
wc -l src/*.py
head -n 50 src/main.py
tail -n 100 logs/app.log
tail -f logs/app.log | grep --line-buffered ERROR &
cat README.md
cat -n src/config.ts | sed -n '10,40p'
less +G logs/app.log
grep -rn "TODO" src/
grep -rn "def test_" tests/ | wc -l
grep -rl "oldFunctionName" src/ | xargs sed -i 's/oldFunctionName/newFunctionName/g'
grep -E "^(ERROR|WARN)" app.log | sort | uniq -c | sort -rn | head
grep -v '^#' .env.example | grep -v '^$'
rg "fn main" --type rust
rg -n "import .* from 'react'" src | head -20
rg --files | rg '\.md$'
sed -n '1,80p' src/server.py
sed -i 's/version = "1.2.3"/version = "1.2.4"/' Cargo.toml
sed -i.bak -e 's/localhost/127.0.0.1/g' config/*.yml
awk '{print $1}' access.log | sort | uniq -c | sort -nr | head -10
awk -F, 'NR>1 {sum+=$3} END {print sum}' data.csv
awk '/^func / {print FILENAME": "$2}' *.go
cut -d: -f1 /etc/passwd | sort
sort -u names.txt > names.sorted.txt
diff -u old.txt new.txt
diff <(sort a.txt) <(sort b.txt)
comm -23 <(sort a.txt) <(sort b.txt)
curl -s http://localhost:8080/health
curl -sS -X POST -H 'Content-Type: application/json' -d '{"name":"test"}' http://localhost:3000/api/users | jq .
curl -fsSL -o /tmp/data.json https://example.com/data.json
wget -q https://example.com/file.tar.gz && tar xzf file.tar.gz
tar -czf backup.tar.gz src/ tests/
unzip -o archive.zip -d out/
mkdir -p build/output && cp -r assets build/output/
cp .env.example .env
mv src/old_name.py src/new_name.py
rm -rf build dist
rm -f *.pyc
touch src/__init__.py
chmod +x scripts/deploy.sh
ln -sf ../shared/config.yml config.yml
echo $PATH
echo "Build finished at $(date)"
printf '%s\n' "line one" "line two" > notes.txt
export NODE_ENV=production && npm run build
NODE_ENV=test npx jest --runInBand
DEBUG=app:* node server.js
env | grep -i proxy
which python3 node cargo
command -v rg >/dev/null 2>&1 || echo "ripgrep missing"
type -a python
ps aux | grep -v grep | grep node
lsof -i :3000
kill %1
sleep 2 && curl -s localhost:8080
time make -j4
date -u +%Y-%m-%dT%H:%M:%SZ
uname -a
nproc
free -h
docker ps
docker compose up -d db
docker build -t app:dev .
jq '.compilerOptions.strict = true' tsconfig.json > tmp.json && mv tmp.json tsconfig.json
xargs -n1 echo < files.txt
seq 1 10 | xargs -I{} echo "item {}"
for f in src/*.py; do echo "$f"; wc -l "$f"; done
for i in $(seq 1 5); do curl -s localhost:8080/ping; sleep 1; done
for dir in */; do (cd "$dir" && git status --short); done
for f in $(git diff --name-only); do npx prettier --check "$f"; done
while read -r line; do echo "> $line"; done < input.txt
while ! curl -s localhost:5432 >/dev/null; do sleep 1; done
until pg_isready -h localhost; do sleep 1; done
if [ -f package.json ]; then npm test; else echo "no package.json"; fi
if [[ -d .venv ]]; then source .venv/bin/activate; fi
[ -d node_modules ] || npm install
test -f .env && set -a && . ./.env && set +a
case "$(uname)" in Darwin) echo mac;; Linux) echo linux;; *) echo other;; esac
(cd frontend && npm run build) && (cd backend && cargo build)
{ echo "header"; cat data.csv; } > combined.csv
result=$(python3 -c 'print(2+2)') && echo "result=$result"
count=$(grep -c ERROR app.log || true); echo "errors: $count"
files=( $(git ls-files '*.md') ); echo "${#files[@]} markdown files"
echo "${HOME:-/root}/projects"
echo ${PWD##*/}
python3 - <<'EOF'
import json
with open("data.json") as f:
    data = json.load(f)
print(len(data))
EOF
cat > config.yml <<'EOF'
server:
  port: 8080
  host: 0.0.0.0
EOF
cat <<EOF > .env
DATABASE_URL=postgres://localhost/dev
GENERATED_AT=$(date +%s)
EOF
cat >> CHANGELOG.md <<'EOF'

## Unreleased
- Fix crash when config is empty
EOF
git commit -F - <<'EOF'
Refactor parser

Split the tokenizer from the grammar.
EOF
node <<'EOF'
const fs = require('fs');
console.log(fs.readdirSync('.').length);
EOF
sqlite3 dev.db <<'SQL'
SELECT count(*) FROM users;
SQL
tee -a log.txt <<< "deploy started"
bash scripts/setup.sh
./scripts/test.sh --fast
sh -c 'cd web && npm run build'
bash -c "set -euo pipefail; make test"
npm test 2>&1 | tee test-output.log | tail -30
pytest -q 2>&1 | grep -E "passed|failed"
cargo test 2>&1 | grep -E "^test result" | head
make 2>&1 | grep -i error | head -20
ls -t logs/*.log | head -1 | xargs tail -50
git log --oneline | awk '{print $1}' | head -5 | xargs -n1 git show --stat | grep -c '|'
find . -name '*.go' -exec gofmt -l {} +
find . -type d -name __pycache__ -exec rm -rf {} +
find src -name '*.js' -newer package.json -print0 | xargs -0 ls -la
echo "done" && exit 0
set -e; npm ci; npm run build; npm test
trap 'rm -f /tmp/scratch.$$' EXIT; sort big.txt > /tmp/scratch.$$ && head /tmp/scratch.$$
openssl rand -hex 16
base64 -d <<< "aGVsbG8=" 
sha256sum dist/*.tar.gz
python3 -m http.server 8000 &
timeout 30 npm run e2e
nice -n 10 make -j2
stdbuf -oL python3 train.py | tee train.log
watch -n 2 'ls -la build | tail'
"""


EXTRA = r"""
git log --author="$(git config user.name)" --oneline | head
git diff --word-diff src/parser.c
git show --name-status HEAD~3..HEAD
git stash list
git stash show -p stash@{0}
git branch --merged main | grep -v '^\*' | head
git for-each-ref --sort=-committerdate refs/heads/ --format='%(refname:short) %(committerdate:relative)'
git shortlog -sn --since=1.month
git describe --tags --always
git rev-list --count HEAD
git ls-tree -r HEAD --name-only | grep -c '\.rs$'
git apply --check fix.patch && git apply fix.patch
git format-patch -1 HEAD -o /tmp/patches
git bisect start HEAD v1.2.0
git reflog | head -20
git diff --check
git update-index --assume-unchanged config/local.yml
git archive --format=tar.gz -o release.tgz HEAD
git log --grep="fix" --oneline | wc -l
git diff HEAD --stat | tail -1
npm run storybook -- --ci --port 6006 &
npm pkg get version
npm version patch --no-git-tag-version
npm cache verify
npm explain lodash
npx depcheck
npx knip
npx madge --circular src/
npx tsx scripts/seed.ts
npx ts-node --transpile-only scripts/migrate.ts
npx next build && npx next start -p 3001 &
npx webpack --mode production --profile --json > stats.json
npx size-limit
node --version && npm --version
deno test --allow-read
bun install && bun test
python3 -m pip install --upgrade pip setuptools wheel
python3 -m build && twine check dist/*
python3 -m json.tool data.json | head -40
python3 scripts/benchmark.py --iterations 100 --output results.csv
python3 -m cProfile -s cumtime main.py | head -30
python3 -m unittest discover -s tests -p 'test_*.py'
pip freeze > requirements.lock
pip show numpy | grep Version
pre-commit run --all-files
alembic upgrade head
alembic revision --autogenerate -m "add users table"
jupyter nbconvert --to script notebook.ipynb
coverage run -m pytest && coverage report -m | tail -15
hypothesis write mymodule.parse
cargo bench --bench parser -- --save-baseline main
cargo doc --no-deps --open
cargo check --all-features 2>&1 | grep -E "^(warning|error)" | sort | uniq -c
cargo update -p serde
cargo expand --lib parser | head -100
RUST_LOG=debug cargo run --bin server
RUST_BACKTRACE=1 cargo test failing_test -- --exact
go test -race -count=1 ./internal/...
go run ./cmd/tool -v
go generate ./...
golangci-lint run --timeout 5m
CGO_ENABLED=0 GOOS=linux go build -o bin/app ./cmd/app
mvn -q -DskipTests package
./gradlew test --tests '*ParserTest*'
javac -d out $(find src -name '*.java')
dotnet build && dotnet test --no-build
bundle install && bundle exec rspec spec/models
bundle exec rubocop -a
rails db:migrate RAILS_ENV=test
mix test test/my_app_web
swift build -c release
clang-format -i src/*.cc src/*.h
clang-tidy src/parser.cc -- -std=c++20 -Iinclude
valgrind --leak-check=full ./build/tests
gdb -batch -ex run -ex bt --args ./build/app --crash
strace -f -e trace=file ./build/app 2>&1 | grep ENOENT | head
perf stat -e cycles,instructions ./build/bench
hyperfine 'rg foo' 'grep -r foo .'
shellcheck scripts/*.sh
shfmt -d scripts/
yamllint .github/workflows/
actionlint
hadolint Dockerfile
terraform fmt -check
ls -la ~/.config
cat ~/.gitconfig
echo "$SHELL"; echo "$TERM"
mkdir -p "$HOME/.cache/app" && ls -la "$HOME/.cache/app"
find . -maxdepth 2 -name '*.toml' -exec grep -H 'version' {} \;
find . -size +10M -type f -exec ls -lh {} \; 2>/dev/null | sort -k5 -h | tail
grep -c '' src/*.rs | sort -t: -k2 -rn | head
grep -oE 'https?://[^ )"]+' README.md | sort -u
grep -A3 -B3 "panic" logs/*.log | head -60
sed -E 's/([0-9]+)ms/\1 ms/g' timings.txt | sort -k2 -n
awk 'BEGIN{FS=":"} {print $1}' /etc/group | head
awk '{ total += $NF } END { printf "%.2f\n", total/NR }' latencies.txt
paste -sd+ numbers.txt | bc
tr '[:upper:]' '[:lower:]' < words.txt | sort | uniq -c | sort -rn | head -20
column -t -s, data.csv | head -20
xxd -l 64 build/app | head
file build/app && ldd build/app | head
nm -C build/libcore.a | grep ' T ' | head -20
objdump -d build/app --start-address=0x1000 | head -50
readelf -h build/app
strings build/app | grep -i version
jq -c '.items[] | {name, status}' response.json | head
yq '.services.web.ports' docker-compose.yml
curl -s https://api.github.com/repos/owner/repo/releases/latest | jq -r .tag_name
curl -s -o /dev/null -w '%{http_code}\n' http://localhost:8080/
http GET localhost:8000/api/items limit==10
openssl s_client -connect localhost:8443 </dev/null 2>/dev/null | openssl x509 -noout -dates
ssh-keygen -t ed25519 -f /tmp/testkey -N ''
nc -zv localhost 5432
for port in 3000 5432 6379; do nc -z localhost $port && echo "$port open"; done
for f in migrations/*.sql; do echo "== $f"; head -5 "$f"; done
for pkg in packages/*; do (cd "$pkg" && npm test --silent) || echo "FAIL $pkg"; done
i=0; while [ $i -lt 3 ]; do echo "attempt $i"; i=$((i+1)); done
if ! command -v jq >/dev/null; then echo "install jq"; fi
if grep -q "DEBUG=true" .env; then sed -i 's/DEBUG=true/DEBUG=false/' .env; fi
[[ -z "${CI:-}" ]] && echo local || echo ci
select opt in build test quit; do echo "$opt"; break; done < /dev/null
case $1 in --help|-h) echo usage;; *) echo "arg: $1";; esac
f() { echo "called with $#"; }; f a b c
function cleanup { rm -rf "$TMPDIR_TEST"; }; trap cleanup EXIT; TMPDIR_TEST=$(mktemp -d); ls "$TMPDIR_TEST"
TMP=$(mktemp) && curl -s localhost:8080/metrics > "$TMP" && grep http_requests "$TMP"; rm -f "$TMP"
readarray -t lines < <(git ls-files '*.py'); echo "${#lines[@]}"
mapfile -t tests < <(grep -l 'def test' tests/*.py)
printf '%-20s %s\n' name value key val
echo -e "a\tb\nc\td" | column -t
echo $(( $(date +%s) - $(stat -c %Y build.log) )) seconds old
diff -rq build/ expected/ | head
cmp -l a.bin b.bin | head
patch -p1 < fix.diff
sort -k2,2 -t$'\t' data.tsv | head
ls | grep -E '^[0-9]{4}-' | sort -r | head -3
basename "$(pwd)"
dirname /usr/local/bin/node
realpath ../shared
stat -c '%s %n' dist/*
history | tail -5
true
:
exit
"""

FILES = ["src/main.py", "src/app.ts", "lib/utils.js", "cmd/server/main.go", "src/lib.rs",
         "tests/test_api.py", "web/index.html", "docs/guide.md"]
BRANCHES = ["main", "develop", "feature/auth", "fix/issue-42", "release/1.4"]
WORDS = ["TODO", "FIXME", "deprecated", "console.log", "unwrap()", "print("]


def templated():
    out = []
    for f in FILES:
        out.append(f"git diff -- {f}")
        out.append(f"git log --oneline -5 -- {f}")
        out.append(f"sed -n '1,120p' {f}")
        out.append(f"wc -l {f} && head -30 {f}")
        out.append(f"grep -n \"import\" {f} | head -20")
        out.append(f"cat -n {f} | sed -n '40,90p'")
        out.append(f"git blame {f} | head -40")
        out.append(f"cp {f} {f}.orig && sed -i 's/\\t/    /g' {f}")
    for b in BRANCHES:
        out.append(f"git checkout {b} && git pull --ff-only")
        out.append(f"git log origin/{b} --oneline -10")
        out.append(f"git diff {b}...HEAD --stat")
        out.append(f"git merge --no-ff {b} -m \"Merge {b}\"")
        out.append(f"git rebase {b}")
    for w in WORDS:
        out.append(f"grep -rn '{w}' src/ | head -30")
        out.append(f"rg -c '{w}' --type-add 'web:*.{{ts,tsx,js}}' -t web | sort -t: -k2 -n | tail")
        out.append(f"git grep -n '{w}' | wc -l")
    for n in [1, 2, 5, 10, 20]:
        out.append(f"pytest -x -q --lf --maxfail={n}")
        out.append(f"git log -{n} --format='%h %s'")
        out.append(f"for i in $(seq 1 {n}); do npm test --silent || break; done")
        out.append(f"tail -n {n * 10} logs/app.log | grep -v DEBUG")
    for pkg in ["lodash", "react", "express", "zod", "axios", "vitest"]:
        out.append(f"npm install {pkg}@latest")
        out.append(f"npm ls {pkg} --depth=0")
        out.append(f"grep -rn \"from '{pkg}'\" src | wc -l")
    for crate in ["serde", "tokio", "anyhow", "clap"]:
        out.append(f"cargo add {crate}")
        out.append(f"cargo tree -i {crate} | head")
    long_parts = [
        "set -euo pipefail",
        "cd \"$(git rev-parse --show-toplevel)\"",
        "npm ci --prefer-offline --no-audit",
        "npm run lint",
        "npm run typecheck",
        "npm test -- --ci --reporters=default",
        "npm run build",
        "ls -la dist",
        "du -sh dist",
        "echo \"build ok: $(git rev-parse --short HEAD)\"",
    ]
    for k in range(3, len(long_parts) + 1):
        out.append(" && ".join(long_parts[:k]))
    return out


def main():
    commands = []
    block = []
    # Heredoc blocks in HAND run from the line holding "<<" to its delimiter.
    lines = (HAND + EXTRA).strip("\n").split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        if "<<'" in line or "<<EOF" in line or "<<'SQL'" in line:
            delim = "EOF" if "EOF" in line else "SQL"
            block = [line]
            i += 1
            while i < len(lines) and lines[i] != delim:
                block.append(lines[i])
                i += 1
            block.append(delim)
            commands.append("\n".join(block))
        elif line.strip():
            commands.append(line)
        i += 1
    commands += templated()
    seen = set()
    unique = [c for c in commands if not (c in seen or seen.add(c))]
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "commands.jsonl"), "w") as f:
        for c in unique:
            f.write(json.dumps({"command": c}) + "\n")
    print(f"{len(unique)} commands")


main()

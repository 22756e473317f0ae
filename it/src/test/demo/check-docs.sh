#!/usr/bin/env bash
# Runs the commands of README.md and it/DEMO.md as they are written, against the demo started the documented way
# in every configuration DEMO.md describes, and checks what they answer. CI runs it after `mvn -B verify`.
#
#   it/src/test/demo/check-docs.sh [--no-install]
#
#   --no-install   start with `mvn -B -pl it liberty:run` instead of README's first command
#                  (`mvn -B install -DskipTests && mvn -B -pl it liberty:run`): the modules are installed already
#
# How the documented commands are run:
# - Each configuration is the documented `mvn ... liberty:run`, in the background, plus -Ddemo.http.port (from
#   CHECK_DOCS_PORT, default 9480; a second server CHECK_DOCS_PORT2, default 9481), so that a demo on 9080 is left
#   alone. In the documented calls http://localhost:9080 (9081) becomes http://127.0.0.1:<port>: loopback only.
#   /tmp/exclusive-locks becomes a folder of this run.
# - WildFly's demo is the documented `mvn -B -pl it wildfly:run` on the same port, its management port (health,
#   wildfly:shutdown) moved to CHECK_DOCS_WILDFLY_MANAGEMENT_PORT (default 9482) by -Ddemo.wildfly.management.port
#   after each wildfly: command, and http://localhost:9990 in the documented calls becomes http://127.0.0.1:<port>.
# - Payara's demo is the documented
#   `mvn -B -pl it -Ppayara -DskipTests package dependency:copy@payara-micro exec:exec@payara-demo` on the same port,
#   stopped with Ctrl+C.
# - Every call (and every expected answer, after "# ") must appear in README.md or it/DEMO.md verbatim, and every
#   command of their bash blocks must have been run or be listed below as not run, with the reason.
# - A person types slower than a script: before the second of two calls that compete for a lock, the script waits
#   until /api/admin/locks lists the first one's lock.
# - The first configuration runs every call of DEMO.md; the others run the same calls except the 30 s import of
#   the operators' section (they list and force-release the import that the busy-import call holds), so that no
#   server has a request still running when it is stopped (Liberty waits up to 30 s for one).
# - The script stops every server it starts: Ctrl+C (SIGINT to the process group, as a terminal sends it),
#   `mvn -B -pl it liberty:stop`, or SIGTERM. Every curl is bounded by a .curlrc (max-time 70 s), every start by
#   CHECK_DOCS_START_TIMEOUT (300 s), the whole run by CHECK_DOCS_TIMEOUT (1200 s).
#
# Needs Redis on 127.0.0.1:6379 and PostgreSQL on 127.0.0.1:5432 (trust, database test), as .ci/run starts them.
# shellcheck disable=SC2016 # the documented commands are quoted as written, their $B expanded by the shell that runs them
set -uo pipefail
set -m # every background job in a process group of its own, which gets SIGINT the way a terminal's Ctrl+C sends it

cd "$(dirname "$0")/../../../.." || exit 2
INSTALL=1
[ "${1:-}" = --no-install ] && INSTALL=""

PORT=${CHECK_DOCS_PORT:-9480}
PORT2=${CHECK_DOCS_PORT2:-9481}
WILDFLY_MANAGEMENT=${CHECK_DOCS_WILDFLY_MANAGEMENT_PORT:-9482} # the WildFly demo's management port (health)
START_TIMEOUT=${CHECK_DOCS_START_TIMEOUT:-300}
TIMEOUT=${CHECK_DOCS_TIMEOUT:-1200}
WORK=$(mktemp -d /tmp/check-docs.XXXXXX)
FAILURES=$WORK/failures
RAN=$WORK/ran # the documented commands run so far
RUN_MARK=$WORK/started # made first and never written again: files newer than it are this run's
: >"$RUN_MARK"
: >"$RAN"
: >"$FAILURES"

# Only what a configuration sets itself reaches the demo.
unset MP_CONFIG_PROFILE DEMO_REDIS_URL DEMO_LOCKS_DIR DEMO_HTTP_HOST DEMO_POSTGRES_URL DEMO_POSTGRES_USER \
  DEMO_POSTGRES_PASSWORD
for variable in $(compgen -e | grep '^EXCLUSIVE_'); do unset "$variable"; done

# curl reads $CURL_HOME/.curlrc: every documented curl call gets a deadline without being rewritten.
export CURL_HOME=$WORK
printf 'max-time = 70\nconnect-timeout = 5\n' >"$WORK/.curlrc"

# The documents with continued lines joined, as a reader copies a command.
sed -e ':a' -e '/\\$/{N;s/\\\n//;ba' -e '}' README.md it/DEMO.md >"$WORK/docs"

CONFIG=setup
log() { printf '[check-docs] %s %s\n' "$(date +%T)" "$*"; }
ok() { printf '  ok   [%s] %s\n' "$CONFIG" "$*"; }
fail() { printf '  FAIL [%s] %.400s\n' "$CONFIG" "$*" | tee -a "$FAILURES" >&2; }

# ---------------------------------------------------------------------------------------------------------------
# Servers

declare -A PIDS=()  # label -> process group of its liberty:run
declare -A PORTS=() # label -> its HTTP port

stop_everything() {
  for label in "${!PIDS[@]}"; do kill -TERM -- "-${PIDS[$label]}" 2>/dev/null; done
  for label in "${!PIDS[@]}"; do wait "${PIDS[$label]}" 2>/dev/null; done
}
on_exit() {
  stop_everything
  [ -n "${WATCHDOG:-}" ] && kill -- "-$WATCHDOG" 2>/dev/null
}
trap on_exit EXIT
trap 'fail "stopped: more than $TIMEOUT s, or interrupted"; exit 1' TERM INT
(
  sleep "$TIMEOUT"
  kill -TERM $$
) &
WATCHDOG=$!

localize() { # the documented command on this run's ports and folder
  local command=$1
  command=${command//http:\/\/localhost:9080/http://127.0.0.1:$PORT}
  command=${command//http:\/\/localhost:9081/http://127.0.0.1:$PORT2}
  command=${command//http:\/\/localhost:9990/http://127.0.0.1:$WILDFLY_MANAGEMENT}
  command=${command//-Ddemo.http.port=9081/-Ddemo.http.port=$PORT2}
  command=${command//\/tmp\/exclusive-locks/$WORK/exclusive-locks}
  # WildFly's demo (wildfly:run, wildfly:shutdown) on this run's management port
  [[ $command == *" wildfly:"* ]] && command="$command -Ddemo.wildfly.management.port=$WILDFLY_MANAGEMENT"
  printf '%s' "$command"
}

documented() { # documented <text>: README.md or it/DEMO.md has it, verbatim
  grep -qF -- "$1" "$WORK/docs" || fail "not in README.md or it/DEMO.md as written: $1"
}

start_demo() { # start_demo <label> <port> <documented command> [VAR=value...]: in the background
  local label=$1 port=$2 command=$3
  shift 3
  documented "$command"
  echo "$command" >>"$RAN"
  command=$(localize "$command")
  [[ $command == *-Ddemo.http.port=* ]] || command="$command -Ddemo.http.port=$port"
  log "$label: $* $command"
  : >"$WORK/$label.log"
  env "$@" bash -c "$command" >"$WORK/$label.log" 2>&1 </dev/null &
  PIDS[$label]=$!
  PORTS[$label]=$port
  STARTED[$label]=$SECONDS
}
declare -A STARTED=()

await_banner() { # await_banner <label>: until the demo prints its banner; false if it fails or takes too long
  local label=$1 log=$WORK/$1.log
  local deadline=$((SECONDS + START_TIMEOUT))
  # liberty:run prints what the server prints after [INFO]; wildfly:run prints WildFly's log lines ([stdout]);
  # Payara Micro (exec:exec) prints what the application prints as it is
  until grep -qE '^(\[INFO\] |.*\[stdout\] \([^)]*\) )?Exclusive demo is up:' "$log"; do
    if grep -qE 'CWWKZ0002E|CWWKZ0004E|Exception while loading the app|BUILD FAILURE' "$log" || ! kill -0 "${PIDS[$label]}" 2>/dev/null; then
      fail "$label did not start:"
      grep -E 'ERROR|CWWKZ0002E|unknown key|  - ' "$log" | head -20 | tee -a "$FAILURES" >&2
      return 1
    fi
    if ((SECONDS > deadline)); then
      fail "$label printed no banner within $START_TIMEOUT s (log: $log)"
      return 1
    fi
    sleep 0.5
  done
  log "$label: banner $((SECONDS - STARTED[$label])) s after the command"
}

check_banner() { # check_banner <label>: it prints the banner that README.md and DEMO.md show, on its port
  local label=$1 port=${PORTS[$1]} expected actual lines document
  for document in README.md it/DEMO.md; do
    expected=$(sed -n '/^\[INFO\] Exclusive demo is up:/,/^```/p' "$document" | sed '$d' | sed "s/9080/$port/g")
    lines=$(printf '%s\n' "$expected" | wc -l)
    actual=$(grep -A$((lines - 1)) '^\[INFO\] Exclusive demo is up:' "$WORK/$label.log" | head -"$lines" \
      | sed 's/\x1b\[[0-9;]*m//g; s/\r$//')
    if [ "$actual" = "$expected" ]; then ok "the banner is the one $document shows"; else
      fail "the banner differs from $document's:"$'\n'"$actual"
    fi
  done
}

stop_demo() { # stop_demo <label> ctrl-c|sigterm|<documented stop command>
  local label=$1 how=$2 pid=${PIDS[$1]} port=${PORTS[$1]}
  case $how in
    ctrl-c) kill -INT -- "-$pid" ;;
    sigterm) kill -TERM -- "-$pid" ;;
    *)
      documented "$how"
      echo "$how" >>"$RAN"
      bash -c "$(localize "$how")" >>"$WORK/$label.stop.log" 2>&1 || fail "$how failed (log: $WORK/$label.stop.log)"
      ;;
  esac
  local deadline=$((SECONDS + 90))
  while kill -0 "$pid" 2>/dev/null && ((SECONDS < deadline)); do sleep 0.5; done
  if kill -0 "$pid" 2>/dev/null; then
    fail "$label was still running 90 s after $how"
    kill -KILL -- "-$pid" 2>/dev/null
  else
    ok "$how stopped $label"
  fi
  wait "$pid" 2>/dev/null
  unset "PIDS[$label]"
  # The server may be a child of Maven (Payara Micro under exec:exec): it gets the same signal and can end a moment
  # after Maven does, so give what is left of the process group, and the port, a few seconds before failing.
  deadline=$((SECONDS + 15))
  while { kill -0 -- "-$pid" 2>/dev/null || curl -s -o /dev/null --max-time 1 "http://127.0.0.1:$port/"; } &&
    ((SECONDS < deadline)); do sleep 0.2; done
  if kill -0 -- "-$pid" 2>/dev/null; then
    fail "a process of $label was still running 15 s after $how"
    kill -KILL -- "-$pid" 2>/dev/null
  fi
  if curl -s -o /dev/null --max-time 2 "http://127.0.0.1:$port/"; then fail "port $port still answers 15 s after $how"; fi
}

# ---------------------------------------------------------------------------------------------------------------
# Calls

doc() { # doc <documented command>: runs it on this run's port; prints what it prints
  documented "$1"
  echo "$1" >>"$RAN"
  bash -c "$(localize "$1")"
}

doc_bg() { # doc_bg <documented command ending in &> <output file>: runs it in the background; <file>.done once over
  documented "$1"
  echo "$1" >>"$RAN"
  local command
  command=$(localize "$1")
  (
    bash -c "${command%&}" >"$2" 2>&1
    touch "$2.done"
  ) &
}

await_done() { # await_done <output file of doc_bg>
  local deadline=$((SECONDS + 90))
  until [ -e "$1.done" ]; do
    if ((SECONDS > deadline)); then
      fail "a background call did not end within 90 s ($1)"
      return 1
    fi
    sleep 0.2
  done
}

like() { # like <actual> <expected>: … in the expected text stands for anything
  local pattern
  pattern=$(printf '%s' "$2" | sed 's/[][*?\\]/\\&/g; s/…/*/g')
  # shellcheck disable=SC2053 # the right side is a pattern on purpose
  [[ $1 == $pattern ]]
}

expect_doc() { # expect_doc <actual> <expected, as the documents show it after "# ">
  documented "# $2"
  if like "$1" "$2"; then ok "$2"; else fail "expected $2"$'\n'"       got: $1"; fi
}

expect() { # expect <actual> <expected with …> <what>: an answer the documents describe in words, or by example
  if like "$1" "$2"; then ok "${3:-$2}"; else fail "${3:-expected} $2"$'\n'"       got: $1"; fi
}

expect_has() { # expect_has <actual> <fragment> [what]
  if [[ $1 == *"$2"* ]]; then ok "${3:-$2}"; else fail "expected ${3:-} …$2…"$'\n'"       got: $1"; fi
}

await_held() { # await_held <full lock name> [output file of doc_bg]: until /api/admin/locks lists it
  # With the holder's output file, returns 2 without a failure once that call has ended unseen: on a busy machine a
  # short call can start and end between two looks, and the caller tries again.
  local deadline=$((SECONDS + 20))
  until curl -s -u admin:admin "$B/admin/locks?prefix=$1" | grep -qF "\"name\":\"$1\""; do
    if [ -n "${2:-}" ] && [ -e "$2.done" ]; then return 2; fi
    if ((SECONDS > deadline)); then
      fail "$1 was not held within 20 s"
      return 1
    fi
    sleep 0.2
  done
}

await_free() { # await_free <full lock name>
  local deadline=$((SECONDS + 20))
  while curl -s -u admin:admin "$B/admin/locks?prefix=$1" | grep -qF "\"name\":\"$1\""; do
    if ((SECONDS > deadline)); then
      fail "$1 was still held after 20 s"
      return 1
    fi
    sleep 0.2
  done
}

timed() { # timed <documented command>: runs it; sets OUT and TOOK (whole seconds)
  local start=$SECONDS
  OUT=$(doc "$1")
  TOOK=$((SECONDS - start))
}

# contend <name> <documented call ending in &> <lock it holds> <documented call> <test of OUT and TOOK>: runs the
# first in the background and the second once the first holds the lock; sets OUT and TOOK for the second, FIRST to
# the file with the first's output. If the first ended before its lock was seen, or the second's answer shows no
# contention and the first had already ended (a machine too busy to overlap two calls a few seconds apart), it tries
# again, 3 times in all.
contend() {
  local attempt
  OUT='' TOOK=0 # the callers check them even when no try got as far as the second call
  for attempt in 1 2 3; do
    FIRST=$WORK/$CONFIG.$1.$attempt
    doc_bg "$2" "$FIRST"
    await_held "$3" "$FIRST"
    case $? in
      0)
        timed "$4"
        if "$5" || [ ! -e "$FIRST.done" ]; then return 0; fi
        log "$CONFIG: $1: the first call had ended before the second was answered; again"
        ;;
      2) log "$CONFIG: $1: the first call had ended before its lock was seen ($(cat "$FIRST")); again" ;;
      *) return 1 ;;
    esac
  done
  fail "$1: in three tries the first call never held $3 while the second ran"
}
skipped() { like "$OUT" '{"ran":false}'; }
waited() { ((TOOK >= 2)); }
refused() { [[ $OUT == *'409 Conflict'* ]]; }

# ----- DEMO.md, one section at a time (each runs in a background job of its own; see walkthrough)

shop() {
  local out
  out=$(doc 'curl -s $B/products')
  expect_doc "$out" '[{"id":1,"name":"Concert ticket","stock":20},{"id":2,"name":"Limited vinyl","stock":5},{"id":3,"name":"Coffee beans","stock":100}]'
  out=$(doc "curl -s -w ' %{http_code}\n' -X POST \"\$B/products/1/purchase?user=7&quantity=2\"")
  expect_doc "$out" '{"createdAt":"…","id":1,"productId":1,"quantity":2,"userId":7} 201'
  out=$(doc 'curl -s -X POST "$B/products/2/reset?stock=5"')
  expect "$out" '{"id":2,"name":"Limited vinyl","stock":5}' "reset: product 2 has 5 in stock"
  out=$(doc "seq 1 8 | xargs -P 8 -I{} curl -s -o /dev/null -w '%{http_code} ' -X POST \"\$B/products/2/purchase?user={}\"")
  documented '# 201 201 201 201 201 409 409 409'
  if [ "$(grep -o 201 <<<"$out" | wc -l)" = 5 ] && [ "$(grep -o 409 <<<"$out" | wc -l)" = 3 ]; then
    ok "8 buyers for 5 in stock: five 201, three 409 ($out)"
  else fail "8 buyers for 5 in stock: expected five 201 and three 409, got $out"; fi
  out=$(doc 'curl -s $B/products/2/orders')
  expect_doc "$out" '{"orders":5,"productId":2,"units":5}'
  out=$(doc "curl -s -w ' %{http_code}\n' -X POST \"\$B/products/2/purchase?user=1\"")
  expect_doc "$out" '{"error":"sold-out","message":"Product 2 has fewer than 1 in stock"} 409'
  documented 'POST $B/products/{id}/purchase-without-lock'
  out=$(curl -s -w ' %{http_code}' -X POST "$B/products/3/purchase-without-lock")
  expect "$out" '{"createdAt":"…","id":…,"productId":3,"quantity":1,"userId":1} 201' "purchase-without-lock buys"
  out=$(doc "curl -s -w ' %{http_code}\n' -X POST \"\$B/products/abc/purchase\"")
  expect_doc "$out" "{\"error\":\"bad-request\",\"message\":\"path parameter 'id' must be a whole number, got 'abc'\"} 400"
  out=$(doc "curl -s -w ' %{http_code}\n' -X POST \"\$B/reports/daily?seconds=x\"")
  expect_doc "$out" "{\"error\":\"bad-request\",\"message\":\"query parameter 'seconds' must be a whole number, got 'x'\"} 400"
}

reports() {
  contend report 'curl -s -X POST "$B/reports/daily?seconds=3" &' demo:reports:daily \
    'curl -s -X POST "$B/reports/daily?seconds=1"' skipped
  expect_doc "$OUT" '{"ran":false}'
  await_done "$FIRST"
  expect "$(cat "$FIRST")" '{"ran":true,"result":{"finishedAt":"…","number":…,"startedAt":"…"}}' "the first call ran"
  documented '# {"ran":true,"result":{"finishedAt":"…","number":1,"startedAt":"…"}}'
}

exports() {
  expect_doc "$(doc 'curl -s -X POST $B/exports/nightly')" '{"ran":true,"result":{"startedAt":"…","trigger":"by hand"}}'
  expect_doc "$(doc 'curl -s $B/exports/nightly')" '[{"startedAt":"…","trigger":"by hand"}]'
  local first second
  first=$(doc 'curl -s -X POST "$B/exports/manual?seconds=1"')
  documented '# {"ran":true,"result":{"fence":1,"finishedAt":"…","startedAt":"…","store":"shared"}}'
  expect "$first" '{"ran":true,"result":{"fence":…,"finishedAt":"…","startedAt":"…","store":"shared"}}' \
    "the manual export ran with a fence: $first"
  second=$(doc 'curl -s -X POST "$B/exports/manual?seconds=1"')
  first=${first#*\"fence\":}
  second=${second#*\"fence\":}
  if ((${second%%,*} > ${first%%,*})); then ok "the fence grows: ${first%%,*} then ${second%%,*}"; else
    fail "the fence did not grow: ${first%%,*} then ${second%%,*}"
  fi
}

local_and_db() {
  contend rates 'curl -s -X POST "$B/rates/refresh?seconds=3" &' rates:refresh \
    'curl -s -X POST "$B/rates/refresh?seconds=1"' skipped
  expect_doc "$OUT" '{"ran":false}'
  await_done "$FIRST"
  expect "$(cat "$FIRST")" '{"ran":true,"result":{"finishedAt":"…","number":…,"startedAt":"…"}}' "the first call ran"
  expect_has "$(curl -s -u admin:admin "$B/admin/locks?prefix=rates:")" '[]' "no rates:refresh lock once it ran"

  contend audit 'curl -s -X POST "$B/stock/audit?seconds=4" > /dev/null &' demo:stock:audit \
    'curl -s -X POST "$B/stock/audit?seconds=1"' skipped
  expect_doc "$OUT" '{"ran":false}'
  if ((TOOK >= 1 && TOOK <= 8)); then ok "the second audit waited about 2 s (${TOOK} s)"; else
    fail "the second audit gave up after ${TOOK} s, not about 2 s"
  fi
  await_done "$FIRST"
  documented '# {"ran":true,"result":{"fence":2,"finishedAt":"…","products":3,"startedAt":"…","store":"db","unitsInStock":…,"unitsSold":…}}'
  expect "$(doc 'curl -s -X POST "$B/stock/audit?seconds=1"')" \
    '{"ran":true,"result":{"fence":…,"finishedAt":"…","products":3,"startedAt":"…","store":"db","unitsInStock":…,"unitsSold":…}}' \
    "the audit ran under a lock of store db"
}

health() { # health <type of the shared store> [the documented health call, Liberty's by default]
  local out
  out=$(doc "${2:-curl -s http://localhost:9080/health/ready}")
  expect "$out" '{"status":"UP","checks":[…]}' "readiness is UP"
  local shared="\"name\":\"exclusive-store-shared\",\"status\":\"UP\",\"data\":{\"store\":\"shared\",\"type\":\"$1\"}"
  [ "$1" = file ] && documented "$shared"
  expect_has "$out" "$shared"
  expect_has "$out" '"name":"exclusive-store-db","status":"UP","data":{"store":"db","type":"jpa"}'
  expect_has "$out" '"name":"exclusive-store-local","status":"UP","data":{"store":"local","type":"memory"}'
}

metrics() { # after the walkthrough's purchases: the totals the logging exporter wrote to the demo's messages.log
  local out deadline=$((SECONDS + 30))
  local command="grep 'name=exclusive.lock.acquire.duration' it/target/liberty/wlp/usr/servers/demo/logs/messages.log | tail -n 1"
  out=$(doc "$command")
  while [[ $out != *'outcome="acquired"'* ]] && ((SECONDS < deadline)); do
    sleep 1 # the exporter writes every 5 s
    out=$(bash -c "$command")
  done
  expect_doc "$out" '… getAttributes={exclusive.lock="purchase:product:{productId}", exclusive.store="shared", outcome="acquired"}, getSum=…, getCount=…'
}

pages() {
  local app=${B%/api}
  expect_has "$(curl -s -o /dev/null -w '%{http_code}' "$app/")" 200 "the landing page answers at /demo/"
  expect_has "$(curl -s "$app/")" '<title>Exclusive demo</title>' "the landing page is the demo's"
  expect_has "$(curl -s -o /dev/null -w '%{http_code}' "$app/exclusive")" 401 "the console asks an anonymous visitor to log in"
  expect_has "$(curl -s -o /dev/null -w '%{http_code}' -u admin:admin "$app/exclusive")" 200 "the console opens for admin"
}

operators() { # operators <instance name, or empty>: the lock imports:users is held
  local out
  out=$(doc 'curl -s -u admin:admin $B/admin/locks')
  expect_has "$out" '"name":"demo:imports:users"' "the live locks list demo:imports:users"
  expect_has "$out" '"purpose":"UserImport#importUsers"'
  documented '"name":"demo:imports:users"'
  [ -n "$1" ] && expect_has "$out" "\"instance\":\"$1\"" "the holder is instance $1"
  expect_doc "$(doc "curl -s -o /dev/null -w '%{http_code}\n' -u operator:operator \$B/admin/locks")" '403'
  expect_doc "$(doc "curl -s -o /dev/null -w '%{http_code}\n' -u admin:admin -X DELETE \$B/admin/locks/shared/demo:imports:users")" '204'
  await_free demo:imports:users && ok "the force-released lock is no longer listed"
  expect_doc "$(doc 'curl -s -u admin:admin $B/me')" '{"exclusiveAdmin":true,"user":"admin"}'
}

imports() { # imports full|short [instance name]
  if [ "$1" = full ]; then
    doc_bg 'curl -s -X POST "$B/imports/users?seconds=30" > /dev/null &' "$WORK/$CONFIG.long-import"
    await_held demo:imports:users
    operators "${2:-}"
  fi

  contend import 'curl -s -X POST "$B/imports/users?seconds=3" > /dev/null &' demo:imports:users \
    'curl -s -X POST "$B/imports/users?seconds=1"' waited
  expect_doc "$OUT" '{"finishedAt":"…","startedAt":"…"}'
  if ((TOOK >= 2 && TOOK <= 12)); then ok "the second import waited for the first (${TOOK} s)"; else
    fail "the second import took ${TOOK} s, not the first's 3 s and its own 1 s"
  fi
  await_done "$FIRST"

  contend busy-import 'curl -s -X POST "$B/imports/users?seconds=8" > /dev/null &' demo:imports:users \
    'curl -s -i -X POST "$B/imports/users?seconds=1"' refused
  local out=${OUT//$'\r'/}
  documented '# HTTP/1.1 409 Conflict'
  expect_has "$out" 'HTTP/1.1 409 Conflict'
  documented '# Retry-After: 55'
  if [[ $out =~ Retry-After:\ ([0-9]+) ]]; then ok "Retry-After: ${BASH_REMATCH[1]}"; else fail "no Retry-After in: $out"; fi
  local message
  message=$(grep -F '"lock":"demo:imports:users"}' "$WORK/docs" | head -1 | sed 's/^# //')
  # The body is DEMO.md's problem details, but for the seconds the holder has left.
  expect_has "$out" "${message%%try again in *}" "the body is DEMO.md's problem details"
  expect_has "$out" "${message##* s.\"}" "the body names only the lock"
  if ((TOOK >= 4 && TOOK <= 12)); then ok "it gave up after the 5 s wait (${TOOK} s)"; else
    fail "it answered after ${TOOK} s, not after the 5 s wait"
  fi
  if [ "$1" = short ]; then
    # The operators' calls list and force-release the import that holds the lock. The 8 s import above may end
    # while they run on a busy machine (CI runs this script beside the build), so a second one of the same call
    # holds it for them.
    await_done "$FIRST"
    FIRST=$WORK/$CONFIG.busy-import.operators
    doc_bg 'curl -s -X POST "$B/imports/users?seconds=8" > /dev/null &' "$FIRST"
    await_held demo:imports:users
    operators "${2:-}"
  fi
  await_done "$FIRST"
}

walkthrough() { # walkthrough <label> <port> full|short <type of the shared store> [instance name] [health call]
  CONFIG=$1
  export B=http://127.0.0.1:$2/demo/api
  documented 'B=http://localhost:9080/demo/api'
  echo 'B=http://localhost:9080/demo/api' >>"$RAN"
  echo 'wait' >>"$RAN"
  local jobs=()
  imports "$3" "${5:-}" >"$WORK/$CONFIG.imports.out" 2>&1 &
  jobs+=($!)
  shop >"$WORK/$CONFIG.shop.out" 2>&1 &
  jobs+=($!)
  reports >"$WORK/$CONFIG.reports.out" 2>&1 &
  jobs+=($!)
  exports >"$WORK/$CONFIG.exports.out" 2>&1 &
  jobs+=($!)
  local_and_db >"$WORK/$CONFIG.local-db.out" 2>&1 &
  jobs+=($!)
  health "$4" "${6:-}" >"$WORK/$CONFIG.health.out" 2>&1 &
  jobs+=($!)
  pages >"$WORK/$CONFIG.pages.out" 2>&1 &
  jobs+=($!)
  wait "${jobs[@]}"
  cat "$WORK/$CONFIG".{imports,shop,reports,exports,local-db,health,pages}.out
}

# ---------------------------------------------------------------------------------------------------------------
# Checks without a server

static_checks() {
  CONFIG=docs
  # An EXCLUSIVE_* variable reaches lock-cdi under a key that some config source lists; any other key under
  # exclusive. fails the deployment (EXCLUSIVE_REDIS_URL did).
  local keys variable
  keys=$(sed -n 's/^\(%[a-z]*\.\)\{0,1\}\(exclusive\.[^=]*\)=.*/\2/p' it/src/main/resources/META-INF/microprofile-config.properties \
    | tr 'a-z.-' 'A-Z__' | sort -u)
  for variable in $(grep -ohE 'EXCLUSIVE_[A-Z0-9_]+' README.md it/DEMO.md | sort -u); do
    if grep -qx "$variable" <<<"$keys"; then ok "$variable maps to a listed key"; else
      fail "$variable is documented, but no exclusive.* key of the demo matches it: lock-cdi would refuse it"
    fi
  done

  # The benchmarks take minutes each: each one named in README.md must exist in the jar.
  local jar=bench/target/benchmarks.jar line pattern class listed
  if [ ! -f "$jar" ]; then
    fail "no $jar: README's first command (mvn -B install -DskipTests) builds it"
    return
  fi
  listed=$(java -jar "$jar" -l 2>/dev/null)
  while IFS= read -r line; do
    read -r _ _ _ pattern _ <<<"$line"
    pattern=${pattern//\'/}
    if grep -qE -- "$pattern" <<<"$listed"; then ok "benchmark $pattern exists"; else fail "no benchmark matches $pattern"; fi
    echo "$line" >>"$RAN"
  done < <(grep -E '^java -jar bench/target/benchmarks.jar ' README.md)
  while IFS= read -r line; do
    read -r _ _ _ class _ <<<"$line"
    if jar tf "$jar" | grep -qx "${class//.//}.class"; then ok "class $class exists"; else fail "no class $class in $jar"; fi
    echo "$line" >>"$RAN"
  done < <(grep -E '^java -cp bench/target/benchmarks.jar ' README.md)
}

coverage() { # every command of the documents' bash blocks ran, or is listed here with the reason it did not
  CONFIG=coverage
  local not_run=(
    'mvn -B -T 2 verify' # CI runs it just before this script
    'mvn -B -pl it verify' # the integration tests; CI's mvn -B verify runs them
    'it/src/test/demo/check-docs.sh' # this script
    # README's "Releasing": setting a release version, signing and deploying are a maintainer's steps, never CI's
    # (nothing is published from here); the release profile itself was tried by hand on a throwaway key.
    'mvn versions:set -DnewVersion=0.1.0 -DgenerateBackupPoms=false'
    'export MAVEN_GPG_PASSPHRASE=...'
    'mvn -B -Prelease deploy -DskipTests -Dgpg.keyname=<key id>     -pl lock-api,lock-cdi,lock-jpa,lock-redis,lock-admin-ui -am     -DaltDeploymentRepository=staging::file://$PWD/target/staging'
  )
  [ -z "$INSTALL" ] && not_run+=('mvn -B install -DskipTests && mvn -B -pl it liberty:run') # --no-install
  local command
  while IFS= read -r command; do
    if grep -qxF -- "$command" "$RAN"; then continue; fi
    if printf '%s\n' "${not_run[@]}" | grep -qxF -- "$command"; then
      log "not run here: $command"
      continue
    fi
    fail "documented but not checked: $command"
  done < <(awk '/^```bash$/ {inside = 1; next} /^```/ {inside = 0} inside' "$WORK/docs" \
    | sed -E 's/[[:space:]]+#[[:space:]].*$//; s/[[:space:]]+$//' | grep -vE '^(#|$)' | sort -u)
}

# ---------------------------------------------------------------------------------------------------------------
# The configurations

redis_keys() { # redis_keys <database>: the demo's keys there
  redis-cli -h 127.0.0.1 -p 6379 -n "$1" --scan --pattern '*{demo:*' 2>/dev/null
}

log "work folder $WORK; ports $PORT and $PORT2"

CONFIG=default
if [ -n "$INSTALL" ]; then
  start_demo default "$PORT" 'mvn -B install -DskipTests && mvn -B -pl it liberty:run'
else
  start_demo default "$PORT" 'mvn -B -pl it liberty:run'
fi
if await_banner default; then
  check_banner default
  walkthrough default "$PORT" full file
  metrics
  if [ -n "$(find it/target/liberty/wlp/usr/servers/demo/locks -type f -newer "$RUN_MARK" 2>/dev/null)" ]; then
    ok "the file store's locks are under it/target/liberty/wlp/usr/servers/demo/locks"
  else fail "no lock files under it/target/liberty/wlp/usr/servers/demo/locks"; fi
fi
CONFIG=default
stop_demo default ctrl-c
static_checks

CONFIG=wildfly
# The same demo on WildFly, on the same port; localize moves its management port (health, wildfly:shutdown).
start_demo wildfly "$PORT" 'mvn -B -pl it wildfly:run'
if await_banner wildfly; then
  banner=$(grep -A7 'Exclusive demo is up:' "$WORK/wildfly.log" | sed 's/^.*\[stdout\] ([^)]*) //')
  expect_has "$banner" "  home      http://localhost:$PORT/demo/" "WildFly's banner: the demo on the demo's port"
  expect_has "$banner" "  health    http://localhost:$WILDFLY_MANAGEMENT/health/ready" "WildFly's banner: health on the management port"
  expect_has "$banner" "mvn -B -pl it wildfly:shutdown" "WildFly's banner: how to stop it"
  walkthrough wildfly "$PORT" short file '' 'curl -s http://localhost:9990/health/ready'
fi
CONFIG=wildfly
stop_demo wildfly 'mvn -B -pl it wildfly:shutdown'

CONFIG=payara
# The same demo on Payara Micro, on the same port, health next to it. Its Ctrl+C once left Payara Micro running 90 s
# later in CI (2026-11-30, not reproduced since); stop_demo fails the run if that happens again. Payara Micro is Maven's
# child: here it closes its port 0.05-0.15 s and ends 0.2-0.4 s after Maven ends, and in CI (2026-12-03) it still
# answered the one curl made the moment Maven ended, so stop_demo waits for the process group and the port.
start_demo payara "$PORT" 'mvn -B -pl it -Ppayara -DskipTests package dependency:copy@payara-micro exec:exec@payara-demo'
if await_banner payara; then
  walkthrough payara "$PORT" short file
fi
CONFIG=payara
stop_demo payara ctrl-c

CONFIG=two-servers
start_demo two-1 "$PORT" 'DEMO_LOCKS_DIR=/tmp/exclusive-locks mvn -B -pl it liberty:run'
# the second Maven run packages the same WAR: start it once the first has handed the WAR to its server
until grep -q 'CWWKM2001I: Invoke command is' "$WORK/two-1.log" || ! kill -0 "${PIDS[two-1]}" 2>/dev/null; do sleep 0.5; done
start_demo two-2 "$PORT2" 'DEMO_LOCKS_DIR=/tmp/exclusive-locks mvn -B -pl it liberty:run -Ddemo.server.name=demo2 -Ddemo.http.port=9081'
if await_banner two-1 && await_banner two-2; then
  B=http://127.0.0.1:$PORT/demo/api
  contend report 'curl -s -X POST "http://localhost:9080/demo/api/reports/daily?seconds=3" > /dev/null &' \
    demo:reports:daily 'curl -s -X POST "http://localhost:9081/demo/api/reports/daily?seconds=1"' skipped
  expect_doc "$OUT" '{"ran":false}'
  await_done "$FIRST"
  if [ -n "$(find "$WORK/exclusive-locks" -type f 2>/dev/null)" ]; then ok "both servers' locks are in DEMO_LOCKS_DIR"; else
    fail "no lock files in DEMO_LOCKS_DIR ($WORK/exclusive-locks)"
  fi
fi
stop_demo two-2 'mvn -B -pl it liberty:stop -Ddemo.server.name=demo2'
stop_demo two-1 sigterm

CONFIG=redis
documented '`EXCLUSIVE_INSTANCE_NAME=node-1` names the'
start_demo redis "$PORT" 'MP_CONFIG_PROFILE=redis mvn -B -pl it liberty:run' EXCLUSIVE_INSTANCE_NAME=node-1
if await_banner redis; then
  walkthrough redis "$PORT" short redis node-1
  if redis_keys 0 | grep -q .; then ok "the locks are in the local Redis, database 0"; else fail "no demo: keys in Redis database 0"; fi
fi
CONFIG=redis
stop_demo redis 'mvn -B -pl it liberty:stop'

CONFIG=redis-url
start_demo redis-url "$PORT" 'MP_CONFIG_PROFILE=redis DEMO_REDIS_URL=redis://127.0.0.1:6379/3 mvn -B -pl it liberty:run'
if await_banner redis-url; then
  walkthrough redis-url "$PORT" short redis
  if redis_keys 3 | grep -q .; then ok "DEMO_REDIS_URL put the locks in Redis database 3"; else fail "no demo: keys in Redis database 3"; fi
fi
CONFIG=redis-url
stop_demo redis-url sigterm
redis_keys 3 | while IFS= read -r key; do redis-cli -h 127.0.0.1 -p 6379 -n 3 del "$key" >/dev/null; done

CONFIG=env-switch
start_demo env-switch "$PORT" 'EXCLUSIVE_STORE_SHARED_TYPE=redis EXCLUSIVE_STORE_SHARED_URL=redis://127.0.0.1:6379 EXCLUSIVE_STORE_SHARED_DIRECTORY= mvn -B -pl it liberty:run'
if await_banner env-switch; then
  walkthrough env-switch "$PORT" short redis
fi
CONFIG=env-switch
stop_demo env-switch sigterm

CONFIG=postgres
start_demo postgres "$PORT" 'MP_CONFIG_PROFILE=postgres mvn -B -pl it liberty:run'
if await_banner postgres; then
  walkthrough postgres "$PORT" short jpa
  rows=$(psql -h 127.0.0.1 -U postgres -d test -Atc "select count(*) from exclusive_lock where name like 'demo:%'" 2>&1)
  if [[ $rows =~ ^[1-9][0-9]*$ ]]; then ok "$rows demo: rows in PostgreSQL's exclusive_lock"; else
    fail "no demo: rows in PostgreSQL's exclusive_lock: $rows"
  fi
fi
CONFIG=postgres
stop_demo postgres sigterm

coverage

if [ -s "$FAILURES" ]; then
  log "$(grep -c '^  FAIL' "$FAILURES") failed, in $SECONDS s; logs in $WORK:"
  cat "$FAILURES"
  exit 1
fi
log "every documented command checked, in $SECONDS s; logs in $WORK"

#!/usr/bin/env bash
# Contract tests of ralph against the real agent CLIs (issue 25, item 1).
#
# Installs pinned versions of claude, codex, gemini, opencode, copilot and amp from npm into a
# cache outside the repo, starts the scripted model server (scripts/contract/model_server.py,
# 127.0.0.1 only, exits by itself), points each CLI at it with a private HOME, and checks with
# ralph's own preset (`ralph run --agent <cli>`):
#   argv   the CLI accepts ralph's argv (a short prompt, one round trip; amp: gets past argument
#          parsing to its network error, its model being behind Amp's server)
#   e2e    a 2-story git project with a verify gate ends with both stories done (exit 0), each
#          story's work committed by the agent (its `git commit` ran inside the CLI's sandbox)
#   usage  the usage in .ralph/history.jsonl equals what the server sent
#   ctrlc  SIGINT to ralph mid-iteration leaves no process of the CLI's tree (found by the private
#          HOME in /proc/*/environ) and ralph exits 130
# as root and as a non-root user (created with useradd when run as root), then prints a table.
# With --captures it also keeps each CLI's raw stdout for one iteration and its error output
# (unknown argument, missing credentials, claude's root refusal) for the telemetry fixtures.
#
# Usage: scripts/agent-contract.sh [--latest] [--only CLI[,CLI]] [--keep] [--no-nonroot]
#          [--captures] [--save-captures DIR] [--ralph PATH]
#   --latest          the newest version on npm instead of the pins (shows drift)
#   --only CLI        only these CLIs (repeatable or comma separated)
#   --keep            keep the work folder (projects, logs, server logs) and say where it is
#   --no-nonroot      as root, skip the non-root user's pass
#   --captures        also capture each CLI's raw stdout for one iteration (and stopped
#                     mid-iteration), the usage the server sent, and its error outputs
#                     (unknown argument, missing credentials, claude's root refusal, gemini in a
#                     folder it does not trust, codex with the --full-auto ralph passed before)
#   --save-captures D --captures, then copy them into D (tests/fixtures/telemetry/real)
#   --ralph PATH      the ralph binary (default: $RALPH_BIN, else `cargo build --locked`)
# Environment: RALPH_CONTRACT_CACHE (default ${XDG_CACHE_HOME:-~/.cache}/ralph-contract),
#   RALPH_CONTRACT_USER (the non-root user, default ralph-contract).
# Exit: 0 every check passed; 1 a check failed; 2 usage error; 77 SKIPPED: the npm registry
#   could not be reached for an install (loud banner; never a silent pass).
set -uo pipefail

EXIT_SKIPPED=77
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/.." && pwd)
# shellcheck source=contract/clis.sh
. "$HERE/contract/clis.sh"

LATEST=0 KEEP=0 NONROOT=1 CAPTURE=0 SAVE='' RALPH=${RALPH_BIN:-}
ONLY=()
while [ $# -gt 0 ]; do
	case $1 in
	--latest) LATEST=1 ;;
	--keep) KEEP=1 ;;
	--no-nonroot) NONROOT=0 ;;
	--only)
		shift
		IFS=, read -r -a more <<<"${1:-}"
		ONLY+=("${more[@]}")
		;;
	--captures) CAPTURE=1 ;;
	--save-captures)
		shift
		SAVE=${1:-}
		CAPTURE=1
		;;
	--ralph)
		shift
		RALPH=${1:-}
		;;
	-h | --help)
		sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'
		exit 0
		;;
	*)
		echo "agent-contract: unknown argument $1 (see --help)" >&2
		exit 2
		;;
	esac
	shift
done
SELECTED=()
for c in "${CLIS[@]}"; do
	if [ ${#ONLY[@]} -eq 0 ] || [[ " ${ONLY[*]} " == *" $c "* ]]; then SELECTED+=("$c"); fi
done
for c in "${ONLY[@]}"; do
	cli_package "$c" >/dev/null || {
		echo "agent-contract: unknown CLI $c (one of: ${CLIS[*]})" >&2
		exit 2
	}
done

CACHE=${RALPH_CONTRACT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ralph-contract}
NRUSER=${RALPH_CONTRACT_USER:-ralph-contract}
T0=$(date +%s)
say() { printf 'agent-contract: %s\n' "$*" >&2; }
elapsed() { echo "$(($(date +%s) - T0))s"; }

skipped() {
	cat >&2 <<-EOF

		################################################################
		##  SKIPPED: registry unreachable                             ##
		##  $1
		##  The agent contract tests did NOT run. This is not a pass.  ##
		################################################################

	EOF
	exit $EXIT_SKIPPED
}

# --- versions and installs ------------------------------------------------------------------

registry_ok() { timeout 30 npm view "$(cli_package "${SELECTED[0]}")" version >/dev/null 2>&1; }

declare -A VERSION BIN
if [ $LATEST = 1 ]; then
	registry_ok || skipped "npm view failed: cannot learn the latest versions"
fi
for c in "${SELECTED[@]}"; do
	if [ $LATEST = 1 ]; then
		VERSION[$c]=$(timeout 60 npm view "$(cli_package "$c")" version 2>/dev/null) ||
			skipped "npm view $(cli_package "$c") failed"
		[ "${VERSION[$c]}" = "$(cli_pin "$c")" ] || say "$c: latest ${VERSION[$c]} differs from the pin $(cli_pin "$c")"
	else
		VERSION[$c]=$(cli_pin "$c")
	fi
done

# install_cli CLI: into $CACHE/<cli>@<version> unless a complete install is there. Runs in the
# background (one per CLI: they wait on the network, not the CPU); a failure leaves no .complete.
install_cli() {
	local c=$1 v=${VERSION[$1]} dir
	dir="$CACHE/$c@$v"
	say "$c@$v: installing $(cli_package "$c")@$v into $dir"
	rm -rf "$dir" && mkdir -p "$dir" || return 1
	if ! npm install --prefix "$dir" --no-audit --no-fund --loglevel=error \
		"$(cli_package "$c")@$v" >"$dir.install.log" 2>&1; then
		return 1
	fi
	touch "$dir/.complete"
}
INSTALL_T0=$(date +%s)
MISSING=()
for c in "${SELECTED[@]}"; do
	dir="$CACHE/${c}@${VERSION[$c]}"
	BIN[$c]="$dir/node_modules/.bin"
	if [ -f "$dir/.complete" ] && [ -x "${BIN[$c]}/$c" ]; then
		say "$c@${VERSION[$c]}: cached in $dir"
	else
		MISSING+=("$c")
	fi
done
if [ ${#MISSING[@]} -gt 0 ]; then
	registry_ok || skipped "cannot install ${MISSING[*]}: npm view $(cli_package "${MISSING[0]}") failed"
	mkdir -p "$CACHE"
	pids=()
	for c in "${MISSING[@]}"; do
		install_cli "$c" &
		pids+=($!)
	done
	for i in "${!MISSING[@]}"; do
		c=${MISSING[$i]}
		if ! wait "${pids[$i]}"; then
			# The registry answered `npm view`, so a failed install is a failure, not a skip.
			say "$c@${VERSION[$c]}: npm install FAILED:"
			tail -20 "$CACHE/$c@${VERSION[$c]}.install.log" >&2
			exit 1
		fi
	done
fi
INSTALL_S=$(($(date +%s) - INSTALL_T0))
say "installs ready in ${INSTALL_S}s"

# --- ralph ----------------------------------------------------------------------------------

if [ -z "$RALPH" ]; then
	say "building ralph (cargo build --locked)"
	(cd "$REPO" && cargo build --locked --quiet) || {
		say "cargo build failed"
		exit 1
	}
	RALPH="${CARGO_TARGET_DIR:-$REPO/target}/debug/ralph"
fi
[ -x "$RALPH" ] || {
	say "no ralph binary at $RALPH"
	exit 1
}

# --- the work folder ------------------------------------------------------------------------

# Not under /tmp: codex refuses to create its helper binaries under the temp dir (a warning).
WORK=$(mktemp -d "${RALPH_CONTRACT_WORK:-/var/tmp}/ralph-contract.XXXXXX")
chmod 755 "$WORK"
mkdir -p "$WORK/bin" "$WORK/cli" "$WORK/captures/errors" "$WORK/servers"
cp "$RALPH" "$WORK/bin/ralph"
RESULTS=$WORK/results.jsonl
: >"$RESULTS"
SERVERS=()
cleanup() {
	local p
	for p in "${SERVERS[@]}"; do kill "$p" 2>/dev/null; done
	if [ $KEEP = 1 ]; then say "kept the work folder: $WORK"; else rm -rf "$WORK"; fi
}
trap cleanup EXIT

# The installs, hard-linked where every user can read them (the cache may be under /root).
for c in "${SELECTED[@]}"; do
	src=$(dirname "${BIN[$c]}")
	src=$(dirname "$src")
	cp -al "$src" "$WORK/cli/$c" 2>/dev/null || cp -a "$src" "$WORK/cli/$c"
	BIN[$c]="$WORK/cli/$c/node_modules/.bin"
done

USERS=("$(id -un)")
if [ "$(id -u)" = 0 ] && [ $NONROOT = 1 ]; then
	if ! id "$NRUSER" >/dev/null 2>&1; then
		useradd --create-home --shell /bin/bash "$NRUSER" || {
			say "useradd $NRUSER failed"
			exit 1
		}
	fi
	USERS+=("$NRUSER")
fi

# runas USER: sets RUNAS, the prefix that runs a command as USER (setpriv execs in place, so
# a background job's pid is the command's own). run_as USER CMD...: runs it.
runas() {
	if [ "$1" = "$(id -un)" ]; then
		RUNAS=()
	else
		RUNAS=(setpriv --reuid="$(id -u "$1")" --regid="$(id -g "$1")" --init-groups --
			env "HOME=$(getent passwd "$1" | cut -d: -f6)")
	fi
}
run_as() {
	local RUNAS
	runas "$1"
	shift
	"${RUNAS[@]}" "$@"
}

# --- the model server -----------------------------------------------------------------------

SCENARIO=$WORK/scenario.json
cat >"$SCENARIO" <<'EOF'
{"stories": {
 "US-001": {"commands": ["echo alpha > a.txt",
   "sed -i '/\"id\": \"US-001\"/s/\"passes\": false/\"passes\": true/' prd.json && git add -A && git commit -qm 'US-001: a.txt' && echo committed"],
   "final": "Created a.txt and marked US-001 done.\nSTORY COMPLETE: US-001"},
 "US-002": {"commands": ["echo beta > b.txt",
   "sed -i '/\"id\": \"US-002\"/s/\"passes\": false/\"passes\": true/' prd.json && git add -A && git commit -qm 'US-002: b.txt' && echo committed"],
   "final": "Created b.txt and marked US-002 done.\nSTORY COMPLETE: US-002"},
 "SLOW-1": {"commands": ["echo started > started.txt && sleep 300 && echo never"],
   "final": "not reached"}
}}
EOF

# start_server LOG: starts a server logging to LOG; sets URL.
start_server() {
	local log=$1 portfile
	portfile=$(mktemp "$WORK/servers/port.XXXXXX")
	rm -f "$portfile"
	python3 "$HERE/contract/model_server.py" --scenario "$SCENARIO" --log "$log" \
		--port-file "$portfile" --model "$CONTRACT_CLAUDE_MODEL" \
		--idle-timeout 240 --hard-limit 1200 2>>"$WORK/servers/stderr.log" &
	SERVERS+=($!)
	local i
	for i in $(seq 1 100); do
		[ -s "$portfile" ] && break
		sleep 0.1
	done
	: >>"$log"
	URL="http://127.0.0.1:$(cat "$portfile")"
}

# cli_env USER CLI HOME URL: fills ENVV (the `env -i …` prefix) for a run of CLI as USER.
cli_env() {
	local u=$1 c=$2 home=$3 url=$4 lines
	mapfile -t lines < <(cli_setup "$c" "$home" "$url")
	chown -R "$u" "$home" 2>/dev/null
	ENVV=(env -i "PATH=${BIN[$c]}:$WORK/bin:/usr/local/bin:/usr/bin:/bin" LANG=C.UTF-8 TERM=dumb
		"USER=$u" "LOGNAME=$u" "${lines[@]}")
}

# make_project DIR USER [STORY...]: a git project with prd.json (one story a line, so `sed` can
# flip one), a verify gate (check.sh: every passing story's file holds its line) and ralph.toml.
make_project() {
	local dir=$1 u=$2
	shift 2
	mkdir -p "$dir"
	local ids=("$@") first=1 id
	{
		echo '{'
		echo '  "project": "contract",'
		echo '  "branchName": "ralph/contract",'
		echo '  "description": "Tiny stories for the agent contract test.",'
		echo '  "userStories": ['
		local n=0
		for id in "${ids[@]}"; do
			n=$((n + 1))
			[ $first = 1 ] || echo ','
			first=0
			printf '    {"id": "%s", "title": "Story %s", "description": "Do what story %s says.", "acceptanceCriteria": ["its file exists"], "priority": %d, "passes": false, "notes": ""}' "$id" "$id" "$id" "$n"
		done
		echo
		echo '  ]'
		echo '}'
	} >"$dir/prd.json"
	cat >"$dir/check.sh" <<-'EOF'
		# The verify gate: every story marked passing has its file.
		set -e
		if grep -q '"id": "US-001".*"passes": true' prd.json; then grep -qx alpha a.txt; fi
		if grep -q '"id": "US-002".*"passes": true' prd.json; then grep -qx beta b.txt; fi
		exit 0
	EOF
	printf '[verify]\ncommands = ["sh check.sh"]\n[clean]\nauto = false\n' >"$dir/ralph.toml"
	chown -R "$u" "$dir"
	run_as "$u" sh -c "cd '$dir' && git init -q -b main && git config user.name contract && \
		git config user.email contract@example.invalid && git add -A && git commit -qm init"
}

result() { # result USER CLI VERSION MODE ARGV E2E USAGE CTRLC NOTES_JSON
	python3 - "$@" >>"$RESULTS" <<-'EOF'
		import json, sys
		a = sys.argv[1:]
		print(json.dumps({"user": a[0], "cli": a[1], "version": a[2], "mode": a[3], "argv": a[4],
		                  "e2e": a[5], "usage": a[6], "ctrlc": a[7], "notes": json.loads(a[8])}))
	EOF
}

notes_json() { python3 -c 'import json,sys; print(json.dumps(sys.argv[1:]))' "$@"; }

# first_error FILE...: the line that says what went wrong, cut short.
first_error() {
	local l
	l=$(cat "$@" 2>/dev/null | grep -m1 -E 'unexpected argument|unknown option|cannot be used|^error|^Error|"is_error":true' ||
		cat "$@" 2>/dev/null | grep -v '^WARNING' | grep -m1 -iE 'error|unexpected|unknown|cannot|refus|invalid|not found|denied|failed|root' ||
		cat "$@" 2>/dev/null | grep -m1 .)
	printf '%s' "${l:0:200}"
}

PROBE_PROMPT="Reply with the word OK."
STORY_PROMPT=$'# Your story: US-001 - Story US-001\n\nDo what story US-001 says.\n'

# run_cli DIR OUT ERR TIMEOUT PROMPT ARGV...: the CLI as the current RUNAS/ENVV, prompt on stdin
# (MODE=stdin) or already in ARGV; returns its exit code.
run_cli() {
	local dir=$1 out=$2 err=$3 t=$4
	prompt_file "$5"
	shift 5
	(cd "$dir" && timeout -k 5 "$t" "${RUNAS[@]}" "${ENVV[@]}" "$@" <"$PROMPT_IN" >"$out" 2>"$err")
}

# prompt_file PROMPT: sets PROMPT_IN, the CLI's stdin: the prompt (MODE=stdin) or nothing.
prompt_file() {
	PROMPT_IN=/dev/null
	if [ "$MODE" = stdin ]; then
		PROMPT_IN=$(mktemp "$WORK/servers/prompt.XXXXXX")
		printf '%s' "$1" >"$PROMPT_IN"
		chmod 644 "$PROMPT_IN"
	fi
}

# preset_argv PROJECT PROMPT: ralph's argv for the preset (from `ralph run --dry-run` in PROJECT,
# which must have a ready story), with the prompt replaced by PROMPT; sets ARGV, MODE and
# RALPH_ARGV (the argv as ralph prints it).
preset_argv() {
	local proj=$1 prompt=$2 json
	(cd "$proj" && "${RUNAS[@]}" "${ENVV[@]}" ralph run --dry-run --agent "$CLI") >"$proj.dry-run.txt" 2>&1
	json=$(python3 "$HERE/contract/report.py" argv "$proj.dry-run.txt" "$prompt") || return 1
	mapfile -d '' -t ARGV < <(python3 -c 'import json,sys; d=json.loads(sys.argv[1]); sys.stdout.write("\0".join(d["argv"])+"\0")' "$json")
	MODE=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["mode"])' "$json")
	RALPH_ARGV=$(python3 -c 'import json,sys,shlex; print(shlex.join(json.loads(sys.argv[1])["ralph_argv"]))' "$json")
}

# check_argv U BASE [EXTRA_ENV...]: does the CLI accept ralph's argv (one short round trip)?
# Sets ARGV_RESULT. Used for amp, which has no e2e; the others' e2e answers it (argv_from_e2e).
check_argv() {
	local u=$1 base=$2 dir=$2/argv-check rc
	shift 2
	make_project "$dir" "$u" US-001
	start_server "$base/argv.server.jsonl"
	cli_env "$u" "$CLI" "$base/home" "$URL"
	ENVV+=("$@")
	preset_argv "$dir" "$PROBE_PROMPT" || {
		ARGV_RESULT="NO (no argv from ralph run --dry-run: $(first_error "$dir.dry-run.txt"))"
		return
	}
	run_cli "$dir" "$base/argv.out" "$base/argv.err" 120 "$PROBE_PROMPT" "${ARGV[@]}"
	rc=$?
	if grep -qiE "unknown option|unexpected argument|unknown argument|unrecognized|not a valid|invalid option" "$base/argv.out" "$base/argv.err"; then
		ARGV_RESULT="NO (exit $rc: $(first_error "$base/argv.err" "$base/argv.out"))"
	elif [ "$CLI" = amp ]; then
		if grep -qiE "couldn't connect|network|ENOTFOUND|ECONNREFUSED|fetch failed" "$base/argv.err" "$base/argv.out"; then
			ARGV_RESULT="yes (stops at: $(first_error "$base/argv.err" "$base/argv.out"))"
		else
			ARGV_RESULT="? (exit $rc: $(first_error "$base/argv.err" "$base/argv.out"))"
		fi
	elif [ $rc = 0 ]; then
		ARGV_RESULT=yes
	else
		ARGV_RESULT="NO (exit $rc: $(first_error "$base/argv.err" "$base/argv.out"))"
	fi
}

# argv_from_e2e BASE: the argv was accepted when the e2e run reached the model; else the CLI's
# first error line from ralph's first iteration log. Sets ARGV_RESULT.
argv_from_e2e() {
	local base=$1
	if grep -q '"kind": "main"' "$base/e2e.server.jsonl" 2>/dev/null; then
		ARGV_RESULT=yes
	else
		ARGV_RESULT="NO: $(first_error "$base"/proj/.ralph/runs/*/iter-1.log)"
	fi
}

# check_e2e U BASE [EXTRA_ENV...]: ralph run on a 2-story project; sets E2E_RESULT, USAGE_RESULT.
check_e2e() {
	local u=$1 base=$2 proj=$2/proj rc usage
	shift 2
	start_server "$base/e2e.server.jsonl"
	cli_env "$u" "$CLI" "$base/home" "$URL"
	(cd "$proj" && timeout -k 10 600 "${RUNAS[@]}" "${ENVV[@]}" "$@" ralph run 6 --agent "$CLI" \
		--sleep 0 --timeout 4m --max-failures 1 --no-wait </dev/null >"$base/e2e.out" 2>"$base/e2e.err")
	rc=$?
	E2E_RESULT="$(python3 "$HERE/contract/report.py" stories "$proj/prd.json") (exit $rc) · $(python3 "$HERE/contract/report.py" commits "$proj")"
	if [ $rc != 0 ]; then
		NOTES+=("e2e: ralph exit $rc; the agent said: $(first_error "$proj"/.ralph/runs/*/iter-1.log)")
	fi
	usage=$(python3 "$HERE/contract/report.py" usage "$base/e2e.server.jsonl" "$proj/.ralph/history.jsonl" "$(cli_api "$CLI")")
	echo "$usage" >"$base/usage.json"
	USAGE_RESULT=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["verdict"])' "$usage")
	case $USAGE_RESULT in
	DIFFERENT*) NOTES+=("usage: $usage") ;;
	"none recorded") [ "$CLI" = copilot ] && USAGE_RESULT="n/a (ralph reads plain text)" ;;
	esac
}

# check_ctrlc U BASE [EXTRA_ENV...]: SIGINT to ralph while the agent's shell tool sleeps; sets
# CTRLC_RESULT.
check_ctrlc() {
	local u=$1 base=$2 proj=$2/ctrlc pid i rc left
	shift 2
	make_project "$proj" "$u" SLOW-1
	start_server "$base/ctrlc.server.jsonl"
	cli_env "$u" "$CLI" "$base/home" "$URL"
	(cd "$proj" && exec "${RUNAS[@]}" "${ENVV[@]}" "$@" ralph run 2 --agent "$CLI" --sleep 0 \
		--timeout 4m --max-failures 1 --no-wait --grace 3s </dev/null >"$base/ctrlc.out" 2>"$base/ctrlc.err") &
	pid=$!
	for i in $(seq 1 240); do
		python3 "$HERE/contract/report.py" procs "HOME=$base/home" | grep -q 'sleep 300' && break
		kill -0 $pid 2>/dev/null || break
		sleep 0.5
	done
	if ! python3 "$HERE/contract/report.py" procs "HOME=$base/home" | grep -q 'sleep 300'; then
		CTRLC_RESULT="not reached (the agent never ran the tool)"
		kill -INT $pid 2>/dev/null
	else
		sleep 1
		kill -INT $pid
		CTRLC_RESULT=''
	fi
	for i in $(seq 1 60); do
		kill -0 $pid 2>/dev/null || break
		sleep 0.5
	done
	if kill -0 $pid 2>/dev/null; then
		kill -KILL $pid
		NOTES+=("ctrlc: ralph still running 30s after SIGINT; killed")
	fi
	wait $pid
	rc=$?
	sleep 1
	left=$(python3 "$HERE/contract/report.py" procs "HOME=$base/home")
	if [ -n "$left" ]; then
		NOTES+=("ctrlc: left running: $(echo "$left" | tr '\n' ';')")
		echo "$left" | while read -r p _; do kill -KILL "$p" 2>/dev/null; done
		CTRLC_RESULT="NO: $(echo "$left" | wc -l) process(es) left"
	elif [ -z "$CTRLC_RESULT" ]; then
		CTRLC_RESULT="yes (exit $rc)"
		[ $rc = 130 ] || CTRLC_RESULT="yes, but ralph exit $rc (want 130)"
	fi
}

# save_error NAME ARGV...: one error case of the CLI, as text: argv, exit code, stdout, stderr.
save_error() {
	local name=$1 rc out=$WORK/captures/errors/$CLI-${VERSION[$CLI]}.$1.txt d=$BASE/err-$1
	shift
	make_project "$d" "$CUR_USER" US-001
	run_cli "$d" "$d.out" "$d.err" 20 "$PROBE_PROMPT" "$@"
	rc=$?
	{
		echo "# $CLI ${VERSION[$CLI]}: $name (scripts/agent-contract.sh; user $CUR_USER)"
		echo "# argv: $(python3 -c 'import shlex,sys; print(shlex.join(sys.argv[1:]))' "$@")"
		echo "# prompt: ${MODE}"
		echo "# exit: $rc"
		echo "# --- stdout"
		cat "$d.out"
		echo "# --- stderr"
		cat "$d.err"
	} >"$out"
}

# captures U BASE: the raw stdout of one iteration (story US-001) with ralph's argv (fixed where
# today's preset fails), and the CLI's error outputs.
captures() {
	local u=$1 base=$2 v=${VERSION[$CLI]} d=$2/capture extra=() cap=$WORK/captures pid i
	# What the person sets for an unattended run: IS_SANDBOX for claude as root, trust for gemini.
	[ "$(id -u "$u")" = 0 ] && [ "$CLI" = claude ] && extra=(IS_SANDBOX=1)
	[ "$CLI" = gemini ] && extra=(GEMINI_CLI_TRUST_WORKSPACE=true)
	make_project "$d" "$u" US-001
	URL=''
	[ "$CLI" = amp ] || start_server "$cap/$CLI-$v.server.jsonl"
	cli_env "$u" "$CLI" "$base/home" "$URL"
	ENVV+=("${extra[@]}")
	preset_argv "$d" "$STORY_PROMPT" || {
		say "$CLI: no capture: no argv from ralph run --dry-run: $(first_error "$d.dry-run.txt")"
		return
	}
	local ext=jsonl
	[ "$CLI" = copilot ] && ext=txt
	if [ "$CLI" != amp ]; then
		run_cli "$d" "$cap/$CLI-$v.$ext" "$cap/$CLI-$v.stderr.txt" 180 "$STORY_PROMPT" "${ARGV[@]}"
		echo "$(python3 -c 'import shlex,sys; print(shlex.join(sys.argv[1:]))' "${extra[@]}" "${ARGV[@]}")" >"$cap/$CLI-$v.argv.txt"
	fi
	if [ "$CLI" = copilot ]; then # the JSON mode ralph could use instead of plain text
		make_project "$d-json" "$u" US-001
		start_server "$cap/$CLI-$v.json-mode.server.jsonl"
		cli_env "$u" "$CLI" "$base/home" "$URL"
		chmod 777 "$cap"
		run_cli "$d-json" "$cap/$CLI-$v.jsonl" "$cap/$CLI-$v.json-mode.stderr.txt" 180 "$STORY_PROMPT" \
			"${ARGV[@]}" --output-format json --usage-output-file "$cap/$CLI-$v.usage.json"
		echo "$(python3 -c 'import shlex,sys; print(shlex.join(sys.argv[1:]))' "${ARGV[@]}" --output-format json --usage-output-file "$CLI-$v.usage.json")" >"$cap/$CLI-$v.json-mode.argv.txt"
	fi
	if [ "$CLI" = claude ] || [ "$CLI" = codex ] || [ "$CLI" = gemini ] || [ "$CLI" = opencode ]; then
		# Stopped mid-iteration the way ralph stops it (SIGTERM to the group): no final event.
		make_project "$d-stop" "$u" SLOW-1
		start_server "$cap/$CLI-$v.interrupted.server.jsonl"
		cli_env "$u" "$CLI" "$base/home" "$URL"
		ENVV+=("${extra[@]}")
		local prompt=${STORY_PROMPT//US-001/SLOW-1} a argv=()
		for a in "${ARGV[@]}"; do argv+=("${a//US-001/SLOW-1}"); done
		prompt_file "$prompt"
		(cd "$d-stop" && exec setsid "${RUNAS[@]}" "${ENVV[@]}" "${argv[@]}" <"$PROMPT_IN" >"$cap/$CLI-$v.interrupted.jsonl" 2>/dev/null) &
		pid=$!
		for i in $(seq 1 240); do
			python3 "$HERE/contract/report.py" procs "HOME=$base/home" | grep -q 'sleep 300' && break
			sleep 0.5
		done
		sleep 1
		# setsid ran in place (a background job is no group leader): the CLI leads group $pid.
		kill -TERM -- "-$pid" 2>/dev/null
		sleep 3
		kill -KILL -- "-$pid" 2>/dev/null
		wait $pid 2>/dev/null
		python3 "$HERE/contract/report.py" procs "HOME=$base/home" | while read -r p _; do kill -KILL "$p" 2>/dev/null; done
	fi
	# Error outputs: an unknown argument, missing credentials, and (claude as root) the refusal.
	make_project "$d-err" "$u" US-001
	cli_env "$u" "$CLI" "$base/home" "$URL"
	ENVV+=("${extra[@]}")
	preset_argv "$d-err" "$PROBE_PROMPT"
	save_error unknown-argument "${ARGV[0]}" --contract-no-such-flag "${ARGV[@]:1}"
	rm -rf "$base/home-nocred"
	cli_env "$u" "$CLI" "$base/home-nocred" ""
	ENVV+=("${extra[@]}")
	save_error no-credentials "${ARGV[@]}"
	if [ "$CLI" = claude ] && [ "$(id -u "$u")" = 0 ]; then
		cli_env "$u" "$CLI" "$base/home" "$URL"
		save_error root-refusal "${ARGV[@]}"
	fi
	if [ "$CLI" = gemini ]; then # in a folder it was not told to trust
		cli_env "$u" "$CLI" "$base/home" "$URL"
		save_error untrusted "${ARGV[@]}"
	fi
	if [ "$CLI" = codex ]; then # the argv ralph ran it with before issue 25
		cli_env "$u" "$CLI" "$base/home" "$URL"
		save_error preset-full-auto codex exec --json --full-auto -
	fi
}

# --- the runs -------------------------------------------------------------------------------

# start_failure_pass U CLI: claude as root without IS_SANDBOX=1 refuses to start. ralph must stop
# on the first attempt with its own exit code (not 0, not 4 "nothing ready") and name FIX (the
# variable the person may set: IS_SANDBOX for claude as root, GEMINI_CLI_TRUST_WORKSPACE for
# gemini in a folder it does not trust).
start_failure_pass() {
	local u=$1 fix=$3 proj rc attempts said=''
	CLI=$2
	BASE=$WORK/$u/$CLI-start-failure
	rm -rf "$BASE"
	mkdir -p "$BASE"
	chown "$u" "$WORK/$u" "$BASE"
	runas "$u"
	NOTES=()
	proj=$BASE/proj
	make_project "$proj" "$u" US-001 US-002
	start_server "$BASE/e2e.server.jsonl"
	cli_env "$u" "$CLI" "$BASE/home" "$URL"
	(cd "$proj" && timeout -k 10 300 "${RUNAS[@]}" "${ENVV[@]}" ralph run 6 --agent "$CLI" --sleep 0 \
		--timeout 2m --no-wait </dev/null >"$BASE/e2e.out" 2>"$BASE/e2e.err")
	rc=$?
	attempts=$(grep -c . "$proj/.ralph/history.jsonl" 2>/dev/null)
	grep -q "$fix" "$BASE/e2e.err" "$BASE/e2e.out" && said=", names $fix" || said=", does not name $fix"
	argv_from_e2e "$BASE"
	NOTES+=("start failure: ralph said: $(grep -m1 -iE 'error|root|sandbox|trust' "$BASE/e2e.err" | cut -c1-200)")
	result "$u" "$CLI" "${VERSION[$CLI]}" "start failure expected (no $fix)" "$ARGV_RESULT" \
		"stopped after ${attempts:-0} attempt(s), exit $rc$said" n/a n/a "$(notes_json "${NOTES[@]}")"
	say "$u $CLI start failure: stopped after ${attempts:-0} attempt(s), exit $rc$said"
}

# one_pass U CLI MODE_LABEL [EXTRA_ENV...]: argv, e2e, usage and Ctrl-C for one user and CLI.
one_pass() {
	local u=$1 label=$3 t0
	CLI=$2
	shift 3
	t0=$(date +%s)
	BASE=$WORK/$u/$CLI${label:+-$(printf '%s' "$label" | tr -c 'A-Za-z0-9' - | cut -c1-30)}
	rm -rf "$BASE"
	mkdir -p "$BASE"
	chown "$u" "$WORK/$u" "$BASE"
	runas "$u"
	CUR_USER=$u
	NOTES=()
	make_project "$BASE/proj" "$u" US-001 US-002
	cli_env "$u" "$CLI" "$BASE/home" ""
	ENVV+=("$@")
	preset_argv "$BASE/proj" "$PROBE_PROMPT" || NOTES+=("no argv from ralph run --dry-run: $(first_error "$BASE/proj.dry-run.txt")")
	local version
	version=$(cd "$BASE" && "${RUNAS[@]}" "${ENVV[@]}" "$CLI" --version 2>/dev/null | grep -m1 -oE '[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.]+)?')
	[ "$version" = "${VERSION[$CLI]}" ] || NOTES+=("--version says '$version', installed ${VERSION[$CLI]}")
	NOTES+=("ralph argv: $RALPH_ARGV")
	if [ "$CLI" = amp ]; then
		check_argv "$u" "$BASE" "$@"
		E2E_RESULT="n/a (model behind Amp's server)" USAGE_RESULT=n/a CTRLC_RESULT=n/a
	else
		check_e2e "$u" "$BASE" "$@"
		argv_from_e2e "$BASE"
		check_ctrlc "$u" "$BASE" "$@"
	fi
	result "$u" "$CLI" "${version:-?}" "${label:-preset}" "$ARGV_RESULT" "$E2E_RESULT" "$USAGE_RESULT" \
		"$CTRLC_RESULT" "$(notes_json "${NOTES[@]}")"
	say "$u $CLI ${label:-preset}: argv $ARGV_RESULT · e2e $E2E_RESULT · usage $USAGE_RESULT · ctrl-c $CTRLC_RESULT ($(($(date +%s) - t0))s)"
	if [ $CAPTURE = 1 ] && [ "$u" = "${USERS[0]}" ]; then
		t0=$(date +%s)
		captures "$u" "$BASE"
		say "$CLI: captures in $(($(date +%s) - t0))s"
	fi
}

say "work folder $WORK; ralph $RALPH; users: ${USERS[*]}"
for u in "${USERS[@]}"; do
	for c in "${SELECTED[@]}"; do
		if [ "$c" = claude ] && [ "$(id -u "$u")" = 0 ]; then
			# As root, Claude Code runs only where the person said it is a sandbox (IS_SANDBOX=1,
			# as in a container); without it ralph must stop at once and say why (issue 25).
			one_pass "$u" claude "IS_SANDBOX=1 (root in a container)" IS_SANDBOX=1
			start_failure_pass "$u" claude IS_SANDBOX
		elif [ "$c" = gemini ]; then
			# Gemini CLI runs headless only in a folder it trusts; the person says so with
			# GEMINI_CLI_TRUST_WORKSPACE=true; without it ralph must stop at once and say why.
			one_pass "$u" gemini "GEMINI_CLI_TRUST_WORKSPACE=true (a trusted project)" GEMINI_CLI_TRUST_WORKSPACE=true
			start_failure_pass "$u" gemini GEMINI_CLI_TRUST_WORKSPACE
		else
			one_pass "$u" "$c" ""
		fi
	done
done

{
	echo "ralph agent contract: $(date -u +%Y-%m-%dT%H:%MZ), $([ $LATEST = 1 ] && echo latest || echo pinned) versions, ralph $(git -C "$REPO" rev-parse --short HEAD 2>/dev/null), node $(node --version), installs ${INSTALL_S}s, total $(elapsed)"
	python3 "$HERE/contract/report.py" table "$RESULTS"
} >"$WORK/captures/results.txt"
echo
cat "$WORK/captures/results.txt"
cp "$RESULTS" "$WORK/captures/results.jsonl"
if [ -n "$SAVE" ]; then
	mkdir -p "$SAVE/errors"
	cp "$WORK"/captures/*.* "$SAVE"/ 2>/dev/null
	cp "$WORK"/captures/errors/* "$SAVE/errors/" 2>/dev/null
	say "captures copied to $SAVE"
fi
# Pass: every row has the argv accepted, 2/2 stories each committed by the
# agent, usage equal (or not
# read), Ctrl-C clean; a start-failure row stopped on its first attempt, naming the fix.
python3 - "$RESULTS" <<'PY'
import json, re, sys
bad = []
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r["mode"].startswith("start failure"):
        m = re.match(r"stopped after ([01]) attempt\(s\), exit (\d+), names ", r["e2e"])
        if not m or m.group(2) in ("0", "4"):
            bad.append(f'{r["cli"]} ({r["user"]}, {r["mode"]})')
        continue
    ok = r["argv"].startswith("yes") and r["ctrlc"].split(" ")[0] in ("yes", "n/a") \
        and ((r["e2e"].startswith("2/2 (exit 0)") and "2 agent commit(s)" in r["e2e"])
             or r["e2e"].startswith("n/a")) \
        and (r["usage"].startswith("equal") or r["usage"].startswith("n/a"))
    if not ok:
        bad.append(f'{r["cli"]} ({r["user"]}, {r["mode"]})')
print("\nFAILED: " + ", ".join(bad) if bad else "\nall preset checks passed")
sys.exit(1 if bad else 0)
PY

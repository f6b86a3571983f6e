#!/usr/bin/env bats
# First load without a built helper: a background build that never blocks the
# plugin, one build for two loads, then the supervisor; failures logged.
# TMUX_FLEET_BUILD_CMD stands in for `npm ci && npm run build`.
# And the build itself (scripts/build.mjs), in a copy of the sources.

setup() {
	load helpers
	fleet_setup --no-helper
	FAKE="$ROOT/test/fixtures/fake-helper.cjs"
}

teardown() {
	fleet_teardown
}

@test "a missing helper is built in the background; the plugin returns at once" {
	export TMUX_FLEET_BUILD_CMD="echo build >>builds.log; sleep 2; mkdir -p dist && cp '$FAKE' dist/tmux-fleet.cjs"
	local start=$SECONDS
	run load_plugin
	assert_success
	[ $((SECONDS - start)) -le 1 ]
	# Keys and options are in place before the helper exists.
	run t list-keys -T prefix F
	assert_output --partial fleet-popup.sh
	[ ! -f "$PLUGIN/dist/tmux-fleet.cjs" ]
	run cat "$TMUX_FLEET_HOME/log"
	assert_output --partial "building it in the background"

	wait_for 15 grep -q supervise "$PLUGIN/calls.log"
	run cat "$PLUGIN/calls.log"
	assert_output "[\"supervise\",\"--socket-path\",\"$SOCKET_PATH\"]"
	run cat "$TMUX_FLEET_HOME/log"
	assert_output --partial "helper built"
	[ ! -e "$PLUGIN/.fleet-build.lock" ]
}

@test "two loads while building build once" {
	# The build waits for the gate (at most 20 s), so the second load comes while it runs
	# however slow the machine is.
	export TMUX_FLEET_BUILD_CMD="echo build >>builds.log; i=0; while [ ! -e gate ] && [ \$i -lt 200 ]; do sleep 0.1; i=\$((i + 1)); done; mkdir -p dist && cp '$FAKE' dist/tmux-fleet.cjs"
	load_plugin
	wait_for 15 test -s "$PLUGIN/builds.log"
	load_plugin
	# The second load's builder starts in the background too: it must find the first at work.
	wait_for 15 grep -q "already building" "$TMUX_FLEET_HOME/log"
	touch "$PLUGIN/gate"
	wait_for 15 grep -q supervise "$PLUGIN/calls.log"
	sleep 0.5
	run cat "$PLUGIN/builds.log"
	assert_output "build"
}

@test "a stale lock of a dead builder is broken" {
	mkdir "$PLUGIN/.fleet-build.lock"
	sh -c 'echo $$' >"$PLUGIN/.fleet-build.lock/pid"
	export TMUX_FLEET_BUILD_CMD="mkdir -p dist && cp '$FAKE' dist/tmux-fleet.cjs"
	load_plugin
	wait_for 15 grep -q supervise "$PLUGIN/calls.log"
}

@test "a failed build reaches the log with its output, and releases the lock" {
	export TMUX_FLEET_BUILD_CMD="echo 'npm ERR! boom' >&2; exit 3"
	run load_plugin
	assert_success
	wait_for 15 grep -q 'failed' "$TMUX_FLEET_HOME/log"
	run cat "$TMUX_FLEET_HOME/log"
	assert_output --partial "failed (exit 3)"
	assert_output --partial "npm ERR! boom"
	wait_for 5 test ! -e "$PLUGIN/.fleet-build.lock"
	[ ! -f "$PLUGIN/calls.log" ]
}

@test "the popup explains a helper that is not built yet" {
	run "$PLUGIN/scripts/fleet-popup.sh" </dev/null
	assert_success
	assert_output --partial "not built yet"
}

# build_copy <dir>: the sources a clone has, with this checkout's node_modules.
build_copy() {
	mkdir -p "$1"
	cp -R "$ROOT/src" "$ROOT/scripts" "$ROOT/package.json" "$1/"
	ln -s "$ROOT/node_modules" "$1/node_modules"
}

@test "the build writes the entry, the two bundles, the fast one's code cache, the dependencies and their maps, and says so in one line" {
	local dir="$BATS_TEST_TMPDIR/clone"
	build_copy "$dir"
	cd "$dir"
	run node scripts/build.mjs
	assert_success
	assert_output --regexp '^built tmux-fleet\.cjs \([0-9]+ KB\), cli\.cjs \([0-9]+ KB\), fast-[A-Z0-9]+\.cjs \([0-9]+ KB\), deps/execa\.cjs \([0-9]+ KB\), deps/yargs\.cjs \([0-9]+ KB\), deps/jsonc-parser\.cjs \([0-9]+ KB\), deps/smol-toml\.cjs \([0-9]+ KB\), fast-[A-Z0-9]+\.cjs\.cache \([0-9]+ KB\) in [0-9]+ ms$'
	local fast
	fast=$(cd dist && ls fast-*.cjs)
	run sh -c "find dist -type f | LC_ALL=C sort"
	assert_output "$(printf '%s\n' dist/cli.cjs dist/cli.cjs.map "dist/$fast" "dist/$fast.map" "dist/$fast.cache" dist/deps/execa.cjs dist/deps/execa.cjs.map dist/deps/jsonc-parser.cjs dist/deps/jsonc-parser.cjs.map dist/deps/smol-toml.cjs dist/deps/smol-toml.cjs.map dist/deps/yargs.cjs dist/deps/yargs.cjs.map dist/tmux-fleet.cjs dist/tmux-fleet.cjs.map | LC_ALL=C sort)"
	[ -x dist/tmux-fleet.cjs ]
	grep -q "$fast" dist/tmux-fleet.cjs
	# Both paths run: the fast one (no dependency file) and one through yargs and execa.
	run ./dist/tmux-fleet.cjs --version
	assert_output "$(node -p 'require("./package.json").version')"
	TMUX_FLEET_SOCKET="$SOCKET" run ./dist/tmux-fleet.cjs tasks
	assert_success
	assert_output --partial "no tasks in $TMUX_FLEET_HOME/tasks"
}

@test "under a umask of 002 the build leaves dist/ and the code cache writable by their owner alone (or the cache would never be used)" {
	local dir="$BATS_TEST_TMPDIR/clone"
	build_copy "$dir"
	cd "$dir"
	mkdir -m 775 dist
	run sh -c 'umask 002 && node scripts/build.mjs'
	assert_success
	run stat -c '%a' dist
	assert_output "755"
	run sh -c 'stat -c "%a" dist/fast-*.cjs.cache'
	assert_output "644"
}

@test "a helper started while the build rewrites dist/ runs the old build or the new one, never half" {
	local dir="$BATS_TEST_TMPDIR/clone"
	build_copy "$dir"
	cd "$dir"
	node scripts/build.mjs >/dev/null
	node scripts/build.mjs >build.out 2>&1 &
	local builder=$! runs=0
	# --help goes through yargs: the helper and a dependency file, read at two moments.
	while kill -0 "$builder" 2>/dev/null || [ "$runs" -lt 3 ]; do
		run ./dist/tmux-fleet.cjs --help
		assert_success
		assert_output --partial "tmux-fleet <command>"
		runs=$((runs + 1))
	done
	wait "$builder"
	run find dist -name '*.tmp'
	assert_output ""
}

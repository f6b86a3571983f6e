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

@test "a missing helper is built in the background; the plugin returns before the build ends" {
	# The build cannot end before the gate is there (at most 20 s): the plugin returning first
	# proves it did not wait, however slow the machine is.
	export TMUX_FLEET_BUILD_CMD="echo build >>builds.log; i=0; while [ ! -e gate ] && [ \$i -lt 200 ]; do sleep 0.1; i=\$((i + 1)); done; mkdir -p dist && cp '$FAKE' dist/tmux-fleet.cjs"
	run load_plugin
	assert_success
	# Keys and options are in place before the helper exists.
	run t list-keys -T prefix F
	assert_output --partial fleet-popup.sh
	[ ! -f "$PLUGIN/dist/tmux-fleet.cjs" ]
	wait_for 15 grep -q "building it in the background" "$TMUX_FLEET_HOME/log"
	touch "$PLUGIN/gate"

	wait_for 15 grep -q supervise "$PLUGIN/calls.log"
	# A build's supervisor always starts in place of any running one; here there is none.
	run cat "$PLUGIN/calls.log"
	assert_output "[\"supervise\",\"--replace\",\"--socket-path\",\"$SOCKET_PATH\"]"
	run cat "$TMUX_FLEET_HOME/log"
	assert_output --partial "helper built"
	[ ! -e "$PLUGIN/.fleet-build.lock" ]
}

@test "an update: a helper built from other sources is rebuilt in the background, and the new build's supervisor replaces the old" {
	mkdir -p "$PLUGIN/dist" && cp "$FAKE" "$PLUGIN/dist/tmux-fleet.cjs" && mark_built "$PLUGIN"
	# Every load checks in the background; this load's check may come after the update below.
	export TMUX_FLEET_BUILD_CMD="echo build >>builds.log; cp '$FAKE' dist/tmux-fleet.cjs && bash -c '. scripts/helpers.sh && fleet_build_inputs' >dist/built-from"
	load_plugin
	wait_for 10 grep -q supervise "$PLUGIN/calls.log"
	[ ! -e "$PLUGIN/builds.log" ]
	# prefix U (TPM) or git pull: new sources, dist/ still the old build.
	sed -i 's/"version": "[^"]*"/"version": "9.9.9"/' "$PLUGIN/package.json"
	load_plugin
	run t show-option -gqv @fleet-version
	assert_output "9.9.9"
	wait_for 30 grep -q -- '"--replace"' "$PLUGIN/calls.log"
	# Both messages wait for the first client, in the order said.
	run pending_messages
	assert_output --partial "rebuilding it in the background · helper built"
	run grep -- '"--replace"' "$PLUGIN/calls.log"
	assert_output "[\"supervise\",\"--replace\",\"--socket-path\",\"$SOCKET_PATH\"]"
	run cat "$TMUX_FLEET_HOME/log"
	assert_output --regexp "build: the helper was built from [0-9.]+ [0-9]+-[0-9]+, the plugin is 9\.9\.9 [0-9]+-[0-9]+; rebuilding it"
	assert_output --regexp "helper built: .* \(9\.9\.9 [0-9]+-[0-9]+\)"
	# Built from these sources now: the next load builds nothing (once its background check is over).
	load_plugin
	wait_for 15 plugin_idle
	run cat "$PLUGIN/builds.log"
	assert_output "build"
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
	# The second builder ended when it logged that (it builds nothing after): one build is final.
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

@test "the build writes the entry, the two bundles, the dependencies and their maps, removes what an earlier build left, and says so in one line" {
	local dir="$BATS_TEST_TMPDIR/clone"
	build_copy "$dir"
	cd "$dir"
	mkdir -p dist/deps
	touch dist/fast-OLD.cjs dist/deps/gone.cjs
	run node scripts/build.mjs
	assert_success
	assert_output --regexp '^built tmux-fleet\.cjs \([0-9]+ KB\), fast\.cjs \([0-9]+ KB\), cli\.cjs \([0-9]+ KB\), deps/zod\.cjs \([0-9]+ KB\), deps/smol-toml\.cjs \([0-9]+ KB\), deps/jsonc-parser\.cjs \([0-9]+ KB\), deps/yargs\.cjs \([0-9]+ KB\), deps/execa\.cjs \([0-9]+ KB\) in [0-9]+ ms$'
	run sh -c "find dist -type f | LC_ALL=C sort"
	assert_output "$(printf '%s\n' dist/built-from dist/cli.cjs dist/cli.cjs.map dist/fast.cjs dist/fast.cjs.map dist/deps/execa.cjs dist/deps/execa.cjs.map dist/deps/jsonc-parser.cjs dist/deps/jsonc-parser.cjs.map dist/deps/smol-toml.cjs dist/deps/smol-toml.cjs.map dist/deps/yargs.cjs dist/deps/yargs.cjs.map dist/deps/zod.cjs dist/deps/zod.cjs.map dist/tmux-fleet.cjs dist/tmux-fleet.cjs.map | LC_ALL=C sort)"
	[ -x dist/tmux-fleet.cjs ]
	# What it is built from, as the plugin computes it on load (so a load finds it current).
	run cat dist/built-from
	assert_output "$(bash -c '. scripts/helpers.sh && fleet_build_inputs')"
	assert_output --regexp '^[0-9]+\.[0-9]+\.[0-9]+ [0-9]+-[0-9]+$'
	# Both run: --version (no dependency file) and tasks (through execa).
	run ./dist/tmux-fleet.cjs --version
	assert_output "$(node -p 'require("./package.json").version')"
	TMUX_FLEET_SOCKET="$SOCKET" run ./dist/tmux-fleet.cjs tasks
	assert_success
	assert_output --partial "no tasks in $TMUX_FLEET_HOME/tasks"
}

@test "a helper started while the build rewrites dist/ never reads half of a file" {
	local dir="$BATS_TEST_TMPDIR/clone"
	build_copy "$dir"
	cd "$dir"
	node scripts/build.mjs >/dev/null
	node scripts/build.mjs >build.out 2>&1 &
	local builder=$! runs=0
	# --help reads the entry, both bundles and a dependency file, at four moments.
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

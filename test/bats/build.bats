#!/usr/bin/env bats
# First load without a built helper: a background build that never blocks the
# plugin, one build for two loads, then the supervisor; failures logged.
# TMUX_FLEET_BUILD_CMD stands in for `npm ci && npm run build`.

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
	export TMUX_FLEET_BUILD_CMD="echo build >>builds.log; sleep 2; mkdir -p dist && cp '$FAKE' dist/tmux-fleet.cjs"
	load_plugin
	sleep 0.3
	load_plugin
	wait_for 15 grep -q supervise "$PLUGIN/calls.log"
	sleep 0.5
	run cat "$PLUGIN/builds.log"
	assert_output "build"
	run cat "$TMUX_FLEET_HOME/log"
	assert_output --partial "already building"
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

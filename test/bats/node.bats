#!/usr/bin/env bats
# Node on tmux's PATH or not: the plugin finds it once (PATH, then the usual
# places), records its absolute path in tmux's global environment
# (TMUX_FLEET_NODE) and uses it in every command it builds; with none found it
# says so with a message naming the cause. The log's lines carry a time.

setup() {
	load helpers
	fleet_setup
	# A PATH with everything of /usr/bin and /bin but node: what a tmux started
	# from a desktop session (no nvm, no shell profile) may have.
	NO_NODE="$BATS_TEST_TMPDIR/no-node-bin"
	mkdir -p "$NO_NODE"
	local f
	for f in /usr/local/bin/* /usr/bin/* /bin/*; do
		case "${f##*/}" in node | nodejs) continue ;; esac
		[ -e "$NO_NODE/${f##*/}" ] || ln -s "$f" "$NO_NODE/${f##*/}"
	done
	# tmux's own jobs (run-shell, popups) get the server's global environment.
	t set-environment -g PATH "$NO_NODE"
	REAL_NODE="$(command -v node)"
}

teardown() {
	fleet_teardown
}

# load_plugin_without_node [places]: the plugin as TPM runs it, with no node on PATH.
load_plugin_without_node() {
	PATH="$NO_NODE" TMUX_FLEET_NODE_PLACES="$1" load_plugin
}

@test "no node on PATH: found in the usual places, recorded, and used by the supervisor and the keys" {
	mkdir -p "$BATS_TEST_TMPDIR/opt/node/bin"
	ln -s "$REAL_NODE" "$BATS_TEST_TMPDIR/opt/node/bin/node"
	local found="$BATS_TEST_TMPDIR/opt/node/bin/node"
	run load_plugin_without_node "/nonexistent/node:$found"
	assert_success
	run t show-environment -g TMUX_FLEET_NODE
	assert_output "TMUX_FLEET_NODE=$found"
	wait_for 10 grep -q supervise "$PLUGIN/calls.log"
	run t list-keys -T prefix A
	assert_output --partial "$found"
	# The popup (prefix F) runs the helper with it too.
	run env PATH="$NO_NODE" TMUX_FLEET_NODE="$found" "$PLUGIN/scripts/fleet-popup.sh" tasks </dev/null
	assert_output --partial "fake-helper tasks"
}

@test "no node anywhere: a message names the cause, the log says it with a time, nothing is started" {
	run load_plugin_without_node "/nonexistent/node"
	assert_success
	# No client yet: the message waits for the first one.
	run pending_messages
	assert_output --partial "tmux-fleet: node not found"
	assert_output --partial "@fleet-node"
	run cat "$TMUX_FLEET_HOME/log"
	assert_output --regexp '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]+Z plugin\[[0-9]+\]: node not found'
	wait_for 15 plugin_idle
	[ ! -e "$PLUGIN/calls.log" ]
	# prefix F's popup explains instead of closing at once.
	run env PATH="$NO_NODE" TMUX_FLEET_NODE_PLACES=/nonexistent/node "$PLUGIN/scripts/fleet-popup.sh" </dev/null
	assert_output --partial "node not found"
}

@test "@fleet-node names the node to use; one that is not there is said so" {
	mkdir -p "$BATS_TEST_TMPDIR/mine"
	ln -s "$REAL_NODE" "$BATS_TEST_TMPDIR/mine/node"
	t set-option -g @fleet-node "$BATS_TEST_TMPDIR/mine/node"
	run load_plugin_without_node "/nonexistent/node"
	run t show-environment -g TMUX_FLEET_NODE
	assert_output "TMUX_FLEET_NODE=$BATS_TEST_TMPDIR/mine/node"
	t set-option -g @fleet-node /nonexistent/bin/node
	run load_plugin_without_node "$REAL_NODE"
	run pending_messages
	assert_output --partial "@fleet-node /nonexistent/bin/node is not an executable file"
}

@test "the newest of nvm's nodes, by version, not by name" {
	local home="$BATS_TEST_TMPDIR/nvm-home" v
	for v in v9.11.2 v18.19.0 v20.9.0 v20.11.1; do
		mkdir -p "$home/.nvm/versions/node/$v/bin"
		ln -s "$REAL_NODE" "$home/.nvm/versions/node/$v/bin/node"
	done
	run env HOME="$home" bash -c ". '$PLUGIN/scripts/helpers.sh' && newest_nvm_node"
	assert_output "$home/.nvm/versions/node/v20.11.1/bin/node"
}

@test "every line the log gets carries a time, the supervisor's own output too" {
	t set-environment -g FAKE_HELPER_EXIT 1
	load_plugin
	wait_for 10 grep -q 'fake-helper supervise' "$TMUX_FLEET_HOME/log"
	run grep -vE '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]+Z ' "$TMUX_FLEET_HOME/log"
	assert_output ''
}

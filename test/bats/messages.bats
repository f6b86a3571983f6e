#!/usr/bin/env bats
# What the user reads: messages stay for @fleet-message-time, a first-load
# message waits for the first client, and the owner verdict is never cut.
# A real client: an outer private server whose pane attaches to the plugin's
# server; what the client shows is read with capture-pane on the outer pane.

setup() {
	load helpers
}

teardown() {
	fleet_teardown
}

# attach_outer [width] [command]: an outer server whose pane runs a client of the plugin's server.
attach_outer() {
	OUTER="fleet-bats-outer-$RANDOM$RANDOM"
	tmux -L "$OUTER" -f /dev/null new-session -d -s outer -x "${1:-200}" -y 20 \
		"${2:-env -u TMUX tmux -L '$SOCKET' attach-session -t =main:}"
}

client_attached() {
	[ -n "$(t list-clients -F '#{client_name}' 2>/dev/null)" ]
}

outer_shows() {
	tmux -L "$OUTER" capture-pane -p -t outer | grep -qF -- "$1"
}

# The whole outer screen as one line (a wrapped text joined).
outer_text() {
	tmux -L "$OUTER" capture-pane -p -t outer | sed 's/[│ ]*$//; s/^[│ ]*//' | tr '\n' ' '
}

# A build that stays running until the test ends, so the first-load message is the last one.
slow_build() {
	export TMUX_FLEET_BUILD_CMD="sleep 30"
}

@test "with no client attached, the first-load message waits for the first client, then its hook is gone" {
	fleet_setup --no-helper
	slow_build
	load_plugin
	run t show-option -gv @fleet-pending-messages
	assert_output --partial "building the helper in the background"
	attach_outer
	wait_for 10 client_attached
	wait_for 10 outer_shows "tmux-fleet: building the helper in the background (first load)"
	run t show-hooks -g client-session-changed
	refute_output --partial "display-message"
	# A second client sees nothing pending.
	run t show-options -g
	refute_output --partial "building the helper"
}

@test "when tmux starts with the plugin in its config, the first client sees the first-load message" {
	fleet_setup --no-helper
	slow_build
	# tmux starting from a terminal: the config (and the plugin) runs before the
	# new-session client has a session; client-attached never fires for it.
	t kill-server
	printf 'run-shell %s\n' "$(printf '%q' "$PLUGIN/tmux-plugin.tmux")" >"$BATS_TEST_TMPDIR/tmux.conf"
	attach_outer 200 "env -u TMUX tmux -L '$SOCKET' -f '$BATS_TEST_TMPDIR/tmux.conf' new-session -s first"
	wait_for 10 client_attached
	wait_for 10 outer_shows "tmux-fleet: building the helper in the background (first load)"
	run t show-hooks -g client-session-changed
	refute_output --partial "display-message"
}

@test "every message deferred before the first client is shown to it: in order, each once, the longest time" {
	fleet_setup --no-helper
	. "$PLUGIN/scripts/helpers.sh"
	export TMUX="$SOCKET_PATH,$SERVER_PID,0"
	display_message "tmux-fleet: first #[fg=red]one"
	display_message "tmux-fleet: second one" 10000
	display_message "tmux-fleet: first #[fg=red]one"
	run t show-option -gv @fleet-pending-message-time
	assert_output 10000
	attach_outer
	wait_for 10 client_attached
	wait_for 10 outer_shows "tmux-fleet: first #[fg=red]one · second one"
	run outer_text
	refute_output --partial "one · first"
	# Shown once: the option and the hook are gone.
	run t show-option -gqv @fleet-pending-messages
	assert_output ""
	run t show-hooks -g client-session-changed
	refute_output --partial "display-message"
}

@test "messages deferred at once by several background steps are all kept" {
	fleet_setup --no-helper
	. "$PLUGIN/scripts/helpers.sh"
	export TMUX="$SOCKET_PATH,$SERVER_PID,0"
	local i
	for i in 1 2 3 4 5 6 7 8; do
		display_message "tmux-fleet: message $i" &
	done
	wait
	run t show-option -gv @fleet-pending-messages
	for i in 1 2 3 4 5 6 7 8; do
		assert_output --partial " · message $i"
	done
}

@test "a pending message keeps quotes, dollars and hashes as text" {
	fleet_setup --no-helper
	. "$PLUGIN/scripts/helpers.sh"
	TMUX="$SOCKET_PATH,$SERVER_PID,0" display_message 'odd "q" $HOME #{session_name} \n it'"'"'s'
	attach_outer
	wait_for 10 client_attached
	wait_for 10 outer_shows 'odd "q" $HOME #{session_name} \n it'"'"'s'
}

@test "plugin messages stay for @fleet-message-time, not tmux's display-time" {
	fleet_setup --no-helper
	slow_build
	attach_outer
	wait_for 10 client_attached
	# display-time 1 ms: a message without -d is gone before it can be read.
	t set-option -g display-time 1
	load_plugin
	wait_for 10 outer_shows "tmux-fleet: building the helper in the background (first load)"
	# display-time 60 s, @fleet-message-time 200 ms: the message goes long before display-time.
	t set-option -g display-time 60000
	t set-option -g @fleet-message-time 200
	. "$PLUGIN/scripts/helpers.sh"
	TMUX="$SOCKET_PATH,$SERVER_PID,0" display_message "a short one"
	run t show-messages
	assert_output --partial "a short one"
	wait_for 10 bash -c "! tmux -L '$OUTER' capture-pane -p -t outer | grep -qF 'a short one'"
}

@test "prefix O: a verdict longer than the client is shown whole in a popup, and closes on a key" {
	fleet_setup
	load_plugin
	attach_outer 80
	wait_for 10 client_attached
	local task="task1-with-a-long-name-that-pushes-the-verdict-past-80-columns"
	t set-option -t =main: @fleet-task "$task"
	t set-option -t =main: @claude_session_id THE-FIX-AT-THE-END
	tmux -L "$OUTER" send-keys -t outer C-b O
	wait_for 10 outer_shows "[press any key]"
	run outer_text
	assert_output --partial "fleet: fake-helper owner $task --as"
	assert_output --partial "THE-FIX-AT-THE-END"
	tmux -L "$OUTER" send-keys -t outer q
	wait_for 10 bash -c "! tmux -L '$OUTER' capture-pane -p -t outer | grep -qF 'press any key'"
}

@test "prefix O: a verdict that fits is a message in the status line" {
	fleet_setup
	load_plugin
	attach_outer 120
	wait_for 10 client_attached
	t set-option -t =main: @fleet-task task1
	t set-option -t =main: @claude_session_id short-sid
	tmux -L "$OUTER" send-keys -t outer C-b O
	wait_for 10 outer_shows "fleet: fake-helper owner task1 --as short-sid"
	run tmux -L "$OUTER" capture-pane -p -t outer
	refute_output --partial "press any key"
}

@test "after a restart the load says once how many tasks can be restored and which key restores them; a reload says nothing more" {
	fleet_setup
	export FAKE_HELPER_OUT='{"restorable":3,"refused":0,"dryRun":true,"summary":"3 tasks can be restored","tasks":[]}'
	load_plugin
	wait_for 10 bash -c "tmux -L '$SOCKET' show-option -gqv @fleet-pending-messages | grep -qF '3 tasks can be restored: prefix R'"
	run grep -c '^\["restore","--json","--dry-run"\]' "$PLUGIN/calls.log"
	assert_output 1
	load_plugin
	# The second load's own background steps (the supervisor's start) have run: restore was not asked again.
	wait_for 10 bash -c "[ \"\$(grep -c '\"supervise\"' '$PLUGIN/calls.log')\" -ge 2 ]"
	run grep -c '"restore"' "$PLUGIN/calls.log"
	assert_output 1
	attach_outer
	wait_for 10 client_attached
	wait_for 10 outer_shows "tmux-fleet: 3 tasks can be restored: prefix R"
}

@test "the load says nothing when no task can be restored" {
	fleet_setup
	export FAKE_HELPER_OUT='{"restorable":0,"refused":0,"dryRun":true,"summary":"nothing to restore","tasks":[]}'
	load_plugin
	wait_for 10 grep -q '^\["restore"' "$PLUGIN/calls.log"
	# The script has read the answer and logged it.
	wait_for 10 grep -qF 'restore at load: nothing to restore' "$TMUX_FLEET_HOME/log"
	run t show-option -gqv @fleet-pending-messages
	refute_output --partial "restore"
}

@test "@fleet-restore on: the load restores without asking and says what it did" {
	fleet_setup
	t set-option -g @fleet-restore on
	export FAKE_HELPER_OUT='{"restorable":2,"refused":0,"dryRun":false,"summary":"restored 2 tasks","tasks":[]}'
	load_plugin
	wait_for 10 bash -c "tmux -L '$SOCKET' show-option -gqv @fleet-pending-messages | grep -qF 'restored 2 tasks (@fleet-restore on)'"
	run grep '^\["restore"' "$PLUGIN/calls.log"
	assert_output '["restore","--json"]'
}

#!/usr/bin/env bats
# The keys and the alias pressed on a real client: an outer private server
# whose pane attaches a client to the plugin's server; what the client shows
# is read with capture-pane on the outer pane.

setup() {
	load helpers
	fleet_setup
	load_plugin
	OUTER="fleet-bats-outer-$RANDOM$RANDOM"
	tmux -L "$OUTER" -f /dev/null new-session -d -s outer -x 200 -y 20 \
		"env -u TMUX tmux -L '$SOCKET' attach-session -t =main:"
	wait_for 10 client_attached
}

teardown() {
	fleet_teardown
}

client_attached() {
	[ -n "$(t list-clients -F '#{client_name}' 2>/dev/null)" ]
}

outer_shows() {
	tmux -L "$OUTER" capture-pane -p -t outer | grep -qF -- "$1"
}

@test "prefix O shows this session's verdict, values shown literally and never run" {
	local stamp="sid#(touch $BATS_TEST_TMPDIR/pwn1)\$(touch $BATS_TEST_TMPDIR/pwn2);'x"
	t set-option -t =main: @fleet-task task1
	t set-option -t =main: @claude_session_id s1
	tmux -L "$OUTER" send-keys -t outer C-b O
	wait_for 10 outer_shows "fleet: fake-helper owner task1 --as s1"
	run grep '^\["owner"' "$PLUGIN/calls.log"
	assert_output '["owner","task1","--as","s1"]'
	# The attached agent's line follows, in full (the status line cuts Claude Code's needs sentence).
	run grep '^\["follow"' "$PLUGIN/calls.log"
	assert_output '["follow","s1"]'
	# A stamp set by hand that is no session id is shown literally, never run, never handed to the helper.
	t set-option -t =main: @claude_session_id "$stamp"
	tmux -L "$OUTER" send-keys -t outer C-b O
	wait_for 10 outer_shows "stamp \"sid#(touch"
	run grep -c '^\["owner"' "$PLUGIN/calls.log"
	assert_output 1
	[ ! -e "$BATS_TEST_TMPDIR/pwn1" ]
	[ ! -e "$BATS_TEST_TMPDIR/pwn2" ]
}

@test "prefix O on a session without a task or stamp says so; bound but unstamped, the helper words the verdict for nobody" {
	tmux -L "$OUTER" send-keys -t outer C-b O
	wait_for 10 outer_shows "fleet: session main is not bound to a task and carries no stamp"
	t set-option -t =main: @fleet-task task1
	tmux -L "$OUTER" send-keys -t outer C-b O
	# No --as: the session asks as nobody, so the helper never says "you" there (and no follow of a stamp it lacks).
	wait_for 10 outer_shows "fleet: fake-helper owner task1"
	run grep -c '^\["follow"' "$PLUGIN/calls.log"
	assert_output 0
	run grep '^\["owner"' "$PLUGIN/calls.log"
	assert_output '["owner","task1"]'
}

@test "prefix F opens the dashboard popup" {
	tmux -L "$OUTER" send-keys -t outer C-b F
	wait_for 10 grep -qx '\["dashboard"\]' "$PLUGIN/calls.log"
}

@test ":fleet <command> runs it in a popup and waits for a key" {
	tmux -L "$OUTER" send-keys -t outer C-b :
	sleep 0.5 # the prompt opens after the key is read
	tmux -L "$OUTER" send-keys -t outer -l 'fleet tasks'
	tmux -L "$OUTER" send-keys -t outer Enter
	wait_for 10 outer_shows "fake-helper tasks" || {
		tmux -L "$OUTER" capture-pane -p -t outer
		t show-messages
		false
	}
	wait_for 10 outer_shows "[tmux-fleet tasks: exit 0; press any key]"
	tmux -L "$OUTER" send-keys -t outer q
	wait_for 10 bash -c "! tmux -L '$OUTER' capture-pane -p -t outer | grep -qF 'press any key'"
}

@test "prefix R restores every task whose Driver is gone and shows the summary to this client" {
	t set-environment -g FAKE_HELPER_OUT '{"restorable":2,"refused":1,"dryRun":false,"summary":"restored 2 tasks; 1 task refused","tasks":[]}'
	tmux -L "$OUTER" send-keys -t outer C-b R
	wait_for 10 outer_shows "tmux-fleet: restored 2 tasks; 1 task refused"
	# The key's call (the load asked for a dry run before it).
	run grep '^\["restore","--json","--socket' "$PLUGIN/calls.log"
	assert_output "[\"restore\",\"--json\",\"--socket-path\",\"$SOCKET_PATH\"]"
}

@test "prefix A runs attention --jump for this client" {
	tmux -L "$OUTER" send-keys -t outer C-b A
	wait_for 10 grep -q '"attention","--jump"' "$PLUGIN/calls.log"
	run grep '"attention"' "$PLUGIN/calls.log"
	assert_output --partial "\"attention\",\"--jump\",\"--socket-path\",\"$SOCKET_PATH\",\"--client\",\"/dev/pts/"
}

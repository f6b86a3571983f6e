#!/usr/bin/env bats
# tmux-plugin.tmux on a private server: options, keys, alias, tokens, reloads.

setup() {
	load helpers
	fleet_setup
}

teardown() {
	fleet_teardown
}

@test "writes no default into the user's options, and uses the defaults" {
	t set-option -g @fleet-icon-owner 'OWN'
	t set-option -g @fleet-key ''
	run load_plugin
	assert_success
	local name
	while IFS= read -r name; do
		case "$name" in @fleet-icon-owner | @fleet-key) continue ;; esac
		run t show-option -gqv "$name"
		assert_output ""
		run t show-option -gq "$name"
		assert_output ""
	done < <(node -e 'for (const k of Object.keys(require(process.argv[1]))) console.log(k)' "$ROOT/scripts/option-defaults.json")
	# The user's values are kept.
	assert_equal "$(t show-option -gv @fleet-icon-owner)" "OWN"
	assert_equal "$(t show-option -gv @fleet-key)" ""
	# The defaults are in use all the same: prefix O, and the popup size of the alias.
	run t list-keys -T prefix O
	assert_output --partial fleet-owner.sh
	run t show-options -s command-alias
	assert_output --partial "fleet=display-popup -E -w 80% -h 75%"
}

@test "a default changed by an upgrade reaches a running server at the next load" {
	load_plugin
	sed -i 's/"@fleet-popup-width": "80%"/"@fleet-popup-width": "90%"/; s/"@fleet-owner-key": "O"/"@fleet-owner-key": "M-o"/' "$PLUGIN/scripts/option-defaults.json"
	load_plugin
	run t show-options -s command-alias
	assert_output --partial "fleet=display-popup -E -w 90% -h 75%"
	run t list-keys -T prefix M-o
	assert_output --partial fleet-owner.sh
	run t list-keys -T prefix O
	assert_failure
}

@test "sets @fleet-version from package.json" {
	load_plugin
	local version
	version="$(node -p 'require(process.argv[1]).version' "$ROOT/package.json")"
	assert_equal "$(t show-option -gv @fleet-version)" "$version"
}

@test "binds prefix F to the dashboard popup and prefix O to the owner verdict" {
	load_plugin
	run t list-keys -T prefix F
	assert_success
	assert_output --partial "display-popup -E"
	assert_output --partial '-w "80%"'
	assert_output --partial '-h "75%"'
	assert_output --partial "$PLUGIN/scripts/fleet-popup.sh"
	run t list-keys -T prefix O
	assert_success
	assert_output --partial "run-shell -b"
	assert_output --partial "fleet-owner.sh"
	assert_output --partial 'client=#{q:client_name} session=#{q:session_id}'
	# No option value is expanded into the shell command line.
	refute_output --partial '@fleet-task'
	refute_output --partial '@claude_session_id'
}

@test "the default keys are not keys tmux binds by default" {
	local key
	for key in F O A R; do
		run t list-keys -T prefix "$key"
		assert_failure
	done
}

@test "binds prefix R to restore, passing only tmux's own names" {
	load_plugin
	run t list-keys -T prefix R
	assert_success
	assert_output --partial "run-shell -b"
	assert_output --partial "$PLUGIN/scripts/fleet-restore.sh"
	assert_output --partial 'client=#{q:client_name} socket=#{q:socket_path}'
	t set-option -g @fleet-restore-key ''
	load_plugin
	run t list-keys -T prefix R
	assert_failure
}

@test "registers the fleet command alias once" {
	load_plugin
	load_plugin
	run t show-options -s command-alias
	assert_success
	assert_equal "$(grep -c 'fleet=' <<<"$output")" 1
	assert_output --partial "fleet=display-popup -E -w 80% -h 75%"
	# The stock aliases are still there.
	assert_output --partial 'split-pane=split-window'
}

@test "an old duplicate of the alias is removed on load" {
	t set-option -sa command-alias 'fleet=display-message old'
	t set-option -sa command-alias 'fleet=display-message older'
	load_plugin
	run t show-options -s command-alias
	assert_equal "$(grep -c 'fleet=' <<<"$output")" 1
	refute_output --partial 'display-message old'
}

@test "replaces the tokens in status-left and status-right with option reads" {
	t set-option -g status-left '[#S] #{fleet_owner}'
	t set-option -g status-right '#{fleet_hop} #{fleet_agent} #{fleet_owner} %H:%M'
	load_plugin
	assert_equal "$(t show-option -gv status-left)" '[#S] #{@fleet-owner}'
	# The hop and the agent read their short form on a narrow client (docs/status.md#narrow-clients).
	assert_equal "$(t show-option -gv status-right)" '#{?#{e|<:#{client_width},150},#{@fleet-hop-short},#{@fleet-hop}} #{?#{e|<:#{client_width},120},#{@fleet-agent-short},#{@fleet-agent}} #{@fleet-owner} %H:%M'
	# Drawing the status line starts no process.
	run t show-option -gv status-right
	refute_output --partial '#('
	# Values the supervisor writes are shown through the option read.
	t set-option -t =main: @fleet-owner 'OWNER-SEGMENT'
	assert_equal "$(t display-message -p -t =main: "$(t show-option -gv status-left)")" '[main] OWNER-SEGMENT'
}

@test "the window list's #{fleet_window} reads the window's own mark" {
	t set-option -g window-status-format '#I:#W#{fleet_window}'
	t set-option -g window-status-current-format '#I:#W*#{fleet_window}'
	load_plugin
	assert_equal "$(t show-option -gv window-status-format)" '#I:#W#{@fleet-window}'
	assert_equal "$(t show-option -gv window-status-current-format)" '#I:#W*#{@fleet-window}'
	# The supervisor marks a window of an agent that finished unseen; the session's other windows show nothing.
	t new-window -d -t =main: -n other
	t set-option -w -t =main:0 @fleet-window ' ✓'
	assert_equal "$(t display-message -p -t =main:0 "$(t show-option -gv window-status-format)")" "0:$(t display-message -p -t =main:0 '#W') ✓"
	assert_equal "$(t display-message -p -t =main:1 "$(t show-option -gv window-status-format)")" '1:other'
}

@test "a side with a token gets room: a length at tmux's default is raised" {
	t set-option -g status-left '[#S] #{fleet_owner}'
	t set-option -g status-right '#{fleet_owner} #{fleet_hop} #{fleet_agent} %H:%M'
	assert_equal "$(t show-option -gv status-left-length)" 10
	assert_equal "$(t show-option -gv status-right-length)" 40
	load_plugin
	assert_equal "$(t show-option -gv status-left-length)" 60
	assert_equal "$(t show-option -gv status-right-length)" 100
	run cat "$TMUX_FLEET_HOME/log"
	assert_output --partial "status-right-length raised from tmux's default 40 to 100"
}

@test "a length the user set is kept, and a side without a token keeps its length" {
	t set-option -g status-left '<#{host}>'
	t set-option -g status-right '#{fleet_owner} %H:%M'
	t set-option -g status-right-length 55
	load_plugin
	assert_equal "$(t show-option -gv status-right-length)" 55
	assert_equal "$(t show-option -gv status-left-length)" 10
}

@test "a side that shows the session name gets room for the names spawn makes (tmux's own status-left cuts [op-fix-login] to [op-fix-lo)" {
	# tmux's default status-left, [#{session_name}] , and one with #S; a length the user set is kept.
	load_plugin
	assert_equal "$(t show-option -gv status-left-length)" 40
	run cat "$TMUX_FLEET_HOME/log"
	assert_output --partial "status-left shows the session name: status-left-length raised from tmux's default 10 to 40"
	t set-option -g status-left '[#S] '
	t set-option -g status-left-length 12
	load_plugin
	assert_equal "$(t show-option -gv status-left-length)" 12
}

@test "status lines without tokens are left alone" {
	t set-option -g status-right '"#{=21:pane_title}" %H:%M %d-%b-%y'
	local before
	before="$(t show-option -g status-right)"
	load_plugin
	assert_equal "$(t show-option -g status-right)" "$before"
	assert_equal "$(t show-option -gv status-right-length)" 40
}

@test "loading twice changes nothing" {
	t set-option -g status-right '#{fleet_owner} #{fleet_hop} #{fleet_agent}'
	t set-option -g @fleet-registry "$BATS_TEST_TMPDIR/registry"
	t set-option -g @fleet-key 'F M-f'
	load_plugin
	local first second
	first="$(server_state)"
	load_plugin
	second="$(server_state)"
	assert_equal "$second" "$first"
}

@test "custom keys: several keys bound, an empty option binds nothing" {
	t set-option -g @fleet-key 'F M-f'
	t set-option -g @fleet-owner-key ''
	load_plugin
	run t list-keys -T prefix F
	assert_output --partial fleet-popup.sh
	run t list-keys -T prefix M-f
	assert_output --partial fleet-popup.sh
	run t list-keys -T prefix O
	assert_failure
	run bash -c "tmux -L '$SOCKET' list-keys | grep -c fleet-owner.sh"
	assert_output 0
}

@test "changing a key and reloading moves the binding and leaves no duplicate" {
	t bind-key -T prefix G display-message 'user binding'
	load_plugin
	t set-option -g @fleet-key 'M-f'
	t set-option -g @fleet-owner-key 'C-o'
	load_plugin
	run t list-keys -T prefix F
	assert_failure
	run t list-keys -T prefix O
	assert_failure
	run t list-keys -T prefix M-f
	assert_output --partial fleet-popup.sh
	run t list-keys -T prefix C-o
	assert_output --partial fleet-owner.sh
	run bash -c "tmux -L '$SOCKET' list-keys | grep -c -e fleet-popup.sh -e fleet-owner.sh"
	assert_output 2
	# A key the user bound to something else is never touched.
	run t list-keys -T prefix G
	assert_output --partial 'user binding'
	# Disabling unbinds too.
	t set-option -g @fleet-key ''
	load_plugin
	run t list-keys -T prefix M-f
	assert_failure
}

@test "an invalid key is reported in the log and the other keys still bind" {
	t set-option -g @fleet-key 'NotAKey F'
	run load_plugin
	assert_success
	run t list-keys -T prefix F
	assert_output --partial fleet-popup.sh
	run cat "$TMUX_FLEET_HOME/log"
	assert_output --partial "cannot bind key NotAKey"
}

@test "@fleet-registry is exported into the global environment as TMUX_FLEET_REGISTRY" {
	t set-option -g @fleet-registry '~/my registry'
	load_plugin
	assert_equal "$(t show-environment -g TMUX_FLEET_REGISTRY)" "TMUX_FLEET_REGISTRY=$HOME/my registry"
}

@test "an empty @fleet-registry exports nothing" {
	load_plugin
	run t show-environment -g TMUX_FLEET_REGISTRY
	assert_failure
}

@test "starts the supervisor for this server, in the background, with a heap and malloc arenas kept small" {
	load_plugin
	wait_for 10 grep -q supervise "$PLUGIN/calls.log"
	run grep supervise "$PLUGIN/calls.log"
	assert_output "[\"supervise\",\"--socket-path\",\"$SOCKET_PATH\"]"
	# The supervisor's line (the load's restore offer runs the helper too, with no flags).
	run grep -e --optimize-for-size "$PLUGIN/node-flags.log"
	assert_output '["--optimize-for-size","MALLOC_ARENA_MAX=2"]'
}

@test "the log the supervisor's output goes to is created 0600" {
	rm -f "$TMUX_FLEET_HOME/log"
	t set-environment -g FAKE_HELPER_EXIT 1
	load_plugin
	wait_for 10 grep -q 'fake-helper supervise' "$TMUX_FLEET_HOME/log"
	assert_equal "$(stat -c %a "$TMUX_FLEET_HOME/log")" "600"
}

@test "a refused second supervisor is logged, not shown as an error" {
	t set-environment -g FAKE_HELPER_EXIT 1
	load_plugin
	wait_for 10 grep -q 'fake-helper supervise' "$TMUX_FLEET_HOME/log"
	# The job has ended, and the server has had a command after it: whatever it says of the job is said.
	wait_for 15 plugin_idle
	t display-message -p ok >/dev/null
	run t show-messages
	refute_output --partial 'returned'
}

@test "a plugin directory with spaces and quotes works" {
	local odd="$BATS_TEST_TMPDIR/my plugin's \$dir #1"
	make_plugin_copy "$odd"
	run load_plugin "$odd"
	assert_success
	wait_for 10 grep -q supervise "$odd/calls.log"
	run t list-keys -T prefix F
	assert_output --partial "my plugin"
	# The popup command runs as a shell word: check the shell sees the path.
	. "$odd/scripts/helpers.sh"
	run sh -c "$(shell_quote "$odd/scripts/fleet-popup.sh") tasks </dev/null"
	assert_success
	assert_output --partial "fake-helper tasks"
}

@test "the popup script runs the dashboard with no arguments, else the command" {
	run "$PLUGIN/scripts/fleet-popup.sh" </dev/null
	assert_success
	assert_output "fake-helper dashboard"
	run "$PLUGIN/scripts/fleet-popup.sh" doctor --session 'a b' </dev/null
	assert_success
	assert_output --partial "fake-helper doctor --session a b"
	run tail -n 1 "$PLUGIN/calls.log"
	assert_output '["doctor","--session","a b"]'
}

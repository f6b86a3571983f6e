# Shared set-up of the plugin tests: a copy of the plugin (tmux-plugin.tmux,
# scripts/, package.json) with a stand-in helper, and a private tmux server
# (-L fleet-bats-<random> -f /dev/null) killed in teardown. The plugin is run
# the way TPM runs it: as a program, with $TMUX naming the server.

ROOT="$(cd "$BATS_TEST_DIRNAME/../.." && pwd)"
load "$ROOT/node_modules/bats-support/load"
load "$ROOT/node_modules/bats-assert/load"

# make_plugin_copy <dir> [--no-helper]
make_plugin_copy() {
	local dir="$1"
	mkdir -p "$dir"
	cp -R "$ROOT/tmux-plugin.tmux" "$ROOT/scripts" "$ROOT/package.json" "$dir/"
	if [ "${2-}" != "--no-helper" ]; then
		mkdir -p "$dir/dist"
		cp "$ROOT/test/fixtures/fake-helper.cjs" "$dir/dist/tmux-fleet.cjs"
		mark_built "$dir"
	fi
}

# mark_built <plugin dir>: dist/built-from as the build writes it, for the sources there.
mark_built() {
	bash -c '. "$1/scripts/helpers.sh" && fleet_build_inputs' _ "$1" >"$1/dist/built-from"
}

fleet_setup() {
	# None of the caller's variables (test/helpers/hermetic.ts lists the same).
	unset TMUX TMUX_PANE TMUX_FLEET_REGISTRY TMUX_FLEET_SOCKET TMUX_FLEET_SOCKET_PATH TMUX_FLEET_BUILD_CMD \
		TMUX_FLEET_DEBUG TMUX_FLEET_DEBUG_THROW TMUX_FLEET_BIN TMUX_FLEET_TASK TMUX_FLEET_CLIENT TMUX_FLEET_NODE \
		CLAUDE_CONFIG_DIR CLAUDE_CODE_SESSION_ID
	# Node reads this bundle at every start (~80 ms of CPU each); nothing here opens a TLS connection.
	unset NODE_EXTRA_CA_CERTS
	export TMUX_FLEET_HOME="$BATS_TEST_TMPDIR/home"
	# Whatever a test starts caches in the test's directory, never the user's ~/.cache.
	export XDG_CACHE_HOME="$BATS_TEST_TMPDIR/cache"
	PLUGIN="$BATS_TEST_TMPDIR/plugin"
	make_plugin_copy "$PLUGIN" "${1-}"
	SOCKET="fleet-bats-$RANDOM$RANDOM"
	tmux -L "$SOCKET" -f /dev/null new-session -d -s main -x 120 -y 30
	SOCKET_PATH="$(tmux -L "$SOCKET" display-message -p '#{socket_path}')"
	SERVER_PID="$(tmux -L "$SOCKET" display-message -p '#{pid}')"
	[ -n "$SOCKET_PATH" ] && [ -n "$SERVER_PID" ]
}

fleet_teardown() {
	local dir="${TMUX_TMPDIR:-/tmp}/tmux-$(id -u)"
	[ -n "${OUTER-}" ] && tmux -L "$OUTER" kill-server 2>/dev/null
	[ -n "${SOCKET-}" ] && tmux -L "$SOCKET" kill-server 2>/dev/null
	# tmux leaves its socket file behind when its server is killed.
	[ -n "${OUTER-}" ] && rm -f "$dir/$OUTER"
	[ -n "${SOCKET-}" ] && rm -f "$dir/$SOCKET"
	return 0
}

# t <tmux args>: a command on the private server.
t() {
	tmux -L "$SOCKET" "$@"
}

# load_plugin [plugin dir]: run the plugin as TPM does.
load_plugin() {
	TMUX="$SOCKET_PATH,$SERVER_PID,0" "${1:-$PLUGIN}/tmux-plugin.tmux"
}

# wait_for <seconds> <command...>: poll until the command succeeds.
wait_for() {
	local deadline=$((SECONDS + $1))
	shift
	until "$@"; do
		[ "$SECONDS" -lt "$deadline" ] || return 1
		sleep 0.1
	done
}

# plugin_idle [plugin dir]: no process whose command line names the plugin copy
# is left (its background build check, the jobs tmux runs for it: the supervisor's
# start, a key's script), so what they were to do is done. A check that something
# did not happen waits for this, not for a time: wait_for 15 plugin_idle.
plugin_idle() {
	local dir="${1:-$PLUGIN}" d cmd
	for d in /proc/[0-9]*; do
		[ "${d#/proc/}" = "$BASHPID" ] && continue
		cmd="$(tr '\0' ' ' <"$d/cmdline" 2>/dev/null)" || continue
		[[ "$cmd" == *"$dir"* ]] && return 1
	done
	return 0
}

# Everything the plugin may change, for before/after comparisons.
server_state() {
	t show-options -g
	t show-options -s command-alias
	t list-keys
	t show-environment -g TMUX_FLEET_REGISTRY 2>&1
}

# pending_messages: what the first client will be shown (scripts/helpers.sh,
# defer_message): the one-shot hook must be set; its messages as it joins them.
pending_messages() {
	t show-hooks -g client-session-changed | grep -q '@fleet-pending-messages' || return 1
	t show-option -gqv @fleet-pending-messages | sed 's/^ · /tmux-fleet: /'
}

# shellcheck shell=bash
# Small helpers shared by tmux-plugin.tmux and the scripts. Sourced, never run.
# Everything here is safe under `set -u` and quotes every expansion.

# The plugin directory (parent of scripts/).
fleet_plugin_dir() {
	(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
}

# The value of a global option; the default when the option is unset.
# An option set to '' stays '' (that is how a key is disabled).
get_tmux_option() {
	local option="$1" default_value="${2-}" value
	value="$(tmux show-option -gqv "$option" 2>/dev/null)"
	if [ -n "$value" ]; then
		printf '%s\n' "$value"
	elif [ -n "$(tmux show-option -gq "$option" 2>/dev/null)" ]; then
		printf '\n' # set, and empty
	else
		printf '%s\n' "$default_value"
	fi
}

set_tmux_option() {
	tmux set-option -gq "$1" "$2"
}

# Quote one word for sh: 'it'\''s'.
shell_quote() {
	local s="$1" q="'\\''"
	printf "'%s'" "${s//\'/$q}"
}

# Double every '#' so tmux's format expansion gives the text back literally.
format_escape() {
	local s="$1"
	printf '%s' "${s//\#/##}"
}

fleet_home() {
	printf '%s\n' "${TMUX_FLEET_HOME:-${XDG_STATE_HOME:-$HOME/.local/state}/tmux-fleet}"
}

fleet_log_file() {
	printf '%s/log\n' "$(fleet_home)"
}

# Appends one line to <fleet home>/log (TPM throws the plugin's output away).
fleet_log() {
	local home
	home="$(fleet_home)"
	(umask 077 && mkdir -p "$home" && printf '%s plugin[%s]: %s\n' "$(date -u '+%Y-%m-%dT%H:%M:%SZ')" "$$" "$*" >>"$home/log") 2>/dev/null || true
}

# A message in the status line of the attached clients; silent when none is attached.
display_message() {
	local message="$1" duration="${2-}"
	if [ -n "$duration" ]; then
		tmux display-message -d "$duration" "$(format_escape "$message")" 2>/dev/null || true
	else
		tmux display-message "$(format_escape "$message")" 2>/dev/null || true
	fi
}

# The helper: <plugin dir>/dist/tmux-fleet.cjs, run with node.
fleet_node() {
	printf '%s\n' "${TMUX_FLEET_NODE:-node}"
}

fleet_helper_path() {
	printf '%s/dist/tmux-fleet.cjs\n' "$(fleet_plugin_dir)"
}

# The helper as a shell command prefix: 'node' '/path/dist/tmux-fleet.cjs'
fleet_helper_command() {
	printf '%s %s\n' "$(shell_quote "$(fleet_node)")" "$(shell_quote "$(fleet_helper_path)")"
}

# Starts the supervisor of this server in the background (run-shell -b). The
# helper refuses a second supervisor for one server with a non-zero exit;
# that is expected on every reload, so its output goes to the log and its exit
# status is swallowed rather than shown to the user.
start_supervisor() {
	local cmd
	cmd="$(fleet_helper_command) supervise --socket-path "
	# run-shell expands formats: escape ours, then add the quoted socket path.
	cmd="$(format_escape "$cmd")#{q:socket_path} >>$(format_escape "$(shell_quote "$(fleet_log_file)")") 2>&1 || :"
	(umask 077 && mkdir -p "$(fleet_home)") 2>/dev/null || true
	tmux run-shell -b "$cmd"
}

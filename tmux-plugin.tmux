#!/usr/bin/env bash
# tmux-fleet: the entry TPM runs (as a shell script, with $TMUX naming the
# server). One small function per job. Every option and its default live in
# one table, scripts/option-defaults.json; an option is read where it is used
# (fleet_option) and no default is ever written into the user's options.
# Running it twice changes nothing.
set -u

CURRENT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=scripts/helpers.sh
. "$CURRENT_DIR/scripts/helpers.sh"

POPUP_SCRIPT="$CURRENT_DIR/scripts/fleet-popup.sh"
OWNER_SCRIPT="$CURRENT_DIR/scripts/fleet-owner.sh"
RESTORE_SCRIPT="$CURRENT_DIR/scripts/fleet-restore.sh"

# Each status token becomes a read of the session option the supervisor keeps
# true, so drawing the status line starts no process. Below these client widths
# the hop and the agent read their short forms, compared by tmux as it draws
# (docs/status.md#narrow-clients).
HOP_FULL_WIDTH=150
AGENT_FULL_WIDTH=120
STATUS_TOKENS=(
	"#{fleet_owner}" "#{@fleet-owner}"
	"#{fleet_hop}" "#{?#{e|<:#{client_width},$HOP_FULL_WIDTH},#{@fleet-hop-short},#{@fleet-hop}}"
	"#{fleet_agent}" "#{?#{e|<:#{client_width},$AGENT_FULL_WIDTH},#{@fleet-agent-short},#{@fleet-agent}}"
	"#{fleet_attention}" "#{@fleet-attention}"
	"#{fleet_window}" "#{@fleet-window}"
)

# tmux keeps only the first status-*-length columns of a side (10 and 40 by
# default), too few for the segments: <length option> <tmux's default> <room>
# (docs/status.md#room-for-the-segments).
STATUS_LENGTHS=(
	status-left-length 10 60
	status-right-length 40 100
)
# A side without a segment that shows the session name gets room for the
# names spawn makes: 10 columns cut `[op-fix-login]` to `[op-fix-lo`.
SESSION_NAME_LENGTH=40

# @fleet-version: the plugin's version (package.json), for `tmux-fleet doctor`.
set_version_option() {
	local version
	version="$(sed -n 's/^[[:space:]]*"version":[[:space:]]*"\([^"]*\)".*/\1/p' "$CURRENT_DIR/package.json" 2>/dev/null | head -n 1)"
	set_tmux_option @fleet-version "${version:-unknown}"
}

# Node, found once (find_node: @fleet-node, else PATH, else the usual places)
# and recorded as TMUX_FLEET_NODE in tmux's global environment: every command
# the plugin builds, and every run-shell and popup, runs that absolute path.
# None found: a message naming the cause (status 1: nothing is started).
use_node() {
	local node wanted
	wanted="$(fleet_option @fleet-node)"
	if [ -n "$wanted" ]; then
		case "$wanted" in "~/"*) wanted="$HOME/${wanted#"~/"}" ;; esac
		if [ ! -x "$wanted" ] || [ -d "$wanted" ]; then
			fleet_log "@fleet-node $wanted is not an executable file"
			display_message "tmux-fleet: @fleet-node $wanted is not an executable file; set it to your node (command -v node), then reload" 10000
			return 1
		fi
		node="$wanted"
	elif ! node="$(find_node)"; then
		fleet_log "node not found (PATH=$PATH); the helper cannot run"
		display_message "$(node_missing_message)" 10000
		return 1
	fi
	export TMUX_FLEET_NODE="$node"
	tmux set-environment -g TMUX_FLEET_NODE "$node"
}

# @fleet-registry, when set, reaches the helper (supervisor, popups, hooks)
# through tmux's global environment. When unset the environment is left alone.
export_registry() {
	local registry
	registry="$(fleet_option @fleet-registry)"
	[ -n "$registry" ] || return 0
	case "$registry" in
	"~") registry="$HOME" ;;
	"~/"*) registry="$HOME/${registry#"~/"}" ;;
	esac
	tmux set-environment -g TMUX_FLEET_REGISTRY "$registry"
}

# The popup command: a shell command (display-popup runs one word through sh -c).
popup_command() {
	case "$POPUP_SCRIPT" in
	*[!A-Za-z0-9_./+@%,:=-]*) shell_quote "$POPUP_SCRIPT" ;;
	*) printf '%s' "$POPUP_SCRIPT" ;;
	esac
}

# `:fleet` opens the dashboard; `:fleet <command> [args]` runs that command in a
# popup and waits for a key (tmux 3.3+ passes the extra words as arguments).
# Registered once: an existing fleet= entry is updated in place.
register_command_alias() {
	local width height value quoted line index="" extra=()
	width="$(popup_size @fleet-popup-width)"
	height="$(popup_size @fleet-popup-height)"
	# Quoted for tmux's command parser: inside "...", escape \ " $.
	quoted="$(popup_command)"
	quoted="${quoted//\\/\\\\}"
	quoted="${quoted//\"/\\\"}"
	quoted="${quoted//\$/\\\$}"
	value="fleet=display-popup -E -w $width -h $height \"$quoted\""
	while IFS= read -r line; do
		case "$line" in
		'command-alias['*'] fleet='* | 'command-alias['*'] "fleet='*)
			line="${line#command-alias[}"
			if [ -z "$index" ]; then index="${line%%]*}"; else extra+=("${line%%]*}"); fi
			;;
		esac
	done <<<"$(tmux show-options -s command-alias 2>/dev/null)"
	if [ -n "$index" ]; then
		tmux set-option -s "command-alias[$index]" "$value"
	else
		tmux set-option -sa command-alias "$value"
	fi
	# Any further fleet= entry goes: the alias is defined once.
	for index in "${extra[@]+"${extra[@]}"}"; do
		tmux set-option -su "command-alias[$index]"
	done
}

# A popup size option; set to '' it takes the default too.
popup_size() {
	local value
	value="$(fleet_option "$1")"
	printf '%s\n' "${value:-$(fleet_option_default "$1")}"
}

# Keys in an option: space-separated, '' = none. No globbing of key names.
option_keys() {
	local value
	value="$(fleet_option "$1")"
	(
		set -f
		# shellcheck disable=SC2086
		printf '%s\n' $value
	)
}

# Removes our bindings on keys no longer configured (option changed or
# emptied before a reload). Only bindings that run our scripts are touched.
unbind_stale_keys() {
	local wanted_dashboard="$1" wanted_owner="$2" wanted_attention="$3" wanted_restore="$4" line key rest
	while IFS= read -r line; do
		[ -n "$line" ] || continue
		rest="${line#bind-key}"
		rest="${rest#"${rest%%[![:space:]]*}"}"     # -T prefix KEY command...
		rest="${rest#-T}"
		rest="${rest#"${rest%%[![:space:]]*}"}"     # prefix KEY command...
		rest="${rest#prefix}"
		rest="${rest#"${rest%%[![:space:]]*}"}"     # KEY command...
		key="${rest%%[[:space:]]*}"
		case "$key" in \\?) key="${key#\\}" ;; esac
		case "$line" in
		*fleet-popup.sh*) printf '%s\n' "$wanted_dashboard" | grep -qxF -- "$key" && continue ;;
		*fleet-owner.sh*) printf '%s\n' "$wanted_owner" | grep -qxF -- "$key" && continue ;;
		*'attention --jump'*) printf '%s\n' "$wanted_attention" | grep -qxF -- "$key" && continue ;;
		*fleet-restore.sh*) printf '%s\n' "$wanted_restore" | grep -qxF -- "$key" && continue ;;
		*) continue ;;
		esac
		tmux unbind-key -T prefix "$key" 2>/dev/null || true
	done <<<"$(tmux list-keys -T prefix 2>/dev/null | grep -F -e fleet-popup.sh -e fleet-owner.sh -e 'attention --jump' -e fleet-restore.sh)"
}

# bind_key_or_report <option> <note> <key> <command...>
bind_key_or_report() {
	local option="$1" note="$2" key="$3" error
	shift 3
	if ! error="$(tmux bind-key -N "$note" -T prefix "$key" "$@" 2>&1)"; then
		fleet_log "cannot bind key $key of $option: $error"
		display_message "tmux-fleet: cannot bind key '$key' ($option): $error"
	fi
}

# prefix @fleet-key: the dashboard popup. prefix @fleet-owner-key: this
# session's verdict in full, as a message. prefix @fleet-attention-key: jump to
# the agent that has waited for the user longest. prefix @fleet-restore-key:
# restore every task whose Driver is gone (docs/ownership.md#restore).
bind_keys() {
	local dashboard_keys owner_keys attention_keys restore_keys width height key owner_cmd attention_cmd restore_cmd
	dashboard_keys="$(option_keys @fleet-key)"
	owner_keys="$(option_keys @fleet-owner-key)"
	attention_keys="$(option_keys @fleet-attention-key)"
	restore_keys="$(option_keys @fleet-restore-key)"
	unbind_stale_keys "$dashboard_keys" "$owner_keys" "$attention_keys" "$restore_keys"

	width="$(popup_size @fleet-popup-width)"
	height="$(popup_size @fleet-popup-height)"
	while IFS= read -r key; do
		[ -n "$key" ] || continue
		bind_key_or_report @fleet-key "tmux-fleet: dashboard" "$key" \
			display-popup -E -w "$width" -h "$height" "$(popup_command)"
	done <<<"$dashboard_keys"

	# run-shell expands formats: our path is escaped; only tmux's own names go on
	# the command line, quoted by tmux (#{q:...}). The session's options are
	# read by the script: #{q:} keeps a newline, which the shell would run.
	owner_cmd="$(format_escape "$(shell_quote "$OWNER_SCRIPT")")"
	owner_cmd="$owner_cmd client=#{q:client_name} session=#{q:session_id}"
	while IFS= read -r key; do
		[ -n "$key" ] || continue
		bind_key_or_report @fleet-owner-key "tmux-fleet: this session's owner verdict" "$key" run-shell -b "$owner_cmd"
	done <<<"$owner_keys"

	attention_cmd="$(format_escape "$(fleet_helper_command) attention --jump")"
	attention_cmd="$attention_cmd --socket-path #{q:socket_path} --client #{q:client_name} >/dev/null 2>&1 || :"
	while IFS= read -r key; do
		[ -n "$key" ] || continue
		bind_key_or_report @fleet-attention-key "tmux-fleet: jump to the agent waiting longest" "$key" run-shell -b "$attention_cmd"
	done <<<"$attention_keys"

	# Only tmux's own names go on the command line, quoted by tmux.
	restore_cmd="$(format_escape "$(shell_quote "$RESTORE_SCRIPT")") client=#{q:client_name} socket=#{q:socket_path}"
	while IFS= read -r key; do
		[ -n "$key" ] || continue
		bind_key_or_report @fleet-restore-key "tmux-fleet: restore every task whose Driver is gone" "$key" run-shell -b "$restore_cmd"
	done <<<"$restore_keys"
}

# #{fleet_owner} -> #{@fleet-owner} etc. in the global status-left/right.
# Replacing is idempotent: the result holds no token.
replace_status_tokens() {
	local option value new i
	# The window list too: #{fleet_window} marks the window of an agent that finished unseen (docs/notify.md#unseen).
	for option in status-left status-right window-status-format window-status-current-format; do
		value="$(tmux show-option -gqv "$option")"
		new="$value"
		for ((i = 0; i < ${#STATUS_TOKENS[@]}; i += 2)); do
			new="${new//"${STATUS_TOKENS[i]}"/"${STATUS_TOKENS[i + 1]}"}"
		done
		if [ "$new" != "$value" ]; then
			tmux set-option -gq "$option" "$new"
		fi
	done
}

# Room for the segments: a side that reads a fleet segment and whose length is
# still tmux's default gets the length of STATUS_LENGTHS; one that shows the
# session name, SESSION_NAME_LENGTH.
fit_status_lengths() {
	local i length_option side value room what
	for ((i = 0; i < ${#STATUS_LENGTHS[@]}; i += 3)); do
		length_option="${STATUS_LENGTHS[i]}"
		side="${length_option%-length}"
		value="$(tmux show-option -gqv "$side")"
		case "$value" in
		*"#{@fleet-owner}"* | *"#{@fleet-hop}"* | *"#{@fleet-agent}"*) room="${STATUS_LENGTHS[i + 2]}" what="reads fleet segments" ;;
		*"#S"* | *"#{session_name}"*) room="$SESSION_NAME_LENGTH" what="shows the session name" ;;
		*) continue ;;
		esac
		if [ "$(tmux show-option -gqv "$length_option")" = "${STATUS_LENGTHS[i + 1]}" ]; then
			tmux set-option -gq "$length_option" "$room"
			fleet_log "$side $what: $length_option raised from tmux's default ${STATUS_LENGTHS[i + 1]} to $room"
		fi
	done
}

# Start the supervisor of the build there is; build-helper.sh, in the
# background, builds when dist/ is missing or was built from other sources
# (first load, an update) and starts the new build's supervisor in place of the
# old one (docs/status.md#updates).
start_helper() {
	if [ -f "$(fleet_helper_path)" ]; then
		start_supervisor
		offer_restore
	else
		display_message "tmux-fleet: building the helper in the background (first load); see $(fleet_log_file)"
		fleet_log "helper missing ($(fleet_helper_path)); building it in the background"
	fi
	"$CURRENT_DIR/scripts/build-helper.sh" </dev/null >/dev/null 2>&1 &
}

# After a restart: the tasks whose Driver is gone, said (or, with @fleet-restore
# on, restored) in the background, once per server: @fleet-restore-offered
# marks the server, so a reload says nothing more (docs/ownership.md#restore).
offer_restore() {
	[ -z "$(tmux show-option -gqv @fleet-restore-offered 2>/dev/null)" ] || return 0
	tmux set-option -g @fleet-restore-offered 1 2>/dev/null || return 0
	"$RESTORE_SCRIPT" --at-load </dev/null >/dev/null 2>&1 &
}

# A fleet home the helper refuses is said once, with its fix: nothing is logged there.
report_fleet_home() {
	FLEET_HOME_CHECKED="ok$(fleet_home_problem)"
	[ "$FLEET_HOME_CHECKED" = ok ] && return 0
	display_message "tmux-fleet: fleet home $(fleet_home) ${FLEET_HOME_CHECKED#ok}; not writing to it" 10000
}

main() {
	local node_found=1
	report_fleet_home
	set_version_option
	use_node || node_found=0
	export_registry
	register_command_alias
	bind_keys
	replace_status_tokens
	fit_status_lengths
	[ "$node_found" -eq 1 ] && start_helper
	return 0
}

main

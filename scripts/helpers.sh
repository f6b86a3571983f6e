# shellcheck shell=bash
# Small helpers shared by tmux-plugin.tmux and the scripts. Sourced, never run.
# Everything here is safe under `set -u` and quotes every expansion.

FLEET_SCRIPTS_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

# The one table of the plugin's options and their defaults, read here and by
# the helper (src/options.ts). It keeps one `"@fleet-<name>": "<value>",` a line
# and no \ or " inside a value, so the shell reads it without a JSON parser
# (test/bats/options.bats holds it to that).
FLEET_OPTION_DEFAULTS="$FLEET_SCRIPTS_DIR/option-defaults.json"

# A first-load or build message that waits for the first client: tmux runs its
# config (and TPM the plugin) before the first client has a session. Fired by
# client-session-changed, which a client's first session sets both for
# new-session and attach-session (client-attached misses new-session).
FLEET_PENDING_MESSAGE_HOOK="client-session-changed[4720]"

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

# The default of an option, from the table; nothing (and status 1) for a name it lacks.
fleet_option_default() {
	local name="$1" line value
	while IFS= read -r line; do
		case "$line" in
		*"\"$name\": \""*)
			value="${line#*"\"$name\": \""}"
			printf '%s\n' "${value%\"*}"
			return 0
			;;
		esac
	done <"$FLEET_OPTION_DEFAULTS"
	return 1
}

# An option's value where it is used: the user's global value, else the
# table's default. Defaults are never written into the user's options, so an
# upgrade that changes one reaches a running server at the next read.
fleet_option() {
	get_tmux_option "$1" "$(fleet_option_default "$1")"
}

# @fleet-message-time in ms (display-message -d; 0 keeps a message until a key).
fleet_message_time() {
	local ms
	ms="$(fleet_option @fleet-message-time)"
	case "$ms" in
	'' | *[!0-9]*) fleet_option_default @fleet-message-time ;;
	*) printf '%s\n' "$ms" ;;
	esac
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

# is_fleet_slug <value>: a task slug as the helper takes it (^[a-z0-9][a-z0-9_-]{0,62}$).
is_fleet_slug() {
	case "$1" in
	'' | [!a-z0-9]* | *[!a-z0-9_-]*) return 1 ;;
	esac
	[ "${#1}" -le 63 ]
}

# is_session_id <value>: a session id as the helper takes it (^[A-Za-z0-9][A-Za-z0-9._:+@-]{0,199}$).
is_session_id() {
	case "$1" in
	'' | [!A-Za-z0-9]* | *[!A-Za-z0-9._:+@-]*) return 1 ;;
	esac
	[ "${#1}" -le 200 ]
}

fleet_home() {
	printf '%s\n' "${TMUX_FLEET_HOME:-${XDG_STATE_HOME:-$HOME/.local/state}/tmux-fleet}"
}

fleet_log_file() {
	printf '%s/log\n' "$(fleet_home)"
}

# Why the fleet home must not be written to, as one phrase with its fix; nothing
# when it is fine or missing. The helper's rule (src/context.ts): a directory
# owned by this user that no one else can write to, and a link to it counts as
# its own owner's (another user's link to a directory of ours is theirs to repoint).
fleet_home_problem() {
	local home uid perms owner
	home="$(fleet_home)"
	uid="$(id -u)"
	[ -e "$home" ] || [ -L "$home" ] || return 0
	if [ -L "$home" ]; then
		read -r perms _ owner _ <<<"$(ls -ldn -- "$home" 2>/dev/null)"
		if [ "$owner" != "$uid" ]; then
			printf 'is a link owned by uid %s, not by you (uid %s) (fix: rm %s)\n' "$owner" "$uid" "$home"
			return 0
		fi
	fi
	if [ ! -d "$home" ]; then
		printf 'is not a directory (fix: rm %s; tmux-fleet makes the directory)\n' "$home"
		return 0
	fi
	read -r perms _ owner _ <<<"$(ls -ldLn -- "$home" 2>/dev/null)"
	if [ "$owner" != "$uid" ]; then
		printf 'is owned by uid %s, not by you (uid %s) (fix: chown %s %s && chmod 700 %s)\n' "$owner" "$uid" "$uid" "$home" "$home"
		return 0
	fi
	case "$perms" in
	?????w??w*) printf 'is writable by group and others (fix: chmod 700 %s)\n' "$home" ;;
	?????w*) printf 'is writable by group (fix: chmod 700 %s)\n' "$home" ;;
	????????w*) printf 'is writable by others (fix: chmod 700 %s)\n' "$home" ;;
	esac
}

# Succeeds when the log can be appended to without following a link or
# waiting on a FIFO: the home is ours alone (made 0700 when missing), so
# nobody else can swap the log after this check, and the log is a regular
# file or missing (made 0600).
fleet_log_usable() {
	local home
	home="$(fleet_home)"
	# Checked once per script: the plugin logs a few lines and starts the supervisor.
	[ -n "${FLEET_HOME_CHECKED-}" ] || FLEET_HOME_CHECKED="ok$(fleet_home_problem)"
	[ "$FLEET_HOME_CHECKED" = ok ] || return 1
	(umask 077 && mkdir -p "$home") 2>/dev/null || return 1
	[ ! -L "$home/log" ] || return 1
	[ ! -e "$home/log" ] || [ -f "$home/log" ]
}

# Appends one line to <fleet home>/log (TPM throws the plugin's output away);
# nothing when the log is not safe to write (fleet_log_usable).
fleet_log() {
	fleet_log_as plugin "$*"
}

# fleet_log_as <who> <message>: one log line as the helper writes them: time,
# who[pid], the message with control characters as '?', so it cannot split a
# line or reach the terminal of whoever reads the log.
fleet_log_as() {
	local message="$2"
	fleet_log_usable || return 0
	message="${message//[[:cntrl:]]/?}"
	(umask 077 && printf '%s %s[%s]: %s\n' "$(date -u '+%Y-%m-%dT%H:%M:%SZ')" "$1" "$$" "$message" >>"$(fleet_log_file)") 2>/dev/null || true
}

# A message in the status line for @fleet-message-time ms (at least $2 ms when
# given). With no client attached yet it waits for the first one (see
# defer_message): every message deferred is kept, in order, each once.
display_message() {
	local message="$1" at_least="${2-0}" duration
	duration="$(fleet_message_time)"
	if [ "$duration" -ne 0 ] && [ "$duration" -lt "$at_least" ]; then
		duration="$at_least"
	fi
	if [ -n "$(tmux list-clients -F '#{client_name}' 2>/dev/null)" ]; then
		tmux display-message -d "$duration" "$(format_escape "$message")" 2>/dev/null || true
	else
		defer_message "$message" "$duration"
	fi
}

# The messages waiting for the first client, each as ' · <text>' (format-escaped,
# without the 'tmux-fleet: ' they share), and the longest time asked for.
FLEET_PENDING_MESSAGES="@fleet-pending-messages"
FLEET_PENDING_MESSAGE_TIME="@fleet-pending-message-time"

# defer_message <message> <ms>: shown when the first client gets a session,
# joined with the others deferred before it (docs/status.md#keys-and-first-load). The text
# goes into a global option with `set-option -a`, one tmux command, so two
# background steps that defer at once both keep theirs (a hook holding the text
# kept only the last one). The hook holds no data, only the option's read: the
# text never meets tmux's command parser. A message already pending is not
# added again; 0 ms (until a key) wins over any other time.
defer_message() {
	local text pending time
	text="$(format_escape "${1#tmux-fleet: }")"
	pending="$(tmux show-option -gqv "$FLEET_PENDING_MESSAGES" 2>/dev/null)"
	case "$pending · " in
	*" · $text · "*) ;;
	*) tmux set-option -ga "$FLEET_PENDING_MESSAGES" " · $text" 2>/dev/null || return 0 ;;
	esac
	time="$(tmux show-option -gqv "$FLEET_PENDING_MESSAGE_TIME" 2>/dev/null)"
	case "$time" in '' | *[!0-9]*) time="$2" ;; esac
	if [ "$time" -ne 0 ] && { [ "$2" -eq 0 ] || [ "$2" -gt "$time" ]; }; then
		time="$2"
	fi
	tmux set-option -g "$FLEET_PENDING_MESSAGE_TIME" "$time" \; \
		set-hook -g "$FLEET_PENDING_MESSAGE_HOOK" \
		"display-message -d $time 'tmux-fleet: #{s/^ · //:$FLEET_PENDING_MESSAGES}' ; set-option -gu $FLEET_PENDING_MESSAGES ; set-option -gu $FLEET_PENDING_MESSAGE_TIME ; set-hook -gu $FLEET_PENDING_MESSAGE_HOOK" \
		2>/dev/null || true
}

# Node, found once per load (docs/tmux.md#node): @fleet-node when set; else
# $TMUX_FLEET_NODE (what a load found before: the plugin records it in tmux's
# global environment, which every run-shell and popup inherits); else node on
# PATH; else the usual places ($TMUX_FLEET_NODE_PLACES, colon-separated,
# replaces them). Prints an absolute path, or nothing (status 1).
FLEET_NODE_PLACES="/usr/local/bin/node:/usr/bin/node:/opt/homebrew/bin/node:$HOME/.volta/bin/node:$HOME/.local/bin/node:$HOME/.nix-profile/bin/node:$HOME/.asdf/shims/node:$HOME/.local/share/fnm/aliases/default/bin/node:$HOME/n/bin/node"

# The newest node nvm installed (by version: v20.11.1 after v20.9.0), or nothing.
newest_nvm_node() {
	local dir="${NVM_DIR:-$HOME/.nvm}/versions/node" newest
	[ -d "$dir" ] || return 1
	newest="$(cd "$dir" && for v in v*; do [ -x "$v/bin/node" ] && printf '%s\n' "$v"; done | sort -t. -k1.2,1n -k2,2n -k3,3n | tail -n 1)"
	[ -n "$newest" ] && printf '%s\n' "$dir/$newest/bin/node"
}

find_node() {
	local candidate places
	candidate="${TMUX_FLEET_NODE-}"
	case "$candidate" in
	/*) [ -x "$candidate" ] && [ ! -d "$candidate" ] && printf '%s\n' "$candidate" && return 0 ;;
	esac
	candidate="$(command -v node 2>/dev/null)"
	case "$candidate" in /*) printf '%s\n' "$candidate" && return 0 ;; esac
	places="${TMUX_FLEET_NODE_PLACES-$FLEET_NODE_PLACES}"
	local IFS=:
	for candidate in $places; do
		[ -x "$candidate" ] && [ ! -d "$candidate" ] && printf '%s\n' "$candidate" && return 0
	done
	[ -z "${TMUX_FLEET_NODE_PLACES+set}" ] && newest_nvm_node
}

# The node the plugin's commands run: the one a load recorded, else node (the caller reports a missing one).
fleet_node() {
	printf '%s\n' "${TMUX_FLEET_NODE:-node}"
}

# What to tell the user when no node is found: the cause and the fix, one line.
node_missing_message() {
	printf 'tmux-fleet: node not found (not on PATH, nor in /usr/local/bin, /usr/bin, /opt/homebrew/bin, ~/.volta, ~/.nvm …); install Node.js 20 or later, or set -g @fleet-node /path/to/node, then reload\n'
}

fleet_helper_path() {
	printf '%s/dist/tmux-fleet.cjs\n' "$(fleet_plugin_dir)"
}

# What a helper is built from (docs/status.md#updates): the plugin's version and
# a POSIX cksum of the build's inputs read in path order. scripts/build.mjs
# writes it to dist/built-from; a load compares, in the background
# (build-helper.sh): it takes tenths of a second.
fleet_build_inputs() {
	local dir version sum
	dir="$(fleet_plugin_dir)"
	version="$(sed -n 's/^[[:space:]]*"version":[[:space:]]*"\([^"]*\)".*/\1/p' "$dir/package.json" 2>/dev/null | head -n 1)"
	sum="$(cd "$dir" && find src package.json package-lock.json scripts/build.mjs -type f 2>/dev/null | LC_ALL=C sort | tr '\n' '\0' | xargs -0 cat 2>/dev/null | cksum)"
	printf '%s %s\n' "${version:-unknown}" "${sum// /-}"
}

# True when dist/ holds a helper built from the sources of this checkout.
fleet_helper_current() {
	[ -f "$(fleet_helper_path)" ] && [ "$(cat "$(fleet_plugin_dir)/dist/built-from" 2>/dev/null)" = "$(fleet_build_inputs)" ]
}

# The helper as a shell command prefix: 'node' '/path/dist/tmux-fleet.cjs'
fleet_helper_command() {
	printf '%s %s\n' "$(shell_quote "$(fleet_node)")" "$(shell_quote "$(fleet_helper_path)")"
}

# Node's flags for the supervisor: it lives for hours and holds little, so a heap
# kept small beats speed (docs/budgets.md#the-status-line-and-the-supervisor).
SUPERVISOR_NODE_FLAGS='--optimize-for-size'
# ... and glibc's malloc held to two arenas: node's threads (its I/O pool, the
# garbage collector's helpers) each get one otherwise, and memory freed in them
# stays in the process: about 5 MB of its RSS at 500 sessions (docs/status.md#memory).
SUPERVISOR_ENV='MALLOC_ARENA_MAX=2'

# start_supervisor [--replace]: starts the supervisor of this server in the
# background (run-shell -b); --replace: in place of the one running (a new
# build's, docs/status.md#updates). The helper refuses a second supervisor
# for one server with a non-zero exit; that is expected on every reload, so its
# output goes to the log (each line with its time, through log-lines.sh) and
# its exit status is swallowed rather than shown to the user.
start_supervisor() {
	local cmd lines
	cmd="$SUPERVISOR_ENV $(shell_quote "$(fleet_node)") $SUPERVISOR_NODE_FLAGS $(shell_quote "$(fleet_helper_path)") supervise ${1:+$1 }--socket-path "
	# The home this load checked: a run-shell job has the server's environment, not ours.
	lines="TMUX_FLEET_HOME=$(shell_quote "$(fleet_home)") $(shell_quote "$FLEET_SCRIPTS_DIR/log-lines.sh") supervise"
	# run-shell expands formats: escape ours, then add the quoted socket path.
	cmd="$(format_escape "$cmd")#{q:socket_path} 2>&1 </dev/null | $(format_escape "$lines") || :"
	tmux run-shell -b "$cmd"
}

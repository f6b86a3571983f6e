#!/usr/bin/env bash
# The owner key: this session's verdict in full, for the client that pressed
# the key: a message in its status line when it fits, else a popup with the
# whole text wrapped (a verdict's fix comes last and must never be cut). Run
# by run-shell -b with
#   client=<client_name> session=<session_id>
# (each quoted by tmux with #{q:...}). No option value is put on that command
# line: tmux 3.3a's #{q:} leaves a newline as it is, so a hand-set @fleet-task
# holding one would run its next line. The script reads the session's name,
# task and stamp itself, as data, and checks them before the helper sees them
# (docs/status.md#keys-and-first-load).
# Inside the popup it runs as: fleet-owner.sh --show <columns> <text>
set -u

SCRIPTS_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=scripts/helpers.sh
. "$SCRIPTS_DIR/helpers.sh"

# In the popup: the text wrapped at word boundaries, then wait for a key.
if [ "${1-}" = "--show" ]; then
	printf '%s\n' "$3" | fold -s -w "$2"
	printf '\n%s' '[press any key]'
	IFS= read -r -s -n 1 _ 2>/dev/null || true
	exit 0
fi

client="" session_id=""
for arg in "$@"; do
	case "$arg" in
	client=*) client="${arg#client=}" ;;
	session=*) session_id="${arg#session=}" ;;
	esac
done
case "$session_id" in \$[0-9]*) ;; *) session_id="" ;; esac

# A value read from tmux, for a message: one line, control characters as '?'.
printable_value() {
	printf '%s' "$1" | tr -c '[:print:]' '?'
}

# session, task, stamp: the session's name and its two options, each read alone.
session="" task="" stamp=""
if [ -n "$session_id" ]; then
	session="$(tmux display-message -p -t "$session_id" '#{session_name}' 2>/dev/null)"
	task="$(tmux show-options -qv -t "$session_id" @fleet-task 2>/dev/null)"
	stamp="$(tmux show-options -qv -t "$session_id" @claude_session_id 2>/dev/null)"
fi
session="$(printable_value "$session")"

HELPER="$(fleet_helper_path)"
if [ -z "$task" ]; then
	if [ -n "$stamp" ]; then
		message="fleet: session $session is not bound to a task (stamp $(printable_value "$stamp"))"
	else
		message="fleet: session $session is not bound to a task and carries no stamp"
	fi
elif ! is_fleet_slug "$task"; then
	message="fleet: session $session: @fleet-task \"$(printable_value "$task")\" is not a task slug (a-z, 0-9, _ and -, at most 63)"
elif [ -n "$stamp" ] && ! is_session_id "$stamp"; then
	message="fleet $task: session $session: stamp \"$(printable_value "$stamp")\" is not a session id"
elif [ ! -f "$HELPER" ]; then
	message="fleet: the helper is not built yet; see $(fleet_log_file)"
else
	# The verdict as the helper words it for this session (docs/ownership.md#output): asked as its
	# stamp; with none, as nobody (no $CLAUDE_CODE_SESSION_ID or $TMUX_PANE of the server's to name one).
	if [ -n "$stamp" ]; then
		out="$("$(fleet_node)" "$HELPER" owner "$task" --as "$stamp" 2>&1 </dev/null)"
	else
		out="$(env -u CLAUDE_CODE_SESSION_ID -u TMUX_PANE "$(fleet_node)" "$HELPER" owner "$task" 2>&1 </dev/null)"
	fi
	# One line: the verdict line, or the error.
	out="$(printf '%s\n' "$out" | sed -n '/./{p;q;}')"
	message="fleet: ${out:-owner $task: no answer}"
	# The agent this session is attached to, in full (the status line cuts Claude Code's `needs` sentence).
	if [ -n "$stamp" ]; then
		agent="$("$(fleet_node)" "$HELPER" follow "$stamp" 2>/dev/null </dev/null | sed -n '/./{p;q;}')"
		[ -n "$agent" ] && message="$message; agent: $agent"
	fi
fi

# A popup as wide as the client, as tall as the wrapped text (plus its
# border, a blank line and the key line). display-popup runs one shell
# command and expands no formats in it. It waits until the popup closes,
# which is fine under run-shell -b.
show_in_popup() {
	local columns="$1" lines rows
	lines="$(printf '%s\n' "$message" | fold -s -w "$((columns - 2))" | wc -l)"
	rows="$(tmux display-message -p -c "$client" '#{client_height}' 2>/dev/null)"
	lines=$((lines + 4))
	[ -n "$rows" ] && [ "$lines" -gt "$rows" ] && lines="$rows"
	tmux display-popup -c "$client" -w "$columns" -h "$lines" -E \
		"$(shell_quote "$SCRIPTS_DIR/fleet-owner.sh") --show $((columns - 2)) $(shell_quote "$message")" 2>/dev/null
}

width=""
[ -n "$client" ] && width="$(tmux display-message -p -c "$client" '#{client_width}' 2>/dev/null)"
case "$width" in '' | *[!0-9]*) width="" ;; esac
if [ -n "$width" ] && [ "$width" -gt 4 ] && [ "${#message}" -gt "$width" ] && show_in_popup "$width"; then
	exit 0
fi
args=(display-message -d "$(fleet_message_time)")
[ -n "$client" ] && args+=(-c "$client")
tmux "${args[@]}" "$(format_escape "$message")" 2>/dev/null || true
exit 0

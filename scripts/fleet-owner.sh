#!/usr/bin/env bash
# The owner key: this session's verdict in full, as one message in the status
# line of the client that pressed the key. Run by run-shell -b with
#   client=<client_name> session=<session_name> task=<@fleet-task> stamp=<@claude_session_id>
# (each value quoted by tmux with #{q:...}; the name= prefixes keep empty values in place).
set -u

SCRIPTS_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=scripts/variables.sh
. "$SCRIPTS_DIR/variables.sh"
# shellcheck source=scripts/helpers.sh
. "$SCRIPTS_DIR/helpers.sh"

client="" session="" task="" stamp=""
for arg in "$@"; do
	case "$arg" in
	client=*) client="${arg#client=}" ;;
	session=*) session="${arg#session=}" ;;
	task=*) task="${arg#task=}" ;;
	stamp=*) stamp="${arg#stamp=}" ;;
	esac
done

HELPER="$(fleet_helper_path)"
if [ -z "$task" ]; then
	if [ -n "$stamp" ]; then
		message="fleet: session $session is not bound to a task (stamp $stamp)"
	else
		message="fleet: session $session is not bound to a task and carries no stamp"
	fi
elif [ -z "$stamp" ]; then
	message="fleet $task: session $session carries no stamp yet (agent not started, or the hook is missing: tmux-fleet hooks install)"
elif [ ! -f "$HELPER" ]; then
	message="fleet: the helper is not built yet; see $(fleet_log_file)"
else
	out="$("$(fleet_node)" "$HELPER" owner "$task" --as "$stamp" 2>&1 </dev/null)"
	# One line: the verdict line, or the error.
	out="$(printf '%s\n' "$out" | sed -n '/./{p;q;}')"
	message="fleet: ${out:-owner $task: no answer}"
fi

duration="$(get_tmux_option "$fleet_message_time_option" "$fleet_message_time_default" 2>/dev/null)"
args=(display-message)
[ -n "$client" ] && args+=(-c "$client")
[ -n "$duration" ] && args+=(-d "$duration")
tmux "${args[@]}" "$(format_escape "$message")" 2>/dev/null || true
exit 0

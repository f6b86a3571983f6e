#!/usr/bin/env bash
# Restore from tmux (docs/ownership.md#restore): the restore key, the plugin's
# load, and tmux-resurrect's post-restore hook.
#   fleet-restore.sh [client=<client_name>] [socket=<socket_path>]
#       restores every task whose Driver is gone and shows the summary (to
#       that client when named); the restore key passes both, quoted by tmux
#   fleet-restore.sh --at-load
#       the plugin's load, once per server (tmux-plugin.tmux: offer_restore),
#       in the background: with @fleet-restore on, restores without asking
#       and says what it did; otherwise, when tasks can be restored, says how
#       many and which key restores them ("tmux-fleet: 3 tasks can be
#       restored: prefix R")
# A message said while no client is attached waits for the first one.
set -u

SCRIPTS_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=scripts/helpers.sh
. "$SCRIPTS_DIR/helpers.sh"

client="" socket="" at_load=0
for arg in "$@"; do
	case "$arg" in
	client=*) client="${arg#client=}" ;;
	socket=*) socket="${arg#socket=}" ;;
	--at-load) at_load=1 ;;
	esac
done

HELPER="$(fleet_helper_path)"
[ -f "$HELPER" ] || {
	[ "$at_load" -eq 1 ] || display_message "tmux-fleet: the helper is not built yet; see $(fleet_log_file)"
	exit 0
}

# restore_json [--dry-run]: the helper's one JSON line (its first field is `restorable`).
restore_json() {
	local args=(restore --json "$@")
	[ -n "$socket" ] && args+=(--socket-path "$socket")
	"$(fleet_node)" "$HELPER" "${args[@]}" 2>&1 </dev/null | sed -n '1p'
}

# The count and the summary of that line; nothing when it is not the helper's JSON (an error's line instead).
restorable_of() {
	printf '%s\n' "$1" | sed -n 's/^{"restorable":\([0-9][0-9]*\),.*/\1/p'
}
summary_of() {
	printf '%s\n' "$1" | sed -n 's/.*"summary":"\([^"\\]*\)".*/\1/p'
}

# tell <message>: to the client that pressed the key, else as the plugin's messages go.
tell() {
	if [ -n "$client" ]; then
		tmux display-message -d "$(fleet_message_time)" -c "$client" "$(format_escape "$1")" 2>/dev/null || true
	else
		display_message "$1"
	fi
}

# The key that restores, as the message names it (the first of @fleet-restore-key), or the command.
restore_key_text() {
	local key
	key="$(option_first_word @fleet-restore-key)"
	if [ -n "$key" ]; then printf 'prefix %s\n' "$key"; else printf 'tmux-fleet restore\n'; fi
}

option_first_word() {
	local value
	value="$(fleet_option "$1")"
	(
		set -f
		# shellcheck disable=SC2086
		set -- $value
		printf '%s\n' "${1-}"
	)
}

if [ "$at_load" -eq 1 ]; then
	if [ "$(fleet_option @fleet-restore)" = on ]; then
		line="$(restore_json)"
		n="$(restorable_of "$line")"
		[ -n "$n" ] || { fleet_log "restore at load: ${line:-no answer}"; exit 0; }
		summary="$(summary_of "$line")"
		fleet_log "restore at load (@fleet-restore on): $summary"
		[ "$summary" = "nothing restored" ] || display_message "tmux-fleet: $summary (@fleet-restore on)"
	else
		line="$(restore_json --dry-run)"
		n="$(restorable_of "$line")"
		[ -n "$n" ] || { fleet_log "restore --dry-run at load: ${line:-no answer}"; exit 0; }
		fleet_log "restore at load: $(summary_of "$line")"
		if [ "$n" -gt 0 ]; then
			if [ "$n" -eq 1 ]; then what="1 task can be restored"; else what="$n tasks can be restored"; fi
			display_message "tmux-fleet: $what: $(restore_key_text)" 10000
		fi
	fi
	exit 0
fi

line="$(restore_json)"
summary="$(summary_of "$line")"
tell "tmux-fleet: ${summary:-restore: ${line:-no answer}}"
exit 0

#!/usr/bin/env bash
# What the dashboard key and the `fleet` command alias run inside display-popup.
#   no arguments: the dashboard (tmux-fleet dashboard)
#   arguments:    tmux-fleet <arguments>, then wait for a key so the output can be read
set -u

SCRIPTS_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=scripts/helpers.sh
. "$SCRIPTS_DIR/helpers.sh"

HELPER="$(fleet_helper_path)"

wait_key() {
	printf '\n%s' "$1"
	IFS= read -r -s -n 1 _ 2>/dev/null || true
}

if [ ! -f "$HELPER" ]; then
	printf 'tmux-fleet: the helper is not built yet (%s).\n' "$HELPER"
	printf 'It is built in the background on first load; see %s\n' "$(fleet_log_file)"
	wait_key '[press any key]'
	exit 0
fi

if [ "$(fleet_node)" = node ] && ! TMUX_FLEET_NODE="$(find_node)"; then
	node_missing_message
	wait_key '[press any key]'
	exit 0
fi
export TMUX_FLEET_NODE

if [ "$#" -eq 0 ]; then
	exec "$(fleet_node)" "$HELPER" dashboard
fi

"$(fleet_node)" "$HELPER" "$@"
status=$?
wait_key "[tmux-fleet $1: exit $status; press any key]"
exit 0

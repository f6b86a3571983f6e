#!/usr/bin/env bash
# log-lines.sh <who>: appends each line of its input to the fleet log, with the
# time, as fleet_log writes every line (a process's own output, sent here by a
# pipe, e.g. the supervisor's).
set -u
SCRIPTS_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=scripts/helpers.sh
. "$SCRIPTS_DIR/helpers.sh"
while IFS= read -r line || [ -n "$line" ]; do
	fleet_log "${1-}: $line"
done

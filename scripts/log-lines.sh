#!/usr/bin/env bash
# What a background job prints, as log lines: `<command> 2>&1 | log-lines.sh <who>`.
# run-shell would append its output to the log raw: no time, and a last line
# without its newline (tmux's own `invalid option: …` comes so) glued to the
# next entry. Each line goes through fleet_log_as (time, who, control
# characters replaced), and nowhere when the log is not safe to write.
set -u

SCRIPTS_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=scripts/helpers.sh
. "$SCRIPTS_DIR/helpers.sh"

who="${1:-job}"
while IFS= read -r line || [ -n "$line" ]; do
	fleet_log_as "$who" "$line"
done
exit 0

#!/usr/bin/env bash
# Builds the helper (dist/tmux-fleet.cjs, and the bundles and
# dependency files beside it that it reads, written before it) in the plugin directory, then starts
# the supervisor in place of any running one. tmux-plugin.tmux runs this in the
# background at every load; it does nothing when dist/ was built from this
# checkout's sources (fleet_helper_current), and builds on first load and after
# an update. It never blocks tmux start-up. A lock directory keeps two loads from
# building at once. Outcome: display-message, and the fleet log.
#
# TMUX_FLEET_BUILD_CMD overrides the build (a sh command run in the plugin
# directory; default: npm ci && npm run build). Tests use it.
set -u

SCRIPTS_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=scripts/helpers.sh
. "$SCRIPTS_DIR/helpers.sh"

PLUGIN_DIR="$(fleet_plugin_dir)"
HELPER="$(fleet_helper_path)"
LOCK="$PLUGIN_DIR/.fleet-build.lock"
BUILD_CMD="${TMUX_FLEET_BUILD_CMD:-npm ci --no-audit --no-fund && npm run build}"
# npm runs under the node the plugin found (npm sits beside it), PATH or not.
case "${TMUX_FLEET_NODE-}" in /*) PATH="$(dirname "$TMUX_FLEET_NODE"):$PATH" ;; esac

# Takes the lock, breaking it when the process that holds it is gone.
take_lock() {
	local holder
	if mkdir "$LOCK" 2>/dev/null; then
		printf '%s\n' "$$" >"$LOCK/pid"
		return 0
	fi
	holder="$(cat "$LOCK/pid" 2>/dev/null || true)"
	if [ -n "$holder" ] && kill -0 "$holder" 2>/dev/null; then
		return 1
	fi
	# The pid file may not be written yet by a holder that just made the dir.
	if [ -z "$holder" ]; then
		sleep 1
		holder="$(cat "$LOCK/pid" 2>/dev/null || true)"
		if [ -n "$holder" ] && kill -0 "$holder" 2>/dev/null; then
			return 1
		fi
	fi
	rm -rf "$LOCK"
	mkdir "$LOCK" 2>/dev/null || return 1
	printf '%s\n' "$$" >"$LOCK/pid"
}

main() {
	local out status
	if fleet_helper_current; then
		return 0
	fi
	if [ -f "$HELPER" ]; then
		fleet_log "build: the helper was built from $(cat "$PLUGIN_DIR/dist/built-from" 2>/dev/null || echo 'unknown sources'), the plugin is $(fleet_build_inputs); rebuilding it"
		display_message "tmux-fleet: the helper was built from other sources than the plugin's (updated?); rebuilding it in the background"
	fi
	if ! take_lock; then
		fleet_log "build: another load is already building the helper in $PLUGIN_DIR"
		return 0
	fi
	trap 'rm -rf "$LOCK"' EXIT
	fleet_log "build: building the helper in $PLUGIN_DIR ($BUILD_CMD)"
	out="$(cd "$PLUGIN_DIR" && sh -c "$BUILD_CMD" </dev/null 2>&1)"
	status=$?
	if [ "$status" -eq 0 ] && [ -f "$HELPER" ]; then
		fleet_log "build: helper built: $HELPER ($(cat "$PLUGIN_DIR/dist/built-from" 2>/dev/null || echo 'no dist/built-from'))"
		fleet_helper_current || fleet_log "build: dist/built-from does not match the sources ($(fleet_build_inputs)); the next load builds again"
		display_message "tmux-fleet: helper built"
		# The new build's supervisor, in place of the one the old build ran (if any).
		start_supervisor --replace
		return 0
	fi
	local reason="exit $status"
	if [ "$status" -eq 0 ]; then
		reason="the build left no $HELPER"
	fi
	fleet_log "build: failed ($reason) in $PLUGIN_DIR; last output:"
	printf '%s\n' "$out" | tail -n 40 | while IFS= read -r line; do fleet_log "build:   $line"; done
	display_message "tmux-fleet: building the helper failed ($reason); see $(fleet_log_file)" 10000
	return 0
}

main "$@"

# shellcheck shell=bash
# Every option of the plugin and its default, in one place.
# Options are global (set -g) and named @fleet-<name>. An option set to ''
# means "off" where that makes sense (keys); an unset option takes the default.
# The plugin fills every unset option with its default (set -go), so the
# helper and `tmux show -g` see the values in use.

# Keys (prefix table). Several keys allowed, space-separated; '' disables.
# Neither F nor O is bound by tmux by default (checked against
# `tmux -f /dev/null list-keys` on 3.3a).
fleet_key_option="@fleet-key"
fleet_key_default="F"
fleet_owner_key_option="@fleet-owner-key"
fleet_owner_key_default="O"

# The dashboard popup (display-popup -w/-h: columns/lines or a percentage).
fleet_popup_width_option="@fleet-popup-width"
fleet_popup_width_default="80%"
fleet_popup_height_option="@fleet-popup-height"
fleet_popup_height_default="75%"

# How long the owner key's verdict stays in the status line (ms; display-message -d).
fleet_message_time_option="@fleet-message-time"
fleet_message_time_default="5000"

# Read by the helper.
fleet_interval_option="@fleet-interval"          # supervisor poll fallback, seconds
fleet_interval_default="2"
fleet_agent_cmd_option="@fleet-agent-cmd"        # agent command of spawn
fleet_agent_cmd_default="claude"
fleet_session_prefix_option="@fleet-session-prefix"  # spawn's session names: <prefix><slug>
fleet_session_prefix_default="op-"
# Claude Code's session registry directory; '' = ${CLAUDE_CONFIG_DIR:-~/.claude}/sessions.
# When set, the plugin exports it into tmux's global environment as TMUX_FLEET_REGISTRY.
fleet_registry_option="@fleet-registry"
fleet_registry_default=""

# What the supervisor draws. Each segment is drawn as
#   #[<style>]<icon> <text>#[default]
# The supervisor doubles every '#' of the text it writes (session ids, job
# ids, labels), so markup comes only from these options. Styles are tmux
# style strings (fg=, bg=, bold, ...); an empty icon draws the text alone.
# The defaults are badges (a background of their own), readable on tmux's
# default green status bar and on dark themes alike. These are the only
# defaults: the helper draws plain text for an option that is unset.
fleet_icon_owner_option="@fleet-icon-owner"      # this session's stamp owns its task
fleet_icon_owner_default="●"
fleet_style_owner_option="@fleet-style-owner"
fleet_style_owner_default="fg=black,bg=green"
fleet_icon_other_option="@fleet-icon-other"      # another session owns this task
fleet_icon_other_default="▲"
fleet_style_other_option="@fleet-style-other"
fleet_style_other_default="fg=white,bg=red,bold"
fleet_icon_pending_option="@fleet-icon-pending"  # owner not named yet (boot window)
fleet_icon_pending_default="◌"
fleet_style_pending_option="@fleet-style-pending"
fleet_style_pending_default="fg=black,bg=yellow"
fleet_icon_unknown_option="@fleet-icon-unknown"  # cannot tell (verdict 5)
fleet_icon_unknown_default="?"
fleet_style_unknown_option="@fleet-style-unknown"
fleet_style_unknown_default="fg=white,bg=magenta"
fleet_icon_hop_option="@fleet-icon-hop"          # following parked work
fleet_icon_hop_default="↪"
fleet_style_hop_option="@fleet-style-hop"
fleet_style_hop_default="fg=black,bg=cyan"
fleet_icon_busy_option="@fleet-icon-busy"        # agent working
fleet_icon_busy_default="⚙"
fleet_style_busy_option="@fleet-style-busy"
fleet_style_busy_default="fg=white,bg=blue"
fleet_icon_idle_option="@fleet-icon-idle"        # agent idle at its prompt
fleet_icon_idle_default="·"
fleet_style_idle_option="@fleet-style-idle"
fleet_style_idle_default="fg=black,bg=colour250"
fleet_icon_waiting_option="@fleet-icon-waiting"  # agent waiting for the user (permission, input)
fleet_icon_waiting_default="!"
fleet_style_waiting_option="@fleet-style-waiting"
fleet_style_waiting_default="fg=black,bg=yellow,bold"

# Written by the plugin, read by `tmux-fleet doctor`.
fleet_version_option="@fleet-version"

# Status tokens (like tmux-cpu): each token in status-left/status-right is
# replaced by a read of the session option the supervisor keeps true.
# Drawing the status line therefore starts no process.
fleet_status_tokens=(
	"#{fleet_owner}" "#{@fleet-owner}"
	"#{fleet_hop}" "#{@fleet-hop}"
	"#{fleet_agent}" "#{@fleet-agent}"
)

# The user options and their defaults, as name/default pairs, for filling in
# unset options in one tmux call.
fleet_option_defaults=(
	"$fleet_key_option" "$fleet_key_default"
	"$fleet_owner_key_option" "$fleet_owner_key_default"
	"$fleet_popup_width_option" "$fleet_popup_width_default"
	"$fleet_popup_height_option" "$fleet_popup_height_default"
	"$fleet_message_time_option" "$fleet_message_time_default"
	"$fleet_interval_option" "$fleet_interval_default"
	"$fleet_agent_cmd_option" "$fleet_agent_cmd_default"
	"$fleet_session_prefix_option" "$fleet_session_prefix_default"
	"$fleet_icon_owner_option" "$fleet_icon_owner_default"
	"$fleet_style_owner_option" "$fleet_style_owner_default"
	"$fleet_icon_other_option" "$fleet_icon_other_default"
	"$fleet_style_other_option" "$fleet_style_other_default"
	"$fleet_icon_pending_option" "$fleet_icon_pending_default"
	"$fleet_style_pending_option" "$fleet_style_pending_default"
	"$fleet_icon_unknown_option" "$fleet_icon_unknown_default"
	"$fleet_style_unknown_option" "$fleet_style_unknown_default"
	"$fleet_icon_hop_option" "$fleet_icon_hop_default"
	"$fleet_style_hop_option" "$fleet_style_hop_default"
	"$fleet_icon_busy_option" "$fleet_icon_busy_default"
	"$fleet_style_busy_option" "$fleet_style_busy_default"
	"$fleet_icon_idle_option" "$fleet_icon_idle_default"
	"$fleet_style_idle_option" "$fleet_style_idle_default"
	"$fleet_icon_waiting_option" "$fleet_icon_waiting_default"
	"$fleet_style_waiting_option" "$fleet_style_waiting_default"
)

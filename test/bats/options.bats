#!/usr/bin/env bats
# The one table of options and defaults, scripts/option-defaults.json: the
# shell reads it line by line (scripts/helpers.sh), the helper as JSON
# (src/options.ts). Both must read the same names and values.

setup() {
	load helpers
	. "$ROOT/scripts/helpers.sh"
}

@test "every line of the table is one option in the form the shell reads" {
	local line n=0
	while IFS= read -r line; do
		case "$line" in
		'{' | '}') continue ;;
		esac
		n=$((n + 1))
		# "@fleet-<kebab-name>": "<value without \ or ">", (the last without the comma)
		[[ "$line" =~ ^\ \ \"@fleet-[a-z]+(-[a-z]+)*\":\ \"[^\"\\]*\",?$ ]] || {
			echo "not in the shell's form: $line"
			false
		}
	done <"$ROOT/scripts/option-defaults.json"
	[ "$n" -gt 0 ]
}

@test "the shell reads every default exactly as JSON does" {
	local name value
	while IFS=$'\t' read -r name value; do
		run fleet_option_default "$name"
		assert_success
		assert_output "$value"
	done < <(node -e 'for (const [k, v] of Object.entries(require(process.argv[1]))) console.log(`${k}\t${v}`)' "$ROOT/scripts/option-defaults.json")
	# Spot checks, so an empty parse cannot pass.
	assert_equal "$(fleet_option_default @fleet-key)" "F"
	assert_equal "$(fleet_option_default @fleet-style-other)" "fg=white,bg=red,bold"
	assert_equal "$(fleet_option_default @fleet-icon-owner)" "●"
}

@test "a name the table lacks has no default" {
	run fleet_option_default @fleet-nosuch
	assert_failure
	assert_output ""
	# A name that only starts like one in the table is not it.
	run fleet_option_default @fleet-ke
	assert_failure
}

#!/usr/bin/env bats
# The repository's commit-msg hook (.githooks/commit-msg), enabled in a fresh
# repository as docs/development.md says (git config core.hooksPath .githooks):
# a subject of at most 72 characters, a blank line, a body that says why.

setup() {
	ROOT="$(cd "$BATS_TEST_DIRNAME/../.." && pwd)"
	load "$ROOT/node_modules/bats-support/load"
	load "$ROOT/node_modules/bats-assert/load"
	REPO="$BATS_TEST_TMPDIR/repo"
	git init -q "$REPO"
	cp -R "$ROOT/.githooks" "$REPO/.githooks"
	cd "$REPO"
	git config core.hooksPath .githooks
	git config user.name tester
	git config user.email tester@example.invalid
	unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE
}

# commit <message>: an empty commit with that message, the hook run as git runs it.
commit() {
	printf '%s' "$1" >"$BATS_TEST_TMPDIR/msg"
	git commit -q --allow-empty -F "$BATS_TEST_TMPDIR/msg"
}

# commit_edited <message>: the same, written in the editor of `git commit -v`.
commit_edited() {
	printf '%s' "$1" >"$BATS_TEST_TMPDIR/msg"
	GIT_EDITOR="cp '$BATS_TEST_TMPDIR/msg'" git commit -q --allow-empty -v
}

commits() {
	git rev-list --count HEAD 2>/dev/null || echo 0
}

subject_of() {
	head -c "$1" /dev/zero | tr '\0' 's'
}

@test "a subject of 72 characters and a body is taken" {
	run commit "$(subject_of 72)

Why: the body says it."
	assert_success
	assert_equal "$(commits)" 1
	assert_equal "$(git log -1 --format=%s)" "$(subject_of 72)"
}

@test "a subject of 73 characters is refused, saying the limit; no commit is made" {
	run commit "$(subject_of 73)

Why: the body says it."
	assert_failure
	assert_output --partial "commit-msg: the subject is 73 characters, at most 72"
	assert_equal "$(commits)" 0
}

@test "characters are counted, not bytes: 72 letters of two bytes each are taken" {
	run commit "$(printf 'é%.0s' $(seq 72))

Why: the body says it."
	assert_success
}

@test "a subject alone, with no body, is refused" {
	run commit "Add the thing"
	assert_failure
	assert_output --partial "commit-msg: no body"
	run commit "Add the thing

"
	assert_failure
	assert_output --partial "commit-msg: no body"
	assert_equal "$(commits)" 0
}

@test "a body that starts on the line after the subject is refused" {
	run commit "Add the thing
because it was missing"
	assert_failure
	assert_output --partial "leave a blank line after it"
}

@test "in the editor, comment lines and what follows git's scissors line are not the message" {
	run commit_edited "# a comment git strips
Add the thing

Why: the body says it.
# $(subject_of 100)
# ------------------------ >8 ------------------------
$(subject_of 100)"
	assert_success
	assert_equal "$(git log -1 --format=%s)" "Add the thing"
}

@test "a comment character of the user's choice is honoured" {
	git config core.commentChar ';'
	run commit_edited "; $(subject_of 100)
Add the thing

Why: the body says it."
	assert_success
}

@test "a merge's message and autosquash subjects pass as git writes them" {
	commit "Start

The first commit."
	git checkout -q -b side
	commit "Side work

On a branch."
	git checkout -q -
	commit "Main work

Meanwhile."
	run git merge -q --no-ff --no-edit side
	assert_success
	run commit "fixup! $(subject_of 80)"
	assert_success
}

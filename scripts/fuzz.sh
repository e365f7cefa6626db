#!/bin/sh
# fuzz.sh FUZZTIME: runs every fuzz target in the module for FUZZTIME each.
#
# Go before 1.27 can end a duration-bounded fuzz run with "context deadline
# exceeded" and a failure although no input failed (go.dev/issue/75804: the
# coordinator's own deadline escapes its filter). Such a run wrote no
# failing input, so it is run once more; a second failure, or any failure
# that wrote an input, fails.
set -u
fuzztime=${1:?usage: fuzz.sh FUZZTIME}
go=${GO:-go} # may be a command with arguments
log=$(mktemp)
trap 'rm -f "$log"' EXIT

run() { # dir target
	$go test -run='^$' -fuzz="^$2\$" -fuzztime="$fuzztime" "$1" >"$log" 2>&1
	_rc=$?
	cat "$log"
	return $_rc
}

for f in $(grep -rl --include='*_test.go' '^func Fuzz' . | sort); do
	dir=$(dirname "$f")
	for t in $(grep -o '^func Fuzz[A-Za-z0-9_]*' "$f" | sed 's/^func //'); do
		echo "fuzz $dir $t ($fuzztime)"
		run "$dir" "$t" && continue
		if grep -q 'context deadline exceeded' "$log" && ! grep -q 'Failing input written' "$log"; then
			echo "fuzz $dir $t: the fuzz coordinator's own deadline, no failing input (go.dev/issue/75804); once more"
			run "$dir" "$t" && continue
		fi
		echo "fuzz $dir $t: FAILED" >&2
		exit 1
	done
done

# collect-lib.sh: what publishing runs and tunes under plots/ takes
# (sweep-collect.sh, baselines-collect.sh, make adaptive-tcp), sourced
# with KVBENCH, the kvbench binary, set.

# runs DIR: the run directories kvbench made under DIR, oldest first (their
# names end in the start time), without the latest link; none when DIR
# is not there.
runs() {
	[[ -d $1 ]] || return 0
	find "$1" -mindepth 1 -maxdepth 1 -type d -name '*-[0-9]*-[0-9]*' | sort
}

# runchecks OUT RUN...: OUT/checks.txt, the checks kvbench report gives
# of each run's cells (a line per cell that failed one, naming what
# failed and why, then a count of those that passed every check), and
# the line tallying them.
runchecks() {
	local out=$1 d
	shift
	: >"$out/checks.txt"
	for d in "$@"; do
		{
			echo "== $(basename "$d")"
			"$KVBENCH" report "$d" | sed -n '/^checks (/,$p'
		} >>"$out/checks.txt"
	done
	# A cell whose only failure is tail_precision has its median and rate
	# drawn (docs/TRUST.md): counted apart.
	awk -v dir="$out" '/every check passed in/ {pass += $(NF - 1)}
		/ failed: / {if (gsub(/ failed: /, "&") == 1 && / tail_precision failed: /) tail++; else fail++}
		END {printf "%s: %d cells pass every check, %d fail only tail_precision, %d fail another (checks.txt)\n", dir, pass, tail, fail}' "$out/checks.txt"
}

# tunechecks OUT TUNE: OUT/checks.txt, the tally tune.txt gives of the
# tune's measurements and the failed checks among its warnings, and the
# tally's line.
tunechecks() {
	local out=$1 tally
	tally=$(grep '^checks (' "$2/tune.txt" || echo "no measurement carries checks")
	{
		echo "$tally"
		grep ' check failed' "$2/tune.txt" || true
	} >"$out/checks.txt"
	echo "$out: $tally"
}

# publishtune OUT TUNE: tune directory TUNE published into OUT: its
# table, tune.json, page and profile, its figures drawn from the
# measurements that pass their checks, and checks.txt (tunechecks).
publishtune() {
	local out=$1 t=$2
	cp "$t"/tune.txt "$t"/tune.json "$t"/tune.html "$out/"
	[[ ! -f $t/profile.json ]] || cp "$t/profile.json" "$out/"
	"$KVBENCH" plot "$t" -o "$out" --format png --trusted-only
	tunechecks "$out" "$t"
}

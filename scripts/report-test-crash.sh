#!/bin/sh
# After a failed pytest run: if pytest crashed, print which test ran and where it crashed,
# so that the last lines of `make test` (all CI keeps) say so. Prints nothing otherwise.
# The notes are kept by tests/helpers/crash_report.py in $1 (SAMMY_TEST_CRASH_DIR).
# The most telling lines come last: CI shows the end.
dir=${1:?usage: report-test-crash.sh CRASH_DIR}
dump="$dir/crash.txt"
[ -s "$dump" ] || exit 0
echo "================ pytest crashed (the whole dump: $dump) ================"
echo "the other threads, newest first, their top frames:"
grep -A 2 '^Thread 0x' "$dump" | grep -v '^--$' | head -n 12
echo "the crashing thread, its top frames:"
sed -n '/^Current thread/,/^$/p' "$dump" | head -n 13
head -n 1 "$dump"
echo "while running: $(cat "$dir/current-test" 2>/dev/null || echo '(no test had started)')"

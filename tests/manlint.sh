#!/bin/sh
# tests/manlint.sh — every man page lints clean with mandoc at warning level.
if ! command -v mandoc >/dev/null 2>&1; then
	echo "not ok - man/mandoc: mandoc is not installed (make deps installs it as root)"
	exit 0
fi
for m in man/*.[1-8]; do
	[ -f "$m" ] || continue
	out=$(mandoc -Tlint -Wwarning "$m" 2>&1)
	if [ -n "$out" ]; then
		echo "not ok - man/$(basename "$m"): $(echo "$out" | head -3 | tr '\n' ' ')"
	else
		echo "ok - man/$(basename "$m")"
	fi
done

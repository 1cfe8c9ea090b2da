#!/bin/sh
# t0402-store-create-kill — a new store appears whole or not at all
# (store.h invariant 6): cellar killed at every point of a store's
# creation leaves either no store or a sound one, never a 0-byte file or
# one with a hot rollback journal that every later command refused (exit
# 4, "attempt to write a readonly database"); the next command creates or
# uses it, and removes what the killed builder left behind.
#
# The kill points: the store's own test hook (CELLAR_STORE_KILL=N, whose
# steps include the creation's), and each fsync/fdatasync of the process
# turned into SIGKILL by strace's fault injection (the reproducer of issue
# 23 F2: the 4th one fell between creating the file and its WAL switch).
. tests/scenarios/lib.sh
unset CELLAR_DB
cd "$TMP" || exit 1

# judge WHAT: after a kill, a store or none, then a command that works
judge() {
	if [ -e k.db ]; then
		[ -s k.db ] || bad="$bad [$1: a 0-byte k.db]"
		"$CELLAR" --db k.db db check >chk 2>&1 ||
		    bad="$bad [$1: db check: $(cat chk)]"
	fi
	"$CELLAR" --db k.db alloc b --vc prod --gpus 1 >/dev/null 2>err ||
	    bad="$bad [$1: the next alloc: $(cat err)]"
	"$CELLAR" --db k.db db check >chk 2>&1 || bad="$bad [$1: after: $(cat chk)]"
	# what the killed builder left is gone once a creator saw it dead
	ls k.db.new.* >/dev/null 2>&1 && [ "$2" = swept ] &&
	    bad="$bad [$1: left behind: $(ls k.db.new.*)]"
}

bad= n=1 made=0
while [ "$n" -le 6 ]; do
	rm -f k.db k.db-* k.db.new.*
	CELLAR_STORE_KILL=$n "$CELLAR" --db k.db alloc a --vc prod --gpus 1 >/dev/null 2>&1
	[ -e k.db ] || made=$((made + 1))
	judge "kill $n" swept
	n=$((n + 1))
done
[ -z "$bad" ] && ok hook-kills || not_ok hook-kills "$bad"
# some kill points were inside the creation (no store left)
[ "$made" -gt 0 ] && ok hook-kills-in-creation-$made ||
    not_ok hook-kills-in-creation "every kill came after the store existed"

if ! command -v strace >/dev/null 2>&1; then
	not_ok strace "strace is missing (make deps installs it)"
	done_testing
fi
bad= w=1
while [ "$w" -le 8 ]; do
	rm -f k.db k.db-* k.db.new.*
	strace -f -o /dev/null -e trace=fdatasync,fsync \
	    -e inject=fdatasync,fsync:signal=SIGKILL:when=$w \
	    "$CELLAR" --db k.db alloc a --vc prod --gpus 1 >/dev/null 2>&1
	judge "fsync $w" swept
	w=$((w + 1))
done
[ -z "$bad" ] && ok fsync-kills || not_ok fsync-kills "$bad"

done_testing

#!/bin/sh
# t0058-install — `make install` puts the binary and both man pages under
# DESTDIR + PREFIX with the right modes, and what it installed works. The
# target's recipe is install-files (install = build, then install-files);
# the test installs the binary under test rather than building another.
. tests/scenarios/lib.sh

root=$TMP/root
run make -s --no-print-directory install-files DESTDIR="$root" PREFIX=/opt/cellar \
    INSTALL_BIN="$CELLAR"
check_rc install-rc 0
for f in bin/cellar share/man/man1/cellar.1 share/man/man5/cellar-spec.5; do
	if [ -f "$root/opt/cellar/$f" ]; then ok "installed-$(basename "$f")"
	else not_ok "installed-$(basename "$f")" "no $root/opt/cellar/$f"; fi
done
mode() { ls -l "$1" | cut -c1-10; }
[ "$(mode "$root/opt/cellar/bin/cellar")" = "-rwxr-xr-x" ] && ok bin-mode ||
    not_ok bin-mode "$(mode "$root/opt/cellar/bin/cellar")"
[ "$(mode "$root/opt/cellar/share/man/man1/cellar.1")" = "-rw-r--r--" ] && ok man-mode ||
    not_ok man-mode "$(mode "$root/opt/cellar/share/man/man1/cellar.1")"
cmp -s man/cellar.1 "$root/opt/cellar/share/man/man1/cellar.1" && ok man1-same ||
    not_ok man1-same "installed cellar.1 differs"
run "$root/opt/cellar/bin/cellar" --version
check_rc installed-runs 0
check_out_has installed-version "cellar "
if command -v mandoc >/dev/null 2>&1; then
	run mandoc -Tascii "$root/opt/cellar/share/man/man5/cellar-spec.5"
	check_out_has man5-renders "CELLAR-SPEC(5)"
fi
# The systemd unit, its binary's path filled in, restarted on failure
unit=$root/opt/cellar/lib/systemd/system/cellar.service
grep -qx 'ExecStart=/opt/cellar/bin/cellar serve --spec /etc/cellar/cluster.yaml --db /var/lib/cellar/cellar.db' \
    "$unit" 2>/dev/null && ok unit-execstart || not_ok unit-execstart "$(grep ExecStart "$unit" 2>&1)"
grep -qx 'Restart=on-failure' "$unit" && ok unit-restart || not_ok unit-restart "no Restart=on-failure"
[ "$(mode "$unit")" = "-rw-r--r--" ] && ok unit-mode || not_ok unit-mode "$(mode "$unit")"
if command -v systemd-analyze >/dev/null 2>&1; then
	run systemd-analyze verify --man=no "$unit"
	printf '%s\n' "$ERR" | grep -v 'cellar: No such file\|not executable\|is not executable' |
	    grep -q . && not_ok unit-verify "$ERR" || ok unit-verify
fi
# Nothing lands outside DESTDIR: only opt/ was created.
[ "$(ls "$root")" = opt ] && ok only-destdir || not_ok only-destdir "$(ls "$root")"

done_testing

#!/bin/sh
# t0092-suggest — a misspelt name is answered with the name most likely
# meant and the valid ones (issue 21): commands and subcommands, VCs (of
# the session and of a stored run), sharing modes and policies, all
# through one helper (src/core/suggest.c); the policy list of help comes
# from the policy table (replay --help left antman out); the trace
# mapping's messages name the option, --vc-map.
. tests/scenarios/lib.sh

# commands
run "$CELLAR" satus
check_rc cmd-rc 2
check_err_has cmd-meant "cellar: unknown command 'satus' (did you mean 'status'?)"
run "$CELLAR" frobnicate
check_err_has cmd-far "cellar: unknown command 'frobnicate'"
case $ERR in *"did you mean"*) not_ok cmd-far-no-guess "$ERR" ;; *) ok cmd-far-no-guess ;; esac
run "$CELLAR" node bda r0n00
check_rc subcmd-rc 2
check_err_has subcmd-meant "unknown command 'node bda' (did you mean 'node bad'? 'node' has: bad, ok)"

# VCs: the session's (alloc, place, jobs) and a stored run's (jobs --run)
run "$CELLAR" alloc j --vc prdo --gpus 1
check_rc vc-alloc-rc 1
check_err_has vc-alloc "unknown vc 'prdo' (did you mean 'prod'? vcs: research, prod, dev, infer)"
run "$CELLAR" place j --vc reserch --gpus 1
check_err_has vc-place "unknown vc 'reserch' (did you mean 'research'?"
run "$CELLAR" jobs --vc zzz
check_err_has vc-list "unknown vc 'zzz' (vcs: research, prod, dev, infer)"
run "$CELLAR" --db "$TMP/s.db" -c 'alloc a --vc dev --gpus 1; jobs --run last --vc dve'
check_err_has vc-stored "unknown vc 'dve' in run 1 (did you mean 'dev'? vcs: research, prod, dev, infer)"

# sharing modes: the global option, load, replay
run "$CELLAR" --mode qouta status
check_rc mode-global-rc 2
check_err_has mode-global "unknown mode 'qouta' (did you mean 'quota'? modes: hived, quota, private)"
run "$CELLAR" load --mode privat
check_err_has mode-load "unknown mode 'privat' (did you mean 'private'?"
run "$CELLAR" replay synth:5 --sharing hivd
check_err_has mode-replay "unknown mode 'hivd' (did you mean 'hived'?"

# policies: replay, compare, the demo dashboard
run "$CELLAR" replay synth:5 --policy gittin
check_rc policy-rc 2
check_err_has policy-replay "unknown policy 'gittin' (did you mean 'gittins'? policies: fifo, fifo-skip, las,"
run "$CELLAR" compare synth:5 --policy fifo,antmann
check_err_has policy-compare "unknown policy 'antmann' (did you mean 'antman'?"
run "$CELLAR" dash --once --policy gandiv
check_err_has policy-dash "unknown policy 'gandiv' (did you mean 'gandiva'?"

# the policies help lists are the table's: what an unknown one lists
run "$CELLAR" replay synth:5 --policy nosuch
table=$(printf '%s\n' "$ERR" | sed -n "s/.*(policies: \(.*\))$/\1/p")
[ -n "$table" ] && ok policy-table-listed || not_ok policy-table-listed "$ERR"
for c in replay compare anomaly dash; do
	run "$CELLAR" help "$c"
	check_out_has "help-$c-policies" "one of: $table"
done
case $table in *antman*) ok policy-table-antman ;; *) not_ok policy-table-antman "$table" ;; esac

# the trace mapping names its option
run "$CELLAR" replay tests/fixtures/traces/philly-sample.csv --spec specs/philly.yaml \
    --vc-map 'x=nope'
check_err_has vc-map-entry "--vc-map entry 'x=nope': spec 'specs/philly.yaml' has no VC 'nope'"
run "$CELLAR" replay tests/fixtures/traces/philly-sample.csv --spec specs/philly.yaml
check_err_has vc-map-hint "with --vc-map ("
case $ERR in *vcmap*) not_ok vc-map-no-vcmap "$ERR" ;; *) ok vc-map-no-vcmap ;; esac

done_testing

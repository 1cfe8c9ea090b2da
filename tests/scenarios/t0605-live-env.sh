#!/bin/sh
# t0605-live-env — a job's --env reaches its command and never the hooks
# that start, watch and stop it (issue 23 F6). Before, `--env PATH=DIR`
# made the process set's hooks run DIR/dirname, and `--env LD_PRELOAD=..`
# put an ld.so error into every hook's output, which was then read as the
# status word; on the slurm and kubernetes sets a job could replace
# sbatch or kubectl. And the process set writes a job's output 0600 in
# 0700 directories (F9), its command still under cellar's umask.
. tests/scenarios/lib.sh
. tests/scenarios/lib-live.sh
live_spec "$TMP/two.yaml" 0.1
serve_start "$TMP/two.yaml" || done_testing
# a PATH whose programs say when they run, ahead of the real ones (the
# hooks use these; the job, the trainer, does not)
mkdir -p "$TMP/evil"
for p in dirname mkdir setsid kill rm mv; do
	printf '#!/bin/sh\necho "%s $*" >>"%s/evil.ran"\nexec /usr/bin/env -u PATH %s "$@"\n' \
	    "$p" "$TMP" "$(command -v $p)" >"$TMP/evil/$p"
	chmod +x "$TMP/evil/$p"
done
run "$CELLAR" submit e1 --vc a --gpus 1 --env "PATH=$TMP/evil:/usr/bin:/bin" \
    --env 'GREETING=hello world' -- \
    /bin/sh -c 'echo "PATH=$PATH GREETING=$GREETING" >"$TRAINER_DIR/e1.env"; exec '"$trainer"' 20 0.05'
check_rc submit-path 0
run "$CELLAR" wait e1 --state running --timeout 30s
check_rc running-path 0
i=0
while [ ! -s "$TRAINER_DIR/e1.env" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
grep -qx "PATH=$TMP/evil:/usr/bin:/bin GREETING=hello world" "$TRAINER_DIR/e1.env" &&
    ok job-sees-env || not_ok job-sees-env "$(cat "$TRAINER_DIR/e1.env" 2>&1)"
run "$CELLAR" cancel e1
run "$CELLAR" wait e1 --timeout 30s
# the hooks (start, status, stop) ran none of the job's PATH
[ ! -e "$TMP/evil.ran" ] && ok hooks-not-on-job-path ||
    not_ok hooks-not-on-job-path "$(cat "$TMP/evil.ran")"

# LD_PRELOAD of a missing object: the job's own business, not the hooks'
run "$CELLAR" submit e2 --vc a --gpus 1 --env LD_PRELOAD=/nonexistent/x.so -- \
    "$trainer" 3 0.05
check_rc submit-preload 0
run "$CELLAR" wait e2 --timeout 30s
check_out_has preload-completed "completed"
run "$CELLAR" job log e2
check_out_lacks preload-no-ld-error-in-hooks "ld.so"
check_out_lacks preload-no-bad-status "unknown status"

# a job's output is its owner's alone (issue 23 F9), while what the
# job's command makes keeps the umask cellar had
out=$(ls "$TMP"/run/n*/e2.*.0/out 2>/dev/null | head -1)
[ -n "$out" ] && [ "$(stat -c %a "$out")" = 600 ] &&
    [ "$(stat -c %a "$(dirname "$out")")" = 700 ] &&
    [ "$(stat -c %a "$(dirname "$(dirname "$out")")")" = 700 ] &&
    ok output-private || not_ok output-private "$(ls -la "$TMP"/run/n*/e2.0 2>&1)"
want=$(printf '%o' $((0666 & ~$(umask))))
[ "$(stat -c %a "$TRAINER_DIR/e1.env")" = "$want" ] && ok job-umask ||
    not_ok job-umask "$(stat -c %a "$TRAINER_DIR/e1.env") not $want"

done_testing

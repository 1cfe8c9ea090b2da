#!/bin/sh
# t0020-batch — batch mode: -c (several, in order), -f FILE with comments,
# blank lines and continuations, -f - and commands on stdin, stopping at the
# first failure, --keep-going, line numbers in errors, tokenizer errors.
. tests/scenarios/lib.sh

# -c with several commands, and -c repeated: run in order, one session.
run "$CELLAR" -c 'alloc a --vc prod --gpus 2; alloc b --vc prod --gpus 2' -c 'jobs -o name'
check_rc c-rc 0
check_out_has c-first "job 'a' started"
check_out_has c-second "job 'b' started"
case $OUT in
*"a
b") ok c-order ;;
*) not_ok c-order "jobs -o name did not end the output with a, b: [$OUT]" ;;
esac

# Quoting: a quoted ';' is part of a word, not a separator.
run "$CELLAR" -c "release 'a;b'"
check_rc c-quoted-rc 1
check_err_has c-quoted "unknown job 'a;b'"
run "$CELLAR" -c "help 'node bad'; help \"node\"\\ ok"
check_rc c-quoted-words-rc 0
check_out_has c-quoted-words "usage: node bad NODE..."
check_out_has c-quoted-escaped "usage: node ok NODE..."

# -f FILE: comments, blank lines, a continued line.
cat >"$TMP/script" <<'S'
# set up two jobs
alloc a --vc prod --gpus 4

alloc b --vc dev \
    --gpus 2   # a continued line
jobs -o name
S
run "$CELLAR" -f "$TMP/script"
check_rc f-rc 0
check_out_has f-continued "job 'b' started in vc 'dev'"
case $OUT in
*"a
b") ok f-jobs ;;
*) not_ok f-jobs "[$OUT]" ;;
esac

# -c and -f in the order given.
printf 'jobs -o name\n' >"$TMP/list"
run "$CELLAR" -f "$TMP/list" -c 'alloc x --vc prod --gpus 1' -f "$TMP/list"
check_out c-f-order "job 'x' started in vc 'prod' on chain 'V100-RACK': 1 GPU in 1 pod, guaranteed
POD  NODE   GPUS  ADDRESSES  CELL
  0  r1n00     1  0          r1/r1n00/0/0/0
x"

# Commands on stdin (not a terminal), and -f -.
run_stdin 'alloc s --vc dev --gpus 1
jobs -o name
' "$CELLAR"
check_rc stdin-rc 0
check_out_has stdin-jobs "s"
run_stdin 'jobs -o name; status -o json' "$CELLAR" -f -
check_rc stdin-dash-rc 0
check_out_has stdin-dash '"kind":"status"'

# Stop at the first failure; the status is the failure's.
cat >"$TMP/failing" <<'S'
alloc a --vc prod --gpus 1
release nosuchjob
alloc b --vc prod --gpus 1
S
run "$CELLAR" -f "$TMP/failing"
check_rc stop-rc 1
check_out_has stop-first "job 'a' started"
check_out_lacks stop-rest "job 'b'"
check_err_has stop-line "cellar: line 2: unknown job 'nosuchjob'"

# --keep-going runs the rest; the status stays non-zero.
run "$CELLAR" --keep-going -f "$TMP/failing"
check_rc keep-going-rc 1
check_out_has keep-going-rest "job 'b' started"
run "$CELLAR" -k -c 'frob; jobs; release nosuchjob; status'
check_rc keep-going-first-status 2
check_out_has keep-going-last "FIELD"

# Within -c, a failure stops the rest of the line too.
run "$CELLAR" -c 'release nosuchjob; status'
check_rc c-stop-rc 1
check_out c-stop ""

# Tokenizer errors are usage errors and name the line.
printf 'jobs\nalloc "unterminated --vc prod\n' >"$TMP/unterminated"
run "$CELLAR" -f "$TMP/unterminated"
check_rc unterminated-rc 2
check_err_has unterminated "cellar: line 2: unexpected end of input"
run "$CELLAR" -c "alloc 'x"
check_rc c-unterminated-rc 2
check_err_has c-unterminated "unterminated single quote"

# A quoted string may span lines in a file; errors name its first line.
printf "jobs\nrelease 'no\nsuch'\n" >"$TMP/multiline"
run "$CELLAR" -f "$TMP/multiline"
check_rc multiline-rc 1
check_err_has multiline "cellar: line 2: unknown job 'no"

# Missing file.
run "$CELLAR" -f /nonexistent/script
check_rc missing-file-rc 1
check_err_has missing-file "cannot open '/nonexistent/script'"

# Empty input is fine.
run_stdin '' "$CELLAR"
check_rc empty-stdin-rc 0
run_stdin '# only a comment

' "$CELLAR"
check_rc comment-only-rc 0

# A spec given with --spec is what batch commands see.
run "$CELLAR" --spec tests/fixtures/cmd/small.yaml -c 'status -o json'
check_json_field spec-option gpus 8

done_testing

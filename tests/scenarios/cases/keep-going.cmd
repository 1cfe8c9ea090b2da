#! -k
# --keep-going: every command runs; the exit status is the first failure's.
alloc a --vc prod --gpus 1 -o json
release nosuch
jobs -o name
spec check tests/fixtures/bad/syntax.yaml
frob
jobs -o name

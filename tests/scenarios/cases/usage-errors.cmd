#! -k
# Usage errors all exit 2 with a message naming the problem; -k runs them all.
frobnicate
s
node
alloc
alloc x --vc prod --gpus
alloc x --vc prod --gpus 1 --bogus
jobs --sort size
jobs --filter size=1
jobs --filter job<3
vcs --filter gpus>lots
cells r0n[1-
status -o yaml
status -o csv
help states -o csv
release 'unterminated

#! -o wide --db :memory:
# -o wide everywhere: extra columns where a command has them, its table
# where it has none.
alloc j --vc prod --gpus 2 --lazy
jobs
vcs --filter vc=prod
status
help --filter command=node*

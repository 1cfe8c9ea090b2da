# jobs: the state code, sorting (numeric, descending, several keys), filters
# (numeric, glob, alternatives, hostlist), and json in the same order.
alloc small --vc dev --gpus 1 -o json
alloc big --vc prod --gpus 8 --pods 2 -o json
alloc mid --vc research --gpus 4 --priority 5 -o json
alloc opp --vc dev --gpus 2 --opportunistic -o json
jobs
jobs --sort -gpus
jobs --sort vc,-priority -o name
jobs --filter gpus>=4 --sort job -o csv
jobs --filter class=opp* -o name
jobs --filter vc=dev,research --filter priority!=5 -o name
jobs --filter nodes=r1n[00-01] -o name
jobs --filter state=R --filter reason=- -o name
jobs --sort -gpus -o json --filter gpus>1

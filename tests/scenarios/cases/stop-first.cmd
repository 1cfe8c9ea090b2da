# Without -k, batch mode stops at the first failure.
alloc a --vc prod --gpus 1 -o json
load tests/fixtures/bad/unknown-type.yaml
jobs -o name

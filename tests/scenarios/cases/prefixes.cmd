#! -k
# Unique prefixes of commands, subcommands and long options; ambiguity
# lists the candidates.
vc -o name
n b r0n00 -o name
n o r0n00 -o name
he -o name --filter command=node*
jobs --so job
alloc x --vc prod --p 2
rel

# Hostlists: as arguments, in node bad/ok, in filters; a filtered or sorted
# tree is listed flat.
cells r0n[00-01] --depth 0
node bad r0n[00-02]
cells --depth 1 --filter node=r0n[01-03] --sort -bad,cell
cells r0n00 --filter level=1 --filter bad>0 -o wide
node ok r0n[00-02] -o name
cells r1n0[0-1] --depth 1 --sort -level -o name

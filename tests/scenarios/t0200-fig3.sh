#!/bin/sh
# t0200-fig3 — the HiveD paper's Figure 3 through batch commands: a rack of
# four 8-GPU nodes shared by tenants A and B (a socket, a PCIe switch and a
# GPU each) and C (two nodes and a switch). Opportunistic jobs fill every
# idle GPU first; then the nine legal requests, in several orders, must all
# succeed, each preempting only opportunistic jobs; a tenth must fail.
. tests/scenarios/lib.sh

SPEC=specs/hived-fig3.yaml
fill=""
i=0
while [ $i -lt 32 ]; do
	fill="$fill alloc o$i --vc C --gpus 1 --opportunistic;"
	i=$((i + 1))
done

# The nine requests, by index: A 4,2,1  B 4,2,1  C 8,8,2
req() {
	case $1 in
	0) echo "alloc a4 --vc A --gpus 4" ;; 1) echo "alloc a2 --vc A --gpus 2" ;;
	2) echo "alloc a1 --vc A --gpus 1" ;; 3) echo "alloc b4 --vc B --gpus 4" ;;
	4) echo "alloc b2 --vc B --gpus 2" ;; 5) echo "alloc b1 --vc B --gpus 1" ;;
	6) echo "alloc c8 --vc C --gpus 8" ;; 7) echo "alloc c8b --vc C --gpus 8" ;;
	8) echo "alloc c2 --vc C --gpus 2" ;;
	esac
}

n=0
for order in "0 1 2 3 4 5 6 7 8" "8 7 6 5 4 3 2 1 0" "2 5 8 1 4 7 0 3 6" \
    "6 0 3 7 1 4 8 2 5" "5 2 8 4 1 7 3 0 6" "1 8 3 6 0 5 7 2 4"; do
	n=$((n + 1))
	cmds="$fill"
	for k in $order; do
		cmds="$cmds $(req "$k");"
	done
	run "$CELLAR" --spec "$SPEC" -c "$cmds" -c 'vcs -o csv --no-header' -c 'jobs -o name'
	check_rc "order$n-all-succeed" 0
	check_out_has "order$n-A-full" "A,7,7,0,0,100.0"
	check_out_has "order$n-B-full" "B,7,7,0,0,100.0"
	check_out_has "order$n-C-full" "C,18,18,0,0,100.0"
	# every opportunistic job was preempted, no tenant job was
	case $OUT in
	*"
o"[0-9]*) not_ok "order$n-opp-gone" "an opportunistic job survived a full cluster" ;;
	*) ok "order$n-opp-gone" ;;
	esac
done

# The cluster is full of guaranteed work: one more GPU for A fails.
run "$CELLAR" --spec "$SPEC" -c "$(for k in 0 1 2 3 4 5 6 7 8; do req $k; echo ';'; done)" \
    -c 'alloc a-extra --vc A --gpus 1'
check_rc tenth-fails 1
check_err_has tenth-why "vc 'A'"

# Opportunistic jobs are the victims, by name, in JSON.
run "$CELLAR" --spec "$SPEC" -c "$fill" -c 'alloc c8 --vc C --gpus 8 -o json'
check_rc victims-rc 0
check_json_field victims-count victims.# 8 '$'
check_json_field victims-kind victims.0.kind preempt '$'

#!/bin/sh
# fake-trainer.sh STEPS [DELAY] — a stand-in for a training job: writes its
# pid, then "step N" lines to $TRAINER_DIR/JOB.POD.progress, one per DELAY
# seconds (SIGSTOP/SIGCONT just pause it), and exits 0 after STEPS steps.
# A checkpoint (JOB.POD.ckpt: a step number, written by the test's
# CELLAR_CHECKPOINT command) makes it go on after that step.
steps=${1:-10}
delay=${2:-0.1}
f="$TRAINER_DIR/$CELLAR_JOB.$CELLAR_POD"
echo $$ >"$f.pid"
echo "gpus=$CUDA_VISIBLE_DEVICES node=$CELLAR_NODE nodes=$CELLAR_NODES pods=$CELLAR_PODS" >"$f.env"
i=0
[ -s "$f.ckpt" ] && i=$(cat "$f.ckpt")
while [ $i -lt "$steps" ]; do
	i=$((i + 1))
	echo "step $i" >>"$f.progress"
	sleep "$delay"
done

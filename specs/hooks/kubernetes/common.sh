# common.sh — sourced by the kubernetes hooks: the pod's name and image.
# One Kubernetes pod per gang member, named cellar-JOB-ID-POD in DNS-1123
# form (lowercase; '_' and '.' become '-', which cellar's job names allow
# to collide: keep names distinct after that mapping). The job's id keeps
# a reused name off an older job's pod. $CELLAR_ENV_K8S_IMAGE (a
# job's --env) picks the image, else $CELLAR_K8S_IMAGE from the hook's
# environment; $CELLAR_K8S_NAMESPACE the namespace (default: kubectl's).
pod=$(printf 'cellar-%s-%s-%s' "$CELLAR_JOB" "$CELLAR_JOB_ID" "$CELLAR_POD" |
    tr 'A-Z' 'a-z' | tr '_.' '--')
ns=${CELLAR_K8S_NAMESPACE:+--namespace=$CELLAR_K8S_NAMESPACE}

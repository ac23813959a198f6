#!/bin/bash
# agent-pods.sh [PODS...]: what the agent keeps of its node's pods. For each pod count (default: 0 110), a mock API
# server (the test classes' MockApiServer, CRUD) holding the node, that many of NodePods' pods on it (ten holding a
# GPU; realistic specs, managed fields and status, ~7 KB of JSON each) and, with AGENT_DRA=1, resource.k8s.io/v1 and
# the node's ResourceSlice of 8 GPUs; then the agent as in production (./gpu-detect agent, its own JVM flags,
# informers on its Node, pods, record and slices) replaying AGENT_REPLAY (default: the H100 live bundle), a pass a
# second, measured by bench/agent-live.sh after 10 passes for SECONDS (default 20): CPU per pass, RSS, and the
# heap's live objects after a full collection. Needs the build bench/run.sh makes (mvn package with the test class
# path file); run it by hand, it is no test. Results in bench/target/agent-pods/.
set -eu
cd "$(dirname "$0")/.."
out=bench/target/agent-pods
mkdir -p "$out"
cp="agent/cli/target/test-classes:agent/cli/target/classes:test-fixtures/target/test-classes:$(cat agent/cli/target/test.classpath)"
replay=${AGENT_REPLAY:-test-fixtures/live-bundles/h100-sxm5-80gb_580.159.04_vm}
seconds=${SECONDS_MEASURED:-20}
[ $# -gt 0 ] || set -- 0 110
for pods in "$@"; do
    run=$out/pods-$pods${AGENT_DRA:+-dra}
    mkdir -p "$run"
    rm -f "$run/kubeconfig.mock"
    java -cp "$cp" io.gpudetect.testing.MockApiServer "$run/kubeconfig.mock" bench "$pods" ${AGENT_DRA:+dra} \
        >"$run/mock.log" 2>&1 &
    mock=$!
    n=0; while [ ! -s "$run/kubeconfig.mock" ] && [ "$n" -lt 300 ]; do sleep 0.2; n=$((n + 1)); done
    echo "pods $pods${AGENT_DRA:+ (DRA slice)}:"
    AGENT_KUBECONFIG="$run/kubeconfig.mock" AGENT_HEAP=1 bench/agent-live.sh ./gpu-detect "$run" "$seconds" \
        ${AGENT_ARGS:---replay $replay} | sed 's/^/  /'
    kill "$mock" 2>/dev/null || true
    wait "$mock" 2>/dev/null || true
done

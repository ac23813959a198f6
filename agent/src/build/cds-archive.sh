#!/bin/sh
# Builds the class-data-sharing archives the ./gpu-detect launcher uses: a training run records the
# classes it loads, so later runs map them instead of loading and verifying them again.
# - TARGET/gpu-detect.jsa: one replayed detection, for the one-shot command;
# - TARGET/gpu-detect-agent.jsa: one dry-run agent pass (fabric8's client and model classes, the label
#   profiles, the record), for `gpu-detect agent`.
# Each archive is trained with the flags its launcher mode uses (src/build/*-jvm.flags): an archive only
# serves a JVM started the same way. Run by Maven at package time; a failure only costs speed.
# Usage: cds-archive.sh TARGET_DIR JAR BUNDLE_DIR AGENT_BUNDLE_DIR
target=$1 jar=$2 bundle=$3 agent_bundle=$4
here=$(cd "$(dirname "$0")" && pwd)
java=${JAVA_HOME:+$JAVA_HOME/bin/}java
rm -f "$target/gpu-detect.jsa" "$target/gpu-detect-agent.jsa"
# shellcheck disable=SC2046 # the flags are words
if ! "$java" -XX:ArchiveClassesAtExit="$target/gpu-detect.jsa" $(cat "$here/command-jvm.flags") \
        -jar "$jar" --replay "$bundle" --output json >/dev/null 2>"$target/cds-archive.log"; then
    echo "gpu-detect: CDS archive not built (see $target/cds-archive.log); the launcher runs without it" >&2
    rm -f "$target/gpu-detect.jsa"
fi
# The agent's training pass has no cluster: a kubeconfig naming a closed port makes the dry run print
# every label as new, which still loads the client, its model and the JSON it writes.
kubeconfig="$target/cds-training.kubeconfig"
cat >"$kubeconfig" <<'KUBECONFIG'
apiVersion: v1
kind: Config
clusters: [{name: none, cluster: {server: "http://127.0.0.1:1"}}]
users: [{name: none, user: {token: none}}]
contexts: [{name: none, context: {cluster: none, user: none}}]
current-context: none
KUBECONFIG
# shellcheck disable=SC2046
if ! KUBECONFIG="$kubeconfig" "$java" -XX:ArchiveClassesAtExit="$target/gpu-detect-agent.jsa" \
        $(cat "$here/agent-jvm.flags") -jar "$jar" agent --node cds-training --replay "$agent_bundle" --once \
        --dry-run --port -1 >/dev/null 2>"$target/cds-archive-agent.log"; then
    echo "gpu-detect: agent CDS archive not built (see $target/cds-archive-agent.log); the agent runs without it" >&2
    rm -f "$target/gpu-detect-agent.jsa"
fi
exit 0

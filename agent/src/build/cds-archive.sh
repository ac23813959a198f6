#!/bin/sh
# Builds the class-data-sharing archives the ./gpu-detect launcher uses. A training run lists the classes
# it loads; a static dump (-Xshare:dump) then writes them, the JDK's own classes included, into one archive
# that later runs map instead of loading and verifying classes again. A static archive also keeps the
# pre-generated method-handle forms that lambdas and string concatenation need, which a dynamic archive
# (-XX:ArchiveClassesAtExit) leaves to be spun at every start.
# - TARGET/gpu-detect.jsa: one replayed detection, for the one-shot command;
# - TARGET/gpu-detect-agent.jsa: one dry-run agent pass (fabric8's client and model classes, the label
#   profiles, the record), for `gpu-detect agent`.
# Each archive is made with the flags its launcher mode uses (src/build/*-jvm.flags): an archive only
# serves a JVM started the same way. Run by Maven at package time; a failure only costs speed.
# Usage: cds-archive.sh TARGET_DIR JAR BUNDLE_DIR AGENT_BUNDLE_DIR
target=$1 jar=$2 bundle=$3 agent_bundle=$4
here=$(cd "$(dirname "$0")" && pwd)
java=${JAVA_HOME:+$JAVA_HOME/bin/}java

# archive NAME FLAGS_FILE COMMAND_ARGS...: trains, then dumps TARGET/NAME.jsa; logs in TARGET/NAME-cds.log.
archive() {
    name=$1 flags=$(cat "$2")
    shift 2
    rm -f "$target/$name.jsa" "$target/$name.classlist"
    # shellcheck disable=SC2086 # the flags are words
    if "$java" -Xshare:off -XX:DumpLoadedClassList="$target/$name.classlist" $flags -jar "$jar" "$@" \
            >/dev/null 2>"$target/$name-cds.log" \
        && "$java" -Xshare:dump -XX:SharedClassListFile="$target/$name.classlist" \
            -XX:SharedArchiveFile="$target/$name.jsa" $flags -jar "$jar" >>"$target/$name-cds.log" 2>&1; then
        return 0
    fi
    echo "gpu-detect: CDS archive $name.jsa not built (see $target/$name-cds.log); the launcher runs without it" >&2
    rm -f "$target/$name.jsa"
}

archive gpu-detect "$here/command-jvm.flags" --replay "$bundle" --output json
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
export KUBECONFIG="$kubeconfig"
archive gpu-detect-agent "$here/agent-jvm.flags" \
    agent --node cds-training --replay "$agent_bundle" --once --dry-run --port -1
exit 0

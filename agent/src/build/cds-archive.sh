#!/bin/sh
# Builds the class-data-sharing archive the ./gpu-detect launcher uses: one training run of a replayed
# detection records the classes it loads into TARGET/gpu-detect.jsa, so later runs map them instead of
# loading and verifying them again. Run by Maven at package time; a failure only costs speed.
# Usage: cds-archive.sh TARGET_DIR JAR BUNDLE_DIR
target=$1 jar=$2 bundle=$3
java=${JAVA_HOME:+$JAVA_HOME/bin/}java
rm -f "$target/gpu-detect.jsa"
# The flags must be the launcher's: an archive only serves a JVM started the same way.
if ! "$java" -XX:ArchiveClassesAtExit="$target/gpu-detect.jsa" -XX:TieredStopAtLevel=1 -XX:+UseSerialGC \
        -Xss512k -XX:MaxRAM=256m -jar "$jar" --replay "$bundle" --output json >/dev/null 2>"$target/cds-archive.log"; then
    echo "gpu-detect: CDS archive not built (see $target/cds-archive.log); the launcher runs without it" >&2
    rm -f "$target/gpu-detect.jsa"
fi
exit 0

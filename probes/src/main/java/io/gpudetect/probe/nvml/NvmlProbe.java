package io.gpudetect.probe.nvml;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import io.gpudetect.model.Diagnostic;
import io.gpudetect.nvml.NvmlPulse;
import io.gpudetect.nvml.NvmlScope;
import io.gpudetect.nvml.NvmlSnapshot;
import io.gpudetect.probe.Probe;
import io.gpudetect.probe.ProbeResult;
import io.gpudetect.probe.ProbeRole;
import io.gpudetect.source.RecordingSource;
import io.gpudetect.source.Source;
import io.gpudetect.source.ToolCommand;
import io.gpudetect.source.ToolResult;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;

/**
 * NVIDIA GPUs as NVML sees them: the richest and fastest source, first in merge precedence. On a live
 * host it asks the library through an {@link NvmlScope} (and, when recording, writes the answer to the
 * bundle as {@code nvml.json}); on a recorded bundle it reads {@code nvml.json}. Either way the same
 * {@link NvmlGpus#interpret} turns the snapshot into GPUs, so a replay shows what the host showed.
 */
public final class NvmlProbe implements Probe {

    public static final String PROBE = "nvml";
    /** Exists only in bundles: a live host is asked through the library, not a command. */
    public static final ToolCommand SNAPSHOT = ToolCommand.bundleOnly("nvml.json");

    private final NvmlScope live;
    private final Duration timeout;
    /**
     * The thread NVML is asked on: made at the first ask and kept. A native call cannot be interrupted, so one that
     * does not come back keeps this thread; the asks after it wait for it, each given up at its own time limit and
     * dropped if not started. A thread of its own for each ask left one more thread blocked behind a hung library
     * at every pass, and cost ~90 us more CPU an ask in the agent's interpreter (docs/performance.md, "Start-up and
     * footprint tricks", row "one thread for NVML's calls"); {@link NvmlCaller} hands over with a monitor rather than
     * an executor's queue and future.
     */
    private final NvmlCaller caller = new NvmlCaller("nvml-probe");

    public NvmlProbe(NvmlScope live, Duration timeout) {
        this.live = live;
        this.timeout = timeout;
    }

    @Override
    public String name() {
        return PROBE;
    }

    @Override
    public ProbeRole role() {
        return ProbeRole.NVIDIA_LIBRARY;
    }

    @Override
    public ProbeResult probe(Source source) {
        String file = SNAPSHOT.bundleFile();
        if (source.isRecorded()) {
            return replay(source, file);
        }
        NvmlSnapshot snapshot;
        try {
            snapshot = withTimeout(live::snapshot);
        } catch (TimeoutException e) {
            return ProbeResult.failed(PROBE, Diagnostic.error(PROBE, file, null, "NVML did not answer within "
                    + timeout.toMillis() + " ms (a GPU may be wedged); nothing read from it"));
        } catch (ExecutionException e) {
            return ProbeResult.failed(PROBE, Diagnostic.error(PROBE, file, null, "reading NVML failed: " + e.getCause()));
        }
        if (source instanceof RecordingSource recording) {
            recording.writeBundleFile(file, NvmlSnapshotJson.write(snapshot));
        }
        return NvmlGpus.interpret(snapshot, file);
    }

    /**
     * On a live host, what can have changed since the last detection ({@link NvmlPulse}), for an agent's steady
     * pass; on a recorded bundle, which does not change, nothing. A pulse that does not come within the time limit
     * is a pulse that differs from every other.
     */
    public Optional<NvmlPulse> pulse(Source source) {
        if (source.isRecorded()) {
            return Optional.empty();
        }
        try {
            return Optional.of(withTimeout(live::pulse));
        } catch (TimeoutException | ExecutionException e) {
            return Optional.of(new NvmlPulse("no answer within " + timeout.toMillis() + " ms: " + e, null, List.of()));
        }
    }

    /** The answer to {@code read}, asked on {@link #caller}, or a timeout that leaves nothing queued behind it. */
    private <T> T withTimeout(Callable<T> read) throws TimeoutException, ExecutionException {
        return caller.call(read, timeout.toMillis());
    }

    private static ProbeResult replay(Source source, String file) {
        ToolResult result = source.run(SNAPSHOT);
        if (result instanceof ToolResult.Absent absent) {
            return ProbeResult.absent(PROBE, absent.reason() == null ? null
                    : Diagnostic.info(PROBE, file, absent.reason()));
        }
        if (!(result instanceof ToolResult.Completed done)) {
            String why = result instanceof ToolResult.Failed f ? f.reason() : "recorded as timed out";
            return ProbeResult.failed(PROBE, Diagnostic.error(PROBE, file, null, why));
        }
        NvmlSnapshot snapshot;
        try {
            snapshot = NvmlSnapshotJson.read(done.stdout());
        } catch (JsonProcessingException e) {
            JsonLocation at = e.getLocation();
            return ProbeResult.failed(PROBE, Diagnostic.error(PROBE, file, at == null || at.getLineNr() < 1 ? null : at.getLineNr(),
                    "not an NVML snapshot as 'gpu-detect record' writes it: " + e.getOriginalMessage()));
        }
        return NvmlGpus.interpret(snapshot, file);
    }
}

package io.gpudetect.sink;

import java.io.IOException;
import java.util.Optional;

/**
 * One write target of the agent: the node's labels, the NFD features file, the NFD {@code NodeFeature}
 * object, the {@code GpuCapacity} record. A pass asks each target to {@link #read} what it holds, then
 * {@link #decide}s (a pure function) the change from that and the pass's {@link DesiredState}, and hands the
 * change to an {@link Applier}: the only place where something is written.
 *
 * @param <S> what the target holds now, as read
 * @param <C> the target's change value
 */
public interface Sink<S, C extends Change> {

    /** The target's name in metrics and logs: {@code node}, {@code nfd-file}, {@code nodefeature}, {@code gpucapacity}. */
    String name();

    /** What the target holds now; reads, never writes. {@code desired} only says what need not be read. */
    S read(DesiredState desired) throws IOException;

    /** The change that brings the target from {@code current} to {@code desired}. Pure: reads and writes nothing. */
    C decide(S current, DesiredState desired);

    /** Makes the change; returns how many API requests it sent. Only called for a change that {@link Change#writes()}. */
    int apply(C change) throws IOException;

    /**
     * After {@link #apply} was refused with HTTP status {@code refusal}: the target read again, to decide once
     * more, when the refusal says the decision was made from a state that has since moved on (the
     * {@code attempt}-th refusal in this pass); empty when the refusal stands.
     */
    default Optional<S> reread(S current, int refusal, int attempt) {
        return Optional.empty();
    }
}

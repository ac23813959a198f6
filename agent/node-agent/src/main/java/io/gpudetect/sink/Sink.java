package io.gpudetect.sink;

import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.IOException;
import java.util.Optional;

/**
 * One write target of the agent: the node's labels, the NFD features file, the NFD {@code NodeFeature}
 * object, the {@code GpuCapacity} record. A pass asks each sink to {@link #decide} from what the pass
 * produced and what the target holds now, then hands the change to an {@link Applier}: the only place
 * where something is written.
 *
 * @param <C> the sink's change value
 */
public interface Sink<C extends Change> {

    /** The target's name in metrics and logs: {@code node}, {@code nfd-file}, {@code nodefeature}, {@code gpucapacity}. */
    String name();

    /** The change that brings the target to {@code output}. Reads the target's state, never writes it. */
    C decide(PassOutput output) throws IOException;

    /** Makes the change; returns how many API requests it sent. Only called for a change that {@link Change#writes()}. */
    int apply(C change) throws IOException;

    /**
     * After {@link #apply} was refused: the output with the target read again, to decide once more, when
     * the refusal says the decision was made from a state that has since moved on (the {@code attempt}-th
     * refusal in this pass); empty when the refusal stands.
     */
    default Optional<PassOutput> reread(PassOutput output, KubernetesClientException refusal, int attempt) {
        return Optional.empty();
    }
}

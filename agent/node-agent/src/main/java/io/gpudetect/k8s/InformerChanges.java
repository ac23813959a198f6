package io.gpudetect.k8s;

import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Counts the changes an informer hands its handlers, so that a pass can reuse what it made of the informer's store
 * while the count is the same. fabric8 changes the store before it hands the change on: a pass that read the count
 * before a change reads the store again at the next pass, never later.
 */
public final class InformerChanges<T> implements ResourceEventHandler<T> {

    private final AtomicLong count = new AtomicLong();

    /** How many adds, updates and deletes the informer has handed on so far. */
    public long count() {
        return count.get();
    }

    @Override
    public void onAdd(T object) {
        count.incrementAndGet();
    }

    @Override
    public void onUpdate(T before, T after) {
        count.incrementAndGet();
    }

    @Override
    public void onDelete(T object, boolean finalStateUnknown) {
        count.incrementAndGet();
    }
}

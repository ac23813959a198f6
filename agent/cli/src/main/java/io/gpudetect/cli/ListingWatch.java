package io.gpudetect.cli;

import io.fabric8.kubernetes.client.http.AsyncBody;
import io.fabric8.kubernetes.client.http.BasicBuilder;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.Interceptor;
import io.gpudetect.match.CapacityRecordOffers.RecordStore;
import io.gpudetect.match.InvalidInputException;
import io.gpudetect.match.RecordSet;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;

/**
 * A bound on how long a {@code --cluster} command waits for the list it pages through to move on: without it, a
 * page whose answer stops half-way was waited for for ever.
 *
 * <p>Why it is needed: the client's request timeout ({@link ClusterOption#REQUEST_TIMEOUT}) ends only the wait for
 * the answer's headers. After them, fabric8's {@code list()} waits without a limit for the page's future, which
 * completes when the body has been read and joined into one array, in a callback on the HTTP client's thread. A
 * body that stops coming (a server or a proxy that stalls mid-page) never completes it; nor does an {@code Error}
 * thrown in that callback (a {@code StackOverflowError}: the callback's own future swallows it, and nothing reads
 * that one), so the command waited for ever. ({@code OutOfMemoryError} there ends the JVM at once:
 * {@code -XX:+ExitOnOutOfMemoryError} in the command's flags.)
 *
 * <p>How: as an interceptor on the client, it notes each request sent and each piece of a body received; a watcher
 * thread interrupts the thread that lists once nothing of the kind has happened for {@link #limit}. fabric8 turns
 * the interrupt of its wait into an exception, and the command ends with one line that names the list, the page,
 * the server and what to do, exit status 2 as for any cluster that cannot be read. Progress, not a page's whole
 * time, is bounded: a page of 500 Nodes (10 MB) coming slowly over a thin link is not cut off.
 */
final class ListingWatch implements Interceptor {

    /** The name the interceptor is registered under in the HTTP client. */
    static final String NAME = "gpu-detect-listing-watch";

    private final Duration limit;
    private final Object lock = new Object();
    /** When the list last moved on (System.nanoTime): a request sent, a piece of a body received. */
    private long moved;
    /** The path of the list being read ({@code /api/v1/nodes}), and how many pages of it were asked for. */
    private String listing;
    private int page;
    /** True while a listing runs under {@link #bounded}; the watcher interrupts only then. */
    private boolean watching;
    /** Set by the watcher when it interrupted the listing: the line to end the command with. */
    private String stalled;

    ListingWatch(Duration limit) {
        this.limit = limit;
    }

    @Override
    public void before(BasicBuilder builder, HttpRequest request, RequestTags tags) {
        String path = request.uri().getPath();
        synchronized (lock) {
            page = path.equals(listing) ? page + 1 : 1;
            listing = path;
            moved = System.nanoTime();
        }
    }

    @Override
    public AsyncBody.Consumer<List<ByteBuffer>> consumer(AsyncBody.Consumer<List<ByteBuffer>> consumer,
            HttpRequest request) {
        return new AsyncBody.Consumer<>() {
            @Override
            public void consume(List<ByteBuffer> buffers, AsyncBody body) throws Exception {
                synchronized (lock) {
                    moved = System.nanoTime();
                }
                consumer.consume(buffers, body);
            }

            @Override
            public <U> U unwrap(Class<U> type) {
                // fabric8's logging interceptor finds its own consumer through the ones wrapped around it.
                return type.isInstance(this) ? type.cast(this) : consumer.unwrap(type);
            }
        };
    }

    /** {@code store}, each of its reads bounded as {@link #bounded} says; {@code server} is named in the error. */
    RecordStore guard(RecordStore store, String server) {
        return new RecordStore() {
            @Override
            public RecordSet records() throws InvalidInputException {
                return bounded(server, store::records);
            }

            @Override
            public <T> RecordSet.Kept<T> records(RecordSet.Keep<T> keep) throws InvalidInputException {
                return bounded(server, () -> store.records(keep));
            }

            @Override
            public String describe() {
                return store.describe();
            }
        };
    }

    /** A read of the cluster, run on the calling thread. */
    @FunctionalInterface
    interface Listing<T> {
        T list() throws InvalidInputException;
    }

    /**
     * Runs {@code listing} on the calling thread, which is interrupted when the list has not moved on for
     * {@link #limit}; it then fails with one line naming the list, the page and {@code server}. No interrupt is left
     * pending when this returns.
     */
    <T> T bounded(String server, Listing<T> listing) throws InvalidInputException {
        Thread lister = Thread.currentThread();
        synchronized (lock) {
            moved = System.nanoTime();
            watching = true;
            stalled = null;
        }
        Thread watcher = new Thread(() -> watch(lister, server), "gpu-detect-listing-watch");
        watcher.setDaemon(true);
        watcher.start();
        try {
            return listing.list();
        } catch (InvalidInputException | RuntimeException e) {
            String line = stop();
            if (line != null) {
                throw new InvalidInputException(null, null, null, line);
            }
            throw e;
        } finally {
            stop();
        }
    }

    /** Ends the watch; an interrupt the watcher sent is cleared. Returns the watcher's line, if it interrupted. */
    private String stop() {
        synchronized (lock) {
            watching = false;
            lock.notifyAll();
            if (stalled != null) {
                // Under the lock: the watcher interrupts only while watching, so nothing can arrive after this.
                Thread.interrupted();
            }
            return stalled;
        }
    }

    private void watch(Thread lister, String server) {
        synchronized (lock) {
            while (watching) {
                long left = limit.toNanos() - (System.nanoTime() - moved);
                if (left <= 0) {
                    stalled = stalledLine(server);
                    lister.interrupt();
                    return;
                }
                try {
                    lock.wait(Math.max(1, left / 1_000_000));
                } catch (InterruptedException e) {
                    return;
                }
            }
        }
    }

    /** The line for a list that has not moved on for {@link #limit}; called under the lock. */
    private String stalledLine(String server) {
        String at = server.endsWith("/") ? server.substring(0, server.length() - 1) : server;
        String what = listing == null ? "the cluster's objects"
                : listing.substring(listing.lastIndexOf('/') + 1) + " (page " + page + ")";
        return "listing " + what + " from the Kubernetes API at " + at + " stopped: nothing came for "
                + limit.toSeconds() + " s (a stalled server, proxy or connection, or a failure inside the client); run "
                + "the command again, and if it stops again check the API server: kubectl get --raw='/readyz?verbose'";
    }
}

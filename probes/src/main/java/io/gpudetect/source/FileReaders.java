package io.gpudetect.source;

import java.io.File;
import java.io.FileInputStream;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The threads that read files for a {@link LiveSource}, so that a read that never returns (a device's config space on
 * a GPU fallen off the bus, a named pipe) cannot hold up its caller: a caller waits for its read up to a limit, then
 * leaves it to its thread. A thread per read under way, started when none is idle; an idle thread ends after
 * {@link #KEEP_ALIVE_NANOS}, and all are daemons, so nothing needs closing.
 *
 * <p>A read is handed over and waited for under this object's monitor. A {@code ThreadPoolExecutor} with a
 * {@code SynchronousQueue} did the same through a {@code FutureTask}, whose compare-and-sets are {@code VarHandle}s
 * that the agent's interpreter runs through method handles: the agent reads a non-NVIDIA GPU's {@code config} at every
 * steady pass (a server's BMC VGA is one), and that hand-over, with {@code Files.newInputStream}'s channel, was ~0.2 ms
 * of the file-read thread and ~0.07 ms of the pass thread a read (docs/performance.md, "The steady pass on a real
 * server's sysfs, again"). The read itself is a {@code FileInputStream}'s: a blocked open of a named pipe is let go by
 * {@link LiveSource} opening the pipe for writing; a thread stuck in a device's read cannot be freed by any means.
 */
final class FileReaders {

    /** How long an idle thread waits for the next read before it ends. */
    static final long KEEP_ALIVE_NANOS = TimeUnit.SECONDS.toNanos(5);

    /** Reads handed over and not yet taken by a thread, oldest first. */
    private final ArrayDeque<Read> waiting = new ArrayDeque<>();
    /** Threads waiting for a read. */
    private int idle;

    /** One read: its file and how much of it; then what it answered, set by its thread under the monitor. */
    private static final class Read {
        final File file;
        final int maxBytes;
        boolean done;
        /** The bytes read; null when the file was not there. */
        byte[] bytes;
        IOException error;

        Read(File file, int maxBytes) {
            this.file = file;
            this.maxBytes = maxBytes;
        }
    }

    /**
     * At most {@code maxBytes} of {@code file}, read on one of these threads; empty when it is not there.
     *
     * @throws TimeoutException when it has not answered within {@code limitNanos} (the read is left to its thread)
     */
    Optional<byte[]> read(File file, int maxBytes, long limitNanos)
            throws IOException, TimeoutException, InterruptedException {
        Read r = new Read(file, maxBytes);
        synchronized (this) {
            waiting.add(r);
            if (waiting.size() > idle) {
                start();
            } else {
                notifyAll();
            }
            long deadline = System.nanoTime() + limitNanos;
            try {
                while (!r.done) {
                    long left = deadline - System.nanoTime();
                    if (left <= 0) {
                        waiting.remove(r);   // not taken yet: no thread will read it
                        throw new TimeoutException();
                    }
                    wait(millis(left));
                }
            } catch (InterruptedException e) {
                waiting.remove(r);
                throw e;
            }
        }
        if (r.error != null) {
            throw r.error;
        }
        return Optional.ofNullable(r.bytes);
    }

    private void start() {
        // A class, not a method reference: every command reads files, and a reference's invokedynamic is
        // bootstrapped at its first use on each start (docs/performance.md, "Start-up and footprint tricks").
        Thread t = new Thread(new Runnable() {
            @Override
            public void run() {
                work();
            }
        }, "file-read");
        t.setDaemon(true);
        t.start();
    }

    private void work() {
        while (true) {
            Read r;
            synchronized (this) {
                long deadline = System.nanoTime() + KEEP_ALIVE_NANOS;
                while (waiting.isEmpty()) {
                    long left = deadline - System.nanoTime();
                    if (left <= 0) {
                        return;
                    }
                    idle++;
                    try {
                        wait(millis(left));
                    } catch (InterruptedException e) {
                        return;   // nothing interrupts these threads but the JVM's end
                    } finally {
                        idle--;
                    }
                }
                r = waiting.poll();
            }
            run(r);
            synchronized (this) {
                r.done = true;
                notifyAll();
            }
        }
    }

    private static void run(Read r) {
        try (InputStream in = new FileInputStream(r.file)) {
            r.bytes = readAtMost(in, r.maxBytes);
        } catch (FileNotFoundException e) {
            if (r.file.exists()) {
                r.error = e;   // there, but not to be opened: its reason (permission, a folder) is in the message
            }
        } catch (IOException e) {
            r.error = e;
        } catch (RuntimeException e) {
            r.error = new IOException(r.file + ": " + e, e);
        }
    }

    /**
     * At most {@code maxBytes} of {@code in}, to its end. Not {@code FileInputStream.readNBytes}: it asks the file's
     * length and position first, which a named pipe or a character device answers with an error ("Illegal seek").
     */
    static byte[] readAtMost(InputStream in, int maxBytes) throws IOException {
        byte[] buf = new byte[Math.min(maxBytes, 8192)];
        int n = 0;
        while (n < maxBytes) {
            if (n == buf.length) {
                buf = Arrays.copyOf(buf, (int) Math.min(maxBytes, 2L * buf.length));
            }
            int read = in.read(buf, n, buf.length - n);
            if (read < 0) {
                break;
            }
            n += read;
        }
        return n == buf.length ? buf : Arrays.copyOf(buf, n);
    }

    /** {@code nanos} as the milliseconds {@code wait} takes, at least 1 (0 would wait for ever). */
    private static long millis(long nanos) {
        return Math.max(1, TimeUnit.NANOSECONDS.toMillis(nanos));
    }
}

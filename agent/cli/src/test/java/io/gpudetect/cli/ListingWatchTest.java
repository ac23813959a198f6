package io.gpudetect.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.gpudetect.match.InvalidInputException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.Test;

/**
 * {@link ListingWatch#bounded} on its own: the wait it ends, the line it ends it with, and no interrupt left behind
 * for the command's next blocking call (writing its output) to trip on. The end-to-end cases, through fabric8's
 * client, are in {@link ClusterFailureTest}.
 */
class ListingWatchTest {

    /** What fabric8's {@code waitForResult} does with an interrupted wait: the flag set again, an exception thrown. */
    private static Void waitForEver() {
        try {
            new CompletableFuture<Void>().get();
            throw new AssertionError("a future nobody completes completed");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        } catch (ExecutionException e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void aWaitThatNeverEndsIsEndedWithOneLineAndNoInterruptLeft() {
        ListingWatch watch = new ListingWatch(Duration.ofSeconds(1));
        InvalidInputException e = assertTimeoutPreemptively(Duration.ofSeconds(15), () -> {
            InvalidInputException thrown = assertThrows(InvalidInputException.class,
                    () -> watch.bounded("https://api.example:6443/", ListingWatchTest::waitForEver));
            assertFalse(Thread.currentThread().isInterrupted(), "an interrupt left pending");
            return thrown;
        });
        assertEquals("listing the cluster's objects from the Kubernetes API at https://api.example:6443 stopped: nothing "
                + "came for 1 s (a stalled server, proxy or connection, or a failure inside the client); run the command "
                + "again, and if it stops again check the API server: kubectl get --raw='/readyz?verbose'", e.getMessage());
    }

    @Test
    void aListingThatEndsIsLeftAloneAndTheWatchCanBeUsedAgain() throws InvalidInputException, InterruptedException {
        ListingWatch watch = new ListingWatch(Duration.ofSeconds(1));
        assertEquals("read", watch.bounded("https://api.example:6443", () -> "read"));
        // Longer than the bound: a watcher left running after the read would interrupt this thread now.
        Thread.sleep(1_500);
        assertFalse(Thread.currentThread().isInterrupted(), "interrupted after the read had ended");
        assertEquals("again", watch.bounded("https://api.example:6443", () -> "again"));
    }
}

package io.gpudetect.k8s;

import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.http.AsyncBody;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.HttpResponse;
import io.fabric8.kubernetes.client.http.Interceptor;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Remembers the longest {@code Retry-After} the API server asked for since it was last taken, so the
 * agent's loop can wait at least that long before the next pass.
 *
 * <p>Why an HTTP interceptor: the API server's overload filters (priority and fairness, max-in-flight)
 * answer 429 with a {@code Retry-After} header and a plain-text body, so the exception fabric8 raises
 * carries no delay; only the response does. A 429 or 503 that comes as a {@code Status} object with
 * {@code details.retryAfterSeconds} is read from the exception as well ({@link #fromException}).
 */
public final class RetryAfterHint implements Interceptor {

    /** The name the interceptor is registered under in the HTTP client. */
    public static final String NAME = "gpu-detect-retry-after";
    /** No server gets to park the agent for longer than this on one answer. */
    static final long MAX_SECONDS = 600;

    private final AtomicLong seconds = new AtomicLong();

    @Override
    public void after(HttpRequest request, HttpResponse<?> response, AsyncBody.Consumer<List<ByteBuffer>> consumer) {
        if (response.code() == 429 || response.code() == 503) {
            record(parseSeconds(response.header("Retry-After")));
        }
    }

    /** Records a delay the server asked for; the longest one until {@link #take()} wins. */
    public void record(long delaySeconds) {
        if (delaySeconds > 0) {
            seconds.accumulateAndGet(Math.min(delaySeconds, MAX_SECONDS), Math::max);
        }
    }

    /** Records the delay a {@code Status} in the exception asks for, if any. */
    public void fromException(KubernetesClientException e) {
        Status status = e.getStatus();
        if (status != null && status.getDetails() != null && status.getDetails().getRetryAfterSeconds() != null) {
            record(status.getDetails().getRetryAfterSeconds());
        }
    }

    /** The delay asked for since the last call (zero when none), and forgets it. */
    public Duration take() {
        return Duration.ofSeconds(seconds.getAndSet(0));
    }

    /**
     * {@code Retry-After} as delta-seconds; an HTTP date (which the API server never sends) or garbage counts as
     * no hint: the loop waits its interval.
     */
    static long parseSeconds(String value) {
        if (value == null) {
            return 0;
        }
        try {
            return Math.max(0, Long.parseLong(value.strip()));
        } catch (NumberFormatException e) {
            return 0;
        }
    }
}

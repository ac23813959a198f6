package io.gpudetect.k8s;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class RetryAfterHintTest {

    @Test
    void keepsTheLongestDelayUntilTakenAndCapsIt() {
        RetryAfterHint hint = new RetryAfterHint();
        assertEquals(Duration.ZERO, hint.take());
        hint.record(RetryAfterHint.parseSeconds("3"));
        hint.record(RetryAfterHint.parseSeconds(" 7 "));
        hint.record(RetryAfterHint.parseSeconds("1"));
        assertEquals(Duration.ofSeconds(7), hint.take());
        assertEquals(Duration.ZERO, hint.take(), "taken once");
        hint.record(RetryAfterHint.parseSeconds("86400"));
        assertEquals(Duration.ofSeconds(RetryAfterHint.MAX_SECONDS), hint.take());
    }

    @Test
    void ignoresDatesGarbageAndNegativeValues() {
        assertEquals(0, RetryAfterHint.parseSeconds("Wed, 21 Oct 2015 07:28:00 GMT"));
        assertEquals(0, RetryAfterHint.parseSeconds("-5"));
        assertEquals(0, RetryAfterHint.parseSeconds(""));
        assertEquals(0, RetryAfterHint.parseSeconds(null));
    }

    @Test
    void readsRetryAfterSecondsFromAStatus() {
        RetryAfterHint hint = new RetryAfterHint();
        hint.fromException(new KubernetesClientException(new StatusBuilder().withCode(429).withNewDetails()
                .withRetryAfterSeconds(4).endDetails().build()));
        assertEquals(Duration.ofSeconds(4), hint.take());
        hint.fromException(new KubernetesClientException("no status"));
        assertEquals(Duration.ZERO, hint.take());
    }
}

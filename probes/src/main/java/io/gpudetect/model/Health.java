package io.gpudetect.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.ArrayList;
import java.util.List;

/**
 * What the tools said about a card's state, in one vocabulary for every vendor: {@code ok} when a tool answered
 * and saw nothing wrong; {@code degraded} when it still works but needs a look (correctable errors past a
 * threshold, pages or rows pending retirement, a PCIe link on fewer lanes, clocks held down by a hardware
 * slowdown); {@code failed} when work on it fails (a critical Xid, an uncorrectable ECC error, a row-remap
 * failure, an AMD RAS uncorrectable count); {@code lost} when it fell off the bus or needs a reset.
 * {@code reasons} holds each cause as a code ({@link HealthReason}), {@code problems} each in words.
 */
@JsonInclude(JsonInclude.Include.NON_EMPTY)
public record Health(Status status, Long eccUncorrectedErrors, List<String> problems, List<HealthReason> reasons) {

    /** The states, from best to worst: {@link #compareTo} orders them so. */
    public enum Status {
        OK, DEGRADED, FAILED, LOST;

        @JsonValue
        public String id() {
            return EnumIds.id(this);
        }

        /** The worse of the two; a null stands for "not known" and loses to any state. */
        public Status worse(Status other) {
            return other == null || other.compareTo(this) <= 0 ? this : other;
        }
    }

    public Health {
        problems = problems == null ? List.of() : List.copyOf(problems);
        reasons = reasons == null ? List.of() : List.copyOf(reasons);
    }

    /** A health without reason codes, as the tools that give only a state and words write it. */
    public Health(Status status, Long eccUncorrectedErrors, List<String> problems) {
        this(status, eccUncorrectedErrors, problems, List.of());
    }

    public static Health ok() {
        return new Health(Status.OK, null, List.of());
    }

    /**
     * The health that follows from the reasons: the worst state any of them leads to, {@code ok} with none.
     * Each reason is kept once, in the order given.
     */
    public static Health of(List<HealthReason> reasons, Long eccUncorrectedErrors, List<String> problems) {
        Status status = Status.OK;
        List<HealthReason> distinct = new ArrayList<>();
        for (HealthReason r : reasons) {
            status = status.worse(r.leadsTo());
            if (!distinct.contains(r)) {
                distinct.add(r);
            }
        }
        return new Health(status, eccUncorrectedErrors, problems, distinct);
    }
}

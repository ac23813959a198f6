package io.gpudetect.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.List;
import java.util.Locale;

/**
 * What the tools said about a card's state: {@code lost} when it fell off the bus or needs a reset,
 * {@code degraded} with uncorrected ECC errors or retired pages pending, {@code ok} when a tool answered
 * and saw nothing wrong. {@code problems} holds each reason in words.
 */
@JsonInclude(JsonInclude.Include.NON_EMPTY)
public record Health(Status status, Long eccUncorrectedErrors, List<String> problems) {

    public enum Status {
        OK, DEGRADED, LOST;

        @JsonValue
        public String id() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    public Health {
        problems = problems == null ? List.of() : List.copyOf(problems);
    }

    public static Health ok() {
        return new Health(Status.OK, null, List.of());
    }
}

package io.gpudetect.testing;

import io.gpudetect.agent.AgentLoop;
import io.gpudetect.agent.NodeAgent;
import io.gpudetect.agent.PassTriggers;
import java.time.Clock;
import java.time.Duration;
import java.util.function.DoubleSupplier;

/** Agent loops for tests: no start-up delay, and a triggered pass as soon as the loop is free. */
public final class Loops {

    private Loops() {
    }

    public static AgentLoop immediate(NodeAgent agent, Duration interval, double jitter, DoubleSupplier random) {
        return new AgentLoop(agent, interval, jitter, random, new PassTriggers(Duration.ZERO, Clock.systemUTC()),
                Duration.ZERO);
    }
}

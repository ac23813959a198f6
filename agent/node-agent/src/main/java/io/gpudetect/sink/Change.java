package io.gpudetect.sink;

/**
 * What a {@link Sink} decided to write after a pass: a value, computed before anything is sent, that a
 * test can compare and a dry run can print.
 */
public interface Change {

    /** False when the target already holds what the pass produced (or must be kept as it is). */
    boolean writes();

    /** One short line for the pass's log entry: {@code set=3,remove=1}, {@code none}. */
    String summary();

    /** What a dry run prints instead of writing: the target and exactly what would be sent. */
    String preview();
}

package io.gpudetect.source;

/** A bundle folder that cannot be used at all; the message is one line for the user. */
public final class BundleException extends Exception {
    public BundleException(String message) {
        super(message);
    }
}

package io.gpudetect.agent;

/** Where the labels go: patched onto the Node (default), or handed to NFD as a file or a NodeFeature object. */
public enum LabelOutput {
    NODE, NFD_FILE, NODE_FEATURE
}

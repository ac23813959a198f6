package io.gpudetect.render;

/** How a detection result is printed. */
public enum OutputFormat {
    table, json, yaml
}

package io.gpudetect.probe.nvidia;

import java.util.function.Function;

/**
 * {@link NvidiaValues}' readers as the parsers pass them to their field readers ({@code nvidia-smi -q}'s XML and text,
 * {@code --query-gpu}'s CSV), each a class of its own rather than a method reference: a method reference is an
 * invokedynamic site that JDK 17 bootstraps at its first call even where the class-data archive holds its class
 * (about a quarter of a million instructions in the interpreter a site), and a replay of nvidia-smi's output passed
 * 17-24 of them at every start; these are archived classes and nothing more (docs/performance.md, row "the
 * nvidia-smi parsers' readers as classes").
 */
final class NvidiaReaders {

    static final Function<String, String> UUID = new Function<>() {
        @Override
        public String apply(String v) {
            return NvidiaValues.uuid(v);
        }
    };
    static final Function<String, String> DRIVER_VERSION = new Function<>() {
        @Override
        public String apply(String v) {
            return NvidiaValues.driverVersion(v);
        }
    };
    static final Function<String, String[]> PACKED_ID = new Function<>() {
        @Override
        public String[] apply(String v) {
            return NvidiaValues.packedId(v);
        }
    };
    static final Function<String, Long> MIB = new Function<>() {
        @Override
        public Long apply(String v) {
            return NvidiaValues.mib(v);
        }
    };
    static final Function<String, Double> WATTS = new Function<>() {
        @Override
        public Double apply(String v) {
            return NvidiaValues.watts(v);
        }
    };
    static final Function<String, Integer> PCIE_LINK = new Function<>() {
        @Override
        public Integer apply(String v) {
            return NvidiaValues.pcieLink(v);
        }
    };
    static final Function<String, Long> COUNT = new Function<>() {
        @Override
        public Long apply(String v) {
            return NvidiaValues.count(v);
        }
    };
    static final Function<String, Integer> SMALL_COUNT = new Function<>() {
        @Override
        public Integer apply(String v) {
            return NvidiaValues.smallCount(v);
        }
    };

    private NvidiaReaders() {
    }
}

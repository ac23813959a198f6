package io.gpudetect.tables;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;

/**
 * libdrm's amdgpu.ids in any shape: lines that are not {@code id, rev, name} are skipped. Here rather
 * than in {@code io.gpudetect.fuzz} because the parser is package-private.
 */
class AmdGpuIdsFuzzTest {

    @FuzzTest
    void table(byte[] input) throws IOException {
        AmdGpuIds ids = AmdGpuIds.parse(new BufferedReader(new StringReader(new String(input, StandardCharsets.UTF_8))));
        ids.name("73bf", "c1");
        ids.name("0x74A1", "0");
        ids.name("", "");
    }
}

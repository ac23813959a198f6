package io.gpudetect.labels;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.gpudetect.inventory.Inventory;
import io.gpudetect.testing.Fixtures;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * The chart's {@code labels.profilePrefixes} are what its admission policy lets the agent add, change and remove
 * with a profile on. Every key a profile writes on any recorded host, in any of its settings, must be under its
 * profile's prefixes there, or the API server refuses the agent's whole patch; and the agent's own rule for what
 * it may withdraw ({@link LabelProfiles#mayRemove}, with the chart's prefix as the agent's own) must accept every such key.
 */
class ChartPrefixesTest {

    private static final List<Inventory> HOSTS = Fixtures.allBundles().stream().map(Fixtures::detect).toList();

    private static JsonNode labelValues() throws IOException {
        Path values = Path.of(System.getProperty("gpudetect.chart", "../daemonset/chart/gpu-detect"), "values.yaml");
        return new ObjectMapper(new YAMLFactory()).readTree(values.toFile()).path("labels");
    }

    private static Map<String, List<String>> chartPrefixes() throws IOException {
        JsonNode labels = labelValues();
        Map<String, List<String>> prefixes = new TreeMap<>();
        labels.path("profilePrefixes").fields().forEachRemaining(e -> {
            List<String> list = new ArrayList<>();
            e.getValue().forEach(p -> list.add(p.asText()));
            prefixes.put(e.getKey(), list);
        });
        prefixes.put(GpuDetectProfile.NAME, List.of(labels.path("prefix").asText() + "/"));
        return prefixes;
    }

    /** The rule the agent withdraws keys by, as the chart configures it: its {@code labels.prefix} as the own prefix. */
    private static LabelProfiles agentsRule() throws IOException {
        return LabelProfiles.parse(LabelProfiles.DEFAULT_SELECTION, labelValues().path("prefix").asText(),
                NvidiaProfile.Settings.DEFAULT);
    }

    @Test
    void everyKeyEveryProfileWritesIsUnderItsChartPrefixes() throws IOException {
        Map<String, List<String>> chart = chartPrefixes();
        LabelProfiles rule = agentsRule();
        List<LabelProfile> profiles = new ArrayList<>(LabelProfiles.ALL);
        for (NvidiaProfile.MigStrategy mig : NvidiaProfile.MigStrategy.values()) {
            for (NvidiaProfile.SharingStrategy sharing : NvidiaProfile.SharingStrategy.values()) {
                profiles.add(new NvidiaProfile(new NvidiaProfile.Settings(mig, sharing,
                        sharing == NvidiaProfile.SharingStrategy.NONE ? 1 : 4)));
            }
        }
        int keys = 0;
        TreeSet<String> outside = new TreeSet<>();
        for (LabelProfile profile : profiles) {
            List<String> prefixes = chart.get(profile.name());
            assertTrue(prefixes != null && !prefixes.isEmpty(), "the chart has no prefixes for profile " + profile.name());
            for (Inventory host : HOSTS) {
                for (String key : profile.labels(host).keySet()) {
                    keys++;
                    if (prefixes.stream().noneMatch(key::startsWith)) {
                        outside.add(profile.name() + ": " + key);
                    }
                    assertTrue(rule.mayRemove(key), "the agent could never withdraw " + key);
                }
            }
        }
        assertEquals(new TreeSet<>(), outside, "keys the admission policy would refuse");
        assertTrue(keys > 1000, "the hosts must make the profiles write: " + keys);
    }

    @Test
    void theAmdProfilesPrefixesAreTheChartsAndNothingBesideThemIsTheAgents() throws IOException {
        assertEquals(AmdProfile.KEY_PREFIXES, chartPrefixes().get(AmdProfile.NAME));
        LabelProfiles rule = agentsRule();
        assertTrue(rule.mayRemove("beta.amd.com/gpu.family.AI"));
        assertTrue(rule.mayRemove("amd.com/gpu.vram"));
        // AMD's own users set amd.com/gpu=true by hand (the labeller's tests keep it), and AMD's operator writes
        // other beta.amd.com and amd.com keys: a garbled annotation naming them never makes the agent remove them.
        for (String foreign : List.of("amd.com/gpu", "amd.com/cpu", "beta.amd.com/gpu", "beta.amd.com/cpu",
                "amd.com/compute-partitioning-supported")) {
            assertFalse(rule.mayRemove(foreign), foreign);
        }
    }
}

package io.gpudetect.akash;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.gpudetect.match.InvalidInputException;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The inventory operator's configuration as its loader reads it (provider {@code operator/inventory/config.go} at
 * {@code afc4dd7c}, and its test {@code config_test.go} for the file's form).
 */
class InventoryOperatorConfigTest {

    /** {@code Exclude.IsNodeExcluded}: {@code r.MatchString(name)} finds a rule anywhere in the name, first rule first. */
    @Test
    void aRuleMatchesAnywhereInTheNodesName() throws InvalidInputException {
        InventoryOperatorConfig config = InventoryOperatorConfig.parse("""
                version: v1
                cluster_storage:
                  - default
                  - beta2
                exclude:
                  nodes:
                    - ^control-
                    - gpu
                  node_storage: []
                """, "config.yaml");
        assertEquals(List.of("^control-", "gpu"), config.excludeNodes());
        assertEquals("^control-", config.exclusionRule("control-1"));
        assertEquals("gpu", config.exclusionRule("node-gpu-7"));
        assertNull(config.exclusionRule("worker-control-1"));
        assertNull(InventoryOperatorConfig.parse("version: v1\ncluster_storage: []\nexclude:\n  nodes: []\n", "c")
                .exclusionRule("gpu"));
    }

    /** The ConfigMap the operator mounts (Helm: inventory-configmap), as {@code kubectl get configmap -o yaml} prints it. */
    @Test
    void theConfigMapHoldingItIsReadToo() throws InvalidInputException {
        InventoryOperatorConfig config = InventoryOperatorConfig.parse("""
                apiVersion: v1
                kind: ConfigMap
                metadata: {name: inventory-configmap, namespace: akash-services}
                data:
                  config.yaml: |
                    version: v1
                    cluster_storage:
                      - default
                    exclude:
                      nodes:
                        - (?P<pool>old)-pool
                      node_storage: []
                """, "cm.yaml");
        assertEquals("(?P<pool>old)-pool", config.exclusionRule("old-pool-2"));
        assertEquals("cm.yaml (data.config.yaml)", config.origin());
    }

    /** {@code Config.UnmarshalYAML} and {@code ExcludeRules.UnmarshalYAML}: the errors the operator stops on. */
    @Test
    void whatTheOperatorRefusesIsInvalidInput() {
        InvalidInputException field = assertThrows(InvalidInputException.class,
                () -> InventoryOperatorConfig.parse("version: v1\nexclude_nodes: [a]\n", "c.yaml"));
        assertEquals("c.yaml:2: exclude_nodes: unexpected field; the operator refuses the file (\"config: unexpected "
                + "field exclude_nodes\"); expected version, cluster_storage and exclude", field.getMessage());
        InvalidInputException empty = assertThrows(InvalidInputException.class,
                () -> InventoryOperatorConfig.parse("exclude:\n  nodes:\n    - \"\"\n", "c.yaml"));
        assertEquals("c.yaml:3: exclude.nodes[0]: empty regexp filters are not allowed", empty.getMessage());
        InvalidInputException regex = assertThrows(InvalidInputException.class,
                () -> InventoryOperatorConfig.parse("exclude:\n  nodes: [\"gpu-(\"]\n", "c.yaml"));
        assertEquals("exclude.nodes[0]", regex.path());
        assertEquals("unable to compile exclude \"gpu-(\" into regexp: Unclosed group", regex.problem());
    }
}

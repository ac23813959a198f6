package io.gpudetect.bench;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import java.io.IOException;
import java.io.Writer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The objects of a GPU cluster of {@code nodes} nodes, of the size a real one has, for tests and benchmarks of
 * {@code inventory}, {@code match} and {@code akash} at scale. Everything is a function of the node's index, so two
 * runs make the same cluster.
 *
 * <ul>
 * <li>A Node as a kubelet on a GPU host writes it: labels (NFD's and GPU Feature Discovery's), annotations, 50
 * images with sizes, conditions, addresses, capacity and allocatable, nodeInfo, and managedFields: about 15 KB as
 * JSON.
 * <li>A GpuCapacity record as the agent writes it, for 8 GPUs: every GPU field, totals, host facts, handout.
 * <li>110 pods per node (the kubelet's default most); on a device-plugin node the first {@link #gpusInUse} of them
 * ask for one {@code nvidia.com/gpu} each.
 * <li>One ResourceSlice per DRA node (every {@link #DRA_EVERY}th), listing its 8 GPUs.
 * </ul>
 * Node {@code i}: 8 H100 SXM (every 4th node: 8 MI300X); {@code i % 9} GPUs in use; every {@link #NOT_READY_EVERY}th
 * not Ready, every {@link #CORDONED_EVERY}th cordoned; every {@link #DRA_EVERY}th hands its GPUs out through DRA, not
 * a device plugin.
 */
public final class ClusterObjects {

    public static final int GPUS = 8;
    public static final int PODS = 110;
    public static final int DRA_EVERY = 10;
    public static final int NOT_READY_EVERY = 50;
    public static final int CORDONED_EVERY = 97;
    public static final String LAST_GOOD_PASS = "2026-05-01T10:00:00Z";

    private final int nodes;

    public ClusterObjects(int nodes) {
        this.nodes = nodes;
    }

    public int nodes() {
        return nodes;
    }

    public static String name(int i) {
        return String.format("gpu-node-%05d", i);
    }

    public static boolean amd(int i) {
        return i % 4 == 3;
    }

    public static boolean dra(int i) {
        return i % DRA_EVERY == 5;
    }

    public static boolean ready(int i) {
        return i % NOT_READY_EVERY != 7;
    }

    public static boolean cordoned(int i) {
        return i % CORDONED_EVERY == 11;
    }

    public static int gpusInUse(int i) {
        return i % 9;
    }

    /** {@code kubectl get gpucapacities,nodes -o json} (or {@code -o yaml}): one List, records then Nodes. */
    public void writeList(Writer out, boolean json) throws IOException {
        ObjectMapper mapper = json ? new ObjectMapper() : new ObjectMapper(YAMLFactory.builder()
                .disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER).enable(YAMLGenerator.Feature.MINIMIZE_QUOTES)
                .build());
        try (JsonGenerator g = mapper.getFactory().createGenerator(out)) {
            if (json) {
                g.useDefaultPrettyPrinter();
            }
            g.writeStartObject();
            g.writeStringField("apiVersion", "v1");
            g.writeArrayFieldStart("items");
            for (int i = 0; i < nodes; i++) {
                mapper.writeValue(g, record(i));
            }
            for (int i = 0; i < nodes; i++) {
                mapper.writeValue(g, node(i));
            }
            g.writeEndArray();
            g.writeStringField("kind", "List");
            g.writeObjectFieldStart("metadata");
            g.writeStringField("resourceVersion", "");
            g.writeEndObject();
            g.writeEndObject();
        }
    }

    /** Node {@code i} as its kubelet writes it. */
    public Map<String, Object> node(int i) {
        String name = name(i);
        Map<String, Object> labels = new LinkedHashMap<>();
        labels.put("beta.kubernetes.io/arch", "amd64");
        labels.put("beta.kubernetes.io/os", "linux");
        labels.put("kubernetes.io/arch", "amd64");
        labels.put("kubernetes.io/hostname", name);
        labels.put("kubernetes.io/os", "linux");
        labels.put("node.kubernetes.io/instance-type", "gpu-8x");
        labels.put("topology.kubernetes.io/region", "eu-west-" + (i % 3));
        labels.put("topology.kubernetes.io/zone", "eu-west-" + (i % 3) + "-" + (char) ('a' + i % 3));
        for (String feature : List.of("cpu-cpuid.AVX", "cpu-cpuid.AVX2", "cpu-cpuid.AVX512F", "cpu-cpuid.AESNI",
                "cpu-hardware_multithreading", "kernel-version.full", "kernel-version.major", "pci-10de.present",
                "pci-15b3.present", "storage-nonrotationaldisk", "system-os_release.ID", "system-os_release.VERSION_ID")) {
            labels.put("feature.node.kubernetes.io/" + feature, feature.startsWith("kernel") ? "6.8.0-45-generic" : "true");
        }
        if (!amd(i)) {
            labels.put("nvidia.com/gpu.product", "NVIDIA-H100-80GB-HBM3");
            labels.put("nvidia.com/gpu.count", "8");
            labels.put("nvidia.com/gpu.memory", "81559");
            labels.put("nvidia.com/cuda.driver.major", "580");
            labels.put("nvidia.com/gpu.machine", "PowerEdge-XE9680");
        }
        Map<String, Object> annotations = new LinkedHashMap<>();
        annotations.put("node.alpha.kubernetes.io/ttl", "0");
        annotations.put("volumes.kubernetes.io/controller-managed-attach-detach", "true");
        annotations.put("nfd.node.kubernetes.io/feature-labels", String.join(",", labels.keySet()).substring(0, 400));
        annotations.put("csi.volume.kubernetes.io/nodeid", "{\"csi.tigera.io\":\"" + name + "\"}");
        annotations.put("projectcalico.org/IPv4Address", ip(i) + "/24");
        Map<String, Object> metadata = new LinkedHashMap<>();
        metadata.put("annotations", annotations);
        metadata.put("creationTimestamp", "2026-01-10T08:00:00Z");
        metadata.put("labels", labels);
        metadata.put("managedFields", managedFields(labels.keySet()));
        metadata.put("name", name);
        metadata.put("resourceVersion", String.valueOf(1000000 + i));
        metadata.put("uid", uuid("node", i, 0));
        Map<String, Object> spec = new LinkedHashMap<>();
        spec.put("podCIDR", "10.244." + (i % 256) + ".0/24");
        spec.put("podCIDRs", List.of("10.244." + (i % 256) + ".0/24"));
        if (cordoned(i)) {
            spec.put("unschedulable", true);
            spec.put("taints", List.of(Map.of("effect", "NoSchedule", "key", "node.kubernetes.io/unschedulable",
                    "timeAdded", "2026-04-30T08:00:00Z")));
        }
        Map<String, Object> resources = new LinkedHashMap<>();
        resources.put("cpu", "192");
        resources.put("ephemeral-storage", "1843269236Ki");
        resources.put("hugepages-1Gi", "0");
        resources.put("hugepages-2Mi", "0");
        resources.put("memory", "2113450788Ki");
        resources.put("pods", "110");
        if (!dra(i)) {
            resources.put(amd(i) ? "amd.com/gpu" : "nvidia.com/gpu", String.valueOf(GPUS));
        }
        Map<String, Object> status = new LinkedHashMap<>();
        status.put("addresses", List.of(Map.of("address", ip(i), "type", "InternalIP"),
                Map.of("address", name, "type", "Hostname")));
        status.put("allocatable", resources);
        status.put("capacity", resources);
        List<Map<String, Object>> conditions = new ArrayList<>();
        for (String[] c : new String[][] {{"MemoryPressure", "KubeletHasSufficientMemory"},
                {"DiskPressure", "KubeletHasNoDiskPressure"}, {"PIDPressure", "KubeletHasSufficientPID"}}) {
            conditions.add(condition(c[0], "False", c[1], "kubelet has " + c[1].substring(10)));
        }
        conditions.add(ready(i) ? condition("Ready", "True", "KubeletReady", "kubelet is posting ready status")
                : condition("Ready", "False", "KubeletNotReady", "container runtime network not ready"));
        status.put("conditions", conditions);
        status.put("daemonEndpoints", Map.of("kubeletEndpoint", Map.of("Port", 10250)));
        status.put("images", images(i));
        Map<String, Object> info = new LinkedHashMap<>();
        info.put("architecture", "amd64");
        info.put("bootID", uuid("boot", i, 0));
        info.put("containerRuntimeVersion", "containerd://1.7.22");
        info.put("kernelVersion", "6.8.0-45-generic");
        info.put("kubeProxyVersion", "v1.34.1");
        info.put("kubeletVersion", "v1.34.1");
        info.put("machineID", uuid("machine", i, 0).replace("-", ""));
        info.put("operatingSystem", "linux");
        info.put("osImage", "Ubuntu 24.04.1 LTS");
        info.put("systemUUID", uuid("system", i, 0));
        status.put("nodeInfo", info);
        Map<String, Object> node = new LinkedHashMap<>();
        node.put("apiVersion", "v1");
        node.put("kind", "Node");
        node.put("metadata", metadata);
        node.put("spec", spec);
        node.put("status", status);
        return node;
    }

    private static Map<String, Object> condition(String type, String status, String reason, String message) {
        Map<String, Object> c = new LinkedHashMap<>();
        c.put("lastHeartbeatTime", "2026-05-01T09:59:30Z");
        c.put("lastTransitionTime", "2026-04-20T08:00:00Z");
        c.put("message", message);
        c.put("reason", reason);
        c.put("status", status);
        c.put("type", type);
        return c;
    }

    /** 50 images, as {@code status.images} lists them: digest and tag names, and the size. */
    private static List<Map<String, Object>> images(int i) {
        List<Map<String, Object>> images = new ArrayList<>();
        for (int k = 0; k < 50; k++) {
            String repo = "registry.example.com/team-" + (k % 7) + "/workload-" + k;
            String digest = sha(i % 13, k);
            Map<String, Object> image = new LinkedHashMap<>();
            image.put("names", List.of(repo + "@sha256:" + digest, repo + ":v1." + (k % 10) + "." + (i % 5)));
            image.put("sizeBytes", 50_000_000L + 97_000_000L * k);
            images.add(image);
        }
        return images;
    }

    /** What kubelet, NFD and kubectl leave in {@code metadata.managedFields}. */
    private static List<Map<String, Object>> managedFields(Iterable<String> labels) {
        Map<String, Object> labelFields = new LinkedHashMap<>();
        for (String l : labels) {
            labelFields.put("f:" + l, Map.of());
        }
        Map<String, Object> kubelet = new LinkedHashMap<>();
        kubelet.put("f:metadata", Map.of("f:labels", labelFields, "f:annotations",
                Map.of(".", Map.of(), "f:volumes.kubernetes.io/controller-managed-attach-detach", Map.of())));
        Map<String, Object> statusFields = new LinkedHashMap<>();
        for (String c : List.of("DiskPressure", "MemoryPressure", "PIDPressure", "Ready")) {
            statusFields.put("k:{\"type\":\"" + c + "\"}", Map.of("f:lastHeartbeatTime", Map.of(), "f:message",
                    Map.of(), "f:reason", Map.of(), "f:status", Map.of(), "f:lastTransitionTime", Map.of()));
        }
        List<Map<String, Object>> out = new ArrayList<>();
        out.add(managed("kubelet", "Update", "", kubelet));
        out.add(managed("kubelet", "Update", "status", Map.of("f:status", Map.of("f:allocatable", Map.of(),
                "f:capacity", Map.of(), "f:conditions", statusFields, "f:images", Map.of(), "f:nodeInfo",
                Map.of("f:bootID", Map.of())))));
        out.add(managed("nfd-worker", "Apply", "", Map.of("f:metadata", Map.of("f:labels", labelFields))));
        out.add(managed("kube-controller-manager", "Update", "", Map.of("f:spec",
                Map.of("f:podCIDR", Map.of(), "f:podCIDRs", Map.of(".", Map.of(), "v:\"10.244.0.0/24\"", Map.of())))));
        return out;
    }

    private static Map<String, Object> managed(String manager, String operation, String subresource,
                                               Map<String, Object> fields) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("apiVersion", "v1");
        m.put("fieldsType", "FieldsV1");
        m.put("fieldsV1", fields);
        m.put("manager", manager);
        m.put("operation", operation);
        if (!subresource.isEmpty()) {
            m.put("subresource", subresource);
        }
        m.put("time", "2026-05-01T09:59:30Z");
        return m;
    }

    /** Node {@code i}'s GpuCapacity record, as the agent writes it. */
    public Map<String, Object> record(int i) {
        boolean amd = amd(i);
        String resource = amd ? "amd.com/gpu" : "nvidia.com/gpu";
        List<Map<String, Object>> gpus = new ArrayList<>();
        for (int g = 0; g < GPUS; g++) {
            gpus.add(gpu(i, g));
        }
        Map<String, Object> spec = new LinkedHashMap<>();
        spec.put("gpus", gpus);
        Map<String, Object> total = new LinkedHashMap<>();
        total.put("vendor", amd ? "amd" : "nvidia");
        total.put("model", amd ? "mi300x" : "h100");
        total.put("memoryGi", amd ? 192 : 80);
        total.put("interface", amd ? "oam" : "sxm");
        total.put("count", GPUS);
        spec.put("totals", List.of(total));
        spec.put("allocatable", dra(i) ? Map.of() : Map.of(resource, (long) GPUS));
        spec.put("requested", dra(i) ? Map.of() : Map.of(resource, (long) gpusInUse(i)));
        Map<String, Object> host = new LinkedHashMap<>();
        host.put("cpuModel", amd ? "AMD EPYC 9654 96-Core Processor" : "Intel(R) Xeon(R) Platinum 8480+");
        host.put("cpuCores", 96);
        host.put("cpuThreads", 192);
        host.put("memoryBytes", 2164173606912L);
        host.put("os", "Ubuntu 24.04.1 LTS");
        host.put("kernel", "6.8.0-45-generic");
        spec.put("host", host);
        spec.put("sysClassDrm", true);
        spec.put("agentVersion", "0.1.0");
        if (dra(i)) {
            spec.put("handout", handout(i));
        }
        Map<String, Object> status = new LinkedHashMap<>();
        status.put("lastPassOutcome", "complete");
        status.put("problems", List.of());
        status.put("lastGoodPass", LAST_GOOD_PASS);
        Map<String, Object> metadata = new LinkedHashMap<>();
        metadata.put("name", name(i));
        metadata.put("ownerReferences", List.of(Map.of("apiVersion", "v1", "kind", "Node", "name", name(i), "uid",
                uuid("node", i, 0))));
        Map<String, Object> record = new LinkedHashMap<>();
        record.put("apiVersion", "gpu-detect.io/v1alpha1");
        record.put("kind", "GpuCapacity");
        record.put("metadata", metadata);
        record.put("spec", spec);
        record.put("status", status);
        return record;
    }

    private static Map<String, Object> gpu(int i, int g) {
        boolean amd = amd(i);
        Map<String, Object> gpu = new LinkedHashMap<>();
        gpu.put("vendor", amd ? "amd" : "nvidia");
        gpu.put("model", amd ? "mi300x" : "h100");
        gpu.put("name", amd ? "AMD Instinct MI300X" : "NVIDIA H100 80GB HBM3");
        gpu.put("memoryMiB", amd ? 196592L : 81559L);
        gpu.put("memoryGi", amd ? 192 : 80);
        gpu.put("interface", amd ? "oam" : "sxm");
        gpu.put("pciAddress", pciAddress(g));
        gpu.put("uuid", amd ? "GPU-" + uuid("amd", i, g) : "GPU-" + uuid("nv", i, g));
        gpu.put("health", "ok");
        gpu.put("partitioned", false);
        gpu.put("pciVendorId", amd ? "1002" : "10de");
        gpu.put("pciDeviceId", amd ? "74a1" : "2330");
        gpu.put("pciSubsystemVendorId", amd ? "1002" : "10de");
        gpu.put("pciSubsystemDeviceId", amd ? "74a1" : "16c1");
        gpu.put("architecture", amd ? "gfx942" : "Hopper");
        if (!amd) {
            gpu.put("computeCapability", "9.0");
        }
        gpu.put("driverVersion", amd ? "6.8.5" : "580.159.04");
        gpu.put("runtimeVersion", amd ? "6.2.4" : "13.0");
        gpu.put("vbiosVersion", amd ? "113-M3000100-102" : "96.00.99.00.01");
        gpu.put("memoryKind", "dedicated");
        gpu.put("pcieRoot", "pci0000:" + String.format("%02x", g * 0x10));
        gpu.put("numaNode", g / 4);
        gpu.put("pcieLink", Map.of("maxGen", 5, "currentWidth", 16, "maxWidth", 16));
        gpu.put("powerLimitWatts", amd ? 750.0 : 700.0);
        gpu.put("powerLimits", Map.of("minWatts", 200.0, "maxWatts", amd ? 750.0 : 700.0, "defaultWatts",
                amd ? 750.0 : 700.0));
        gpu.put("drmCards", List.of("card" + (g + 1)));
        return gpu;
    }

    /** A DRA node's hand-out: every GPU by the driver, the first {@link #gpusInUse} allocated. */
    private static Map<String, Object> handout(int i) {
        String driver = amd(i) ? "gpu.amd.com" : "gpu.nvidia.com";
        List<Map<String, Object>> gpus = new ArrayList<>();
        for (int g = 0; g < GPUS; g++) {
            boolean allocated = g < gpusInUse(i);
            Map<String, Object> device = new LinkedHashMap<>();
            device.put("driver", driver);
            device.put("pool", name(i));
            device.put("device", "gpu-" + g);
            device.put("type", amd(i) ? "amdgpu" : "gpu");
            device.put("allocated", allocated);
            device.put("claims", allocated ? List.of("ml/train-" + i + "-" + g) : List.of());
            Map<String, Object> h = new LinkedHashMap<>();
            h.put("pciAddress", pciAddress(g));
            h.put("by", "dra");
            h.put("allocated", allocated);
            h.put("dra", List.of(device));
            gpus.add(h);
        }
        Map<String, Object> totals = new LinkedHashMap<>();
        totals.put("driver", driver);
        totals.put("gpus", GPUS);
        totals.put("allocatedGpus", gpusInUse(i));
        totals.put("devices", GPUS);
        totals.put("allocatedDevices", gpusInUse(i));
        Map<String, Object> handout = new LinkedHashMap<>();
        handout.put("mode", "dra");
        handout.put("gpus", gpus);
        handout.put("draTotals", List.of(totals));
        handout.put("unmatched", List.of());
        handout.put("problems", List.of());
        return handout;
    }

    /** Node {@code i}'s 110 pods; on a device-plugin node the first {@link #gpusInUse} ask for one GPU each. */
    public List<Map<String, Object>> pods(int i) {
        List<Map<String, Object>> pods = new ArrayList<>();
        for (int p = 0; p < PODS; p++) {
            boolean gpu = !dra(i) && p < gpusInUse(i);
            Map<String, Object> requests = new LinkedHashMap<>();
            requests.put("cpu", gpu ? "16" : "250m");
            requests.put("memory", gpu ? "128Gi" : "512Mi");
            Map<String, Object> limits = new LinkedHashMap<>(requests);
            if (gpu) {
                limits.put(amd(i) ? "amd.com/gpu" : "nvidia.com/gpu", "1");
                requests.put(amd(i) ? "amd.com/gpu" : "nvidia.com/gpu", "1");
            }
            Map<String, Object> container = new LinkedHashMap<>();
            container.put("name", gpu ? "trainer" : "app");
            container.put("image", "registry.example.com/team-" + (p % 7) + "/workload-" + (p % 50) + ":v1.2.3");
            container.put("args", List.of("--config=/etc/app/config.yaml", "--port=8080", "--log-level=info"));
            container.put("env", List.of(Map.of("name", "POD_NAME", "valueFrom", Map.of("fieldRef",
                    Map.of("fieldPath", "metadata.name"))), Map.of("name", "MODE", "value", "production")));
            container.put("ports", List.of(Map.of("containerPort", 8080, "name", "http", "protocol", "TCP")));
            container.put("resources", Map.of("requests", requests, "limits", limits));
            container.put("volumeMounts", List.of(Map.of("mountPath", "/etc/app", "name", "config"),
                    Map.of("mountPath", "/var/run/secrets/kubernetes.io/serviceaccount", "name", "kube-api-access",
                            "readOnly", true)));
            Map<String, Object> spec = new LinkedHashMap<>();
            spec.put("containers", List.of(container));
            spec.put("nodeName", name(i));
            spec.put("restartPolicy", "Always");
            spec.put("schedulerName", "default-scheduler");
            spec.put("serviceAccountName", "default");
            spec.put("tolerations", List.of(Map.of("effect", "NoExecute", "key", "node.kubernetes.io/not-ready",
                    "operator", "Exists", "tolerationSeconds", 300)));
            spec.put("volumes", List.of(Map.of("name", "config", "configMap", Map.of("name", "app-config"))));
            Map<String, Object> metadata = new LinkedHashMap<>();
            metadata.put("name", (gpu ? "train-" : "app-") + i + "-" + p);
            metadata.put("namespace", gpu ? "ml" : "team-" + (p % 7));
            metadata.put("labels", Map.of("app", gpu ? "trainer" : "app-" + (p % 50), "pod-template-hash", "5d9f8b7c6d"));
            metadata.put("uid", uuid("pod", i, p));
            Map<String, Object> status = new LinkedHashMap<>();
            status.put("phase", "Running");
            status.put("podIP", "10.244." + (i % 256) + "." + (p + 2));
            status.put("hostIP", ip(i));
            status.put("startTime", "2026-04-30T12:00:00Z");
            Map<String, Object> pod = new LinkedHashMap<>();
            pod.put("apiVersion", "v1");
            pod.put("kind", "Pod");
            pod.put("metadata", metadata);
            pod.put("spec", spec);
            pod.put("status", status);
            pods.add(pod);
        }
        return pods;
    }

    /** A DRA node's ResourceSlice ({@code resource.k8s.io/v1}): its 8 GPUs with their attributes. */
    public Map<String, Object> slice(int i) {
        String driver = amd(i) ? "gpu.amd.com" : "gpu.nvidia.com";
        List<Map<String, Object>> devices = new ArrayList<>();
        for (int g = 0; g < GPUS; g++) {
            Map<String, Object> attributes = new LinkedHashMap<>();
            attributes.put("type", Map.of("string", amd(i) ? "amdgpu" : "gpu"));
            attributes.put("uuid", Map.of("string", "GPU-" + uuid(amd(i) ? "amd" : "nv", i, g)));
            attributes.put("productName", Map.of("string", amd(i) ? "AMD Instinct MI300X" : "NVIDIA H100 80GB HBM3"));
            attributes.put("resource.kubernetes.io/pciBusID", Map.of("string", pciAddress(g)));
            attributes.put("driverVersion", Map.of("version", amd(i) ? "6.8.5" : "580.159.4"));
            devices.add(Map.of("name", "gpu-" + g, "attributes", attributes,
                    "capacity", Map.of("memory", Map.of("value", amd(i) ? "192Gi" : "80Gi"))));
        }
        Map<String, Object> spec = new LinkedHashMap<>();
        spec.put("driver", driver);
        spec.put("nodeName", name(i));
        spec.put("pool", Map.of("name", name(i), "generation", 1, "resourceSliceCount", 1));
        spec.put("devices", devices);
        Map<String, Object> slice = new LinkedHashMap<>();
        slice.put("apiVersion", "resource.k8s.io/v1");
        slice.put("kind", "ResourceSlice");
        slice.put("metadata", Map.of("name", name(i) + "-" + driver + "-x7k2p"));
        slice.put("spec", spec);
        return slice;
    }

    private static String pciAddress(int g) {
        return String.format("0000:%02x:00.0", 0x18 + g * 0x10);
    }

    private static String ip(int i) {
        return "10.0." + (i / 250) % 256 + "." + (i % 250 + 2);
    }

    private static String uuid(String kind, int i, int k) {
        long a = (kind.hashCode() * 31L + i) * 1_000_003L + k;
        return String.format("%08x-%04x-4%03x-8%03x-%012x", a & 0xffffffffL, (a >>> 32) & 0xffff, k & 0xfff,
                i & 0xfff, (a * 2654435761L) & 0xffffffffffffL);
    }

    private static String sha(int a, int b) {
        StringBuilder s = new StringBuilder();
        long x = a * 1_000_003L + b;
        while (s.length() < 64) {
            x = x * 6364136223846793005L + 1442695040888963407L;
            s.append(String.format("%016x", x));
        }
        return s.substring(0, 64);
    }
}

package io.gpudetect.bench;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fabric8.kubernetes.client.dsl.base.CustomResourceDefinitionContext;
import io.fabric8.kubernetes.client.server.mock.KubernetesMixedDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.fabric8.mockwebserver.ServerRequest;
import io.fabric8.mockwebserver.ServerResponse;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.gpudetect.cli.GpuDetectCommand;
import io.gpudetect.record.GpuCapacity;
import io.gpudetect.testing.MockApiServer;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Queue;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine;

/**
 * By hand and from {@code bench/cluster-scale.sh}, not a test: {@code inventory}, {@code match} and {@code akash} on a
 * cluster of realistic objects ({@link ClusterObjects}), from a records file and from fabric8's mock API server in CRUD
 * mode, each run in a JVM of its own so that its peak RSS is its own.
 *
 * <pre>
 * generate NODES json|yaml FILE     write kubectl get gpucapacities,nodes -o json|yaml of NODES nodes
 * serve NODES KUBECONFIG            start a mock API server holding NODES records and Nodes, write a kubeconfig for
 *                                   it, print "ready" and serve until killed
 * run ARGS...                       run the gpu-detect command line ARGS in process; print its wall time (ms, JVM
 *                                   start-up left out), the CPU time the JVM spent meanwhile (all threads), its exit
 *                                   status and the JVM's peak RSS (VmHWM, KiB)
 * list [FILE]                       list the records and Nodes of the cluster $KUBECONFIG names as the commands do
 *                                   (a page at a time, each record and Node read into its type), or read those of
 *                                   the records file FILE, and keep nothing; print what run prints: a command's
 *                                   figure less this one is its work after the lists arrive
 * </pre>
 * The mock server holds the records and Nodes only: the commands list nothing else (a record already carries its
 * node's pod requests and DRA hand-out, which the agent reads); {@link ClusterObjects#pods} and
 * {@link ClusterObjects#slice} are what the agent's side of issue 37 measures.
 */
public final class ClusterScaleBench {

    private ClusterScaleBench() {
    }

    public static void main(String[] args) throws Exception {
        switch (args[0]) {
            case "generate" -> generate(Integer.parseInt(args[1]), args[2].equals("json"), Path.of(args[3]));
            case "serve" -> serve(Integer.parseInt(args[1]), Path.of(args[2]));
            case "run" -> run(Arrays.copyOfRange(args, 1, args.length));
            case "list" -> list(args.length > 1 ? Path.of(args[1]) : null);
            default -> throw new IllegalArgumentException("generate, serve or run, not " + args[0]);
        }
    }

    private static void generate(int nodes, boolean json, Path file) throws IOException {
        try (Writer out = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            new ClusterObjects(nodes).writeList(out, json);
        }
        System.out.println(file + ": " + Files.size(file) + " bytes");
    }

    private static void serve(int nodes, Path kubeconfig) throws Exception {
        var responses = new HashMap<ServerRequest, Queue<ServerResponse>>();
        KubernetesMockServer server = new KubernetesMockServer(new Context(), new MockWebServer(), responses,
                new PagingDispatcher(responses), false);
        server.init();
        server.expectCustomResource(CustomResourceDefinitionContext.fromCustomResourceType(GpuCapacity.class));
        ClusterObjects cluster = new ClusterObjects(nodes);
        try (KubernetesClient client = server.createClient()) {
            ResourceDefinitionContext records = ResourceDefinitionContext.fromResourceType(GpuCapacity.class);
            for (int i = 0; i < nodes; i++) {
                client.genericKubernetesResources(records).resource(Serialization.jsonMapper()
                        .convertValue(cluster.record(i), GenericKubernetesResource.class)).create();
                client.nodes().resource(Serialization.jsonMapper().convertValue(cluster.node(i), Node.class)).create();
            }
        }
        MockApiServer.writeKubeconfig(kubeconfig, "http://" + server.getHostName() + ":" + server.getPort());
        System.out.println("ready");
        System.out.flush();
        new CountDownLatch(1).await();
    }

    /**
     * The CRUD mock as a real API server answers a list with {@code limit}: a page at a time, with a {@code continue}
     * token (the CRUD mock alone ignores {@code limit} and sends the whole list, which no real server of a large
     * cluster does: a command's first page would then hold every Node). The full list is taken at the first page
     * and cut from there.
     */
    static final class PagingDispatcher extends KubernetesMixedDispatcher {

        private final Map<String, ObjectNode> lists = new ConcurrentHashMap<>();
        private final ObjectMapper json = new ObjectMapper();

        PagingDispatcher(Map<ServerRequest, Queue<ServerResponse>> responses) {
            super(responses);
        }

        @Override
        public MockResponse dispatch(RecordedRequest request) {
            String path = request.getPath();
            int q = path.indexOf('?');
            if (!"GET".equals(request.getMethod()) || q < 0 || !path.contains("limit=") || path.contains("watch=")) {
                return super.dispatch(request);
            }
            Map<String, String> params = new HashMap<>();
            for (String p : path.substring(q + 1).split("&")) {
                int eq = p.indexOf('=');
                params.put(p.substring(0, eq), p.substring(eq + 1));
            }
            String base = path.substring(0, q);
            int limit = Integer.parseInt(params.get("limit"));
            int from = params.containsKey("continue") ? Integer.parseInt(params.get("continue")) : 0;
            try {
                if (from == 0) {
                    MockResponse full = super.dispatch(request);
                    if (full.code() != 200) {
                        return full;
                    }
                    lists.put(base, (ObjectNode) json.readTree(full.getBody().getBytes()));
                }
                ObjectNode list = lists.get(base);
                ArrayNode items = (ArrayNode) list.get("items");
                ObjectNode page = json.createObjectNode();
                page.set("apiVersion", list.get("apiVersion"));
                page.set("kind", list.get("kind"));
                ObjectNode meta = page.putObject("metadata");
                meta.put("resourceVersion", "1");
                if (from + limit < items.size()) {
                    meta.put("continue", String.valueOf(from + limit));
                }
                ArrayNode slice = page.putArray("items");
                for (int i = from; i < Math.min(items.size(), from + limit); i++) {
                    slice.add(items.get(i));
                }
                return new MockResponse().setResponseCode(200).setBody(json.writeValueAsBytes(page));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    private static void list(Path file) throws Exception {
        var os = (com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory
                .getOperatingSystemMXBean();
        long cpu0 = os.getProcessCpuTime();
        long start = System.nanoTime();
        int records;
        int nodes;
        if (file != null) {
            var kept = io.gpudetect.match.RecordSet.read(io.gpudetect.match.RecordSet.Text.of(file), file.toString(),
                    Long.MAX_VALUE, r -> Boolean.TRUE);
            records = kept.records().size();
            nodes = kept.nodes().size();
        } else {
            try (KubernetesClient client = new io.fabric8.kubernetes.client.KubernetesClientBuilder().build()) {
                var kept = io.gpudetect.match.RecordSet.fromCluster(client, r -> Boolean.TRUE);
                records = kept.records().size();
                nodes = kept.nodes().size();
            }
        }
        long ms = (System.nanoTime() - start) / 1_000_000;
        long cpuMs = (os.getProcessCpuTime() - cpu0) / 1_000_000;
        String hwm = Files.readAllLines(Path.of("/proc/self/status")).stream().filter(l -> l.startsWith("VmHWM:"))
                .map(l -> l.replaceAll("\\D", "")).findFirst().orElse("?");
        System.out.println("ms=" + ms + " cpuMs=" + cpuMs + " records=" + records + " nodes=" + nodes
                + " peakRssKiB=" + hwm);
    }

    private static void run(String[] args) throws IOException {
        CommandLine cli = GpuDetectCommand.newCommandLine();
        PrintWriter sink = new PrintWriter(Writer.nullWriter());
        cli.setOut(sink);
        cli.setErr(new PrintWriter(System.err, true));
        var os = (com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory
                .getOperatingSystemMXBean();
        long cpu0 = os.getProcessCpuTime();
        long start = System.nanoTime();
        int exit = cli.execute(args);
        long ms = (System.nanoTime() - start) / 1_000_000;
        long cpuMs = (os.getProcessCpuTime() - cpu0) / 1_000_000;
        String hwm = Files.readAllLines(Path.of("/proc/self/status")).stream().filter(l -> l.startsWith("VmHWM:"))
                .map(l -> l.replaceAll("\\D", "")).findFirst().orElse("?");
        System.out.println("ms=" + ms + " cpuMs=" + cpuMs + " exit=" + exit + " peakRssKiB=" + hwm);
    }
}

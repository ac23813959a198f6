package io.gpudetect.match;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import io.fabric8.kubernetes.api.model.KubernetesResourceList;
import io.fabric8.kubernetes.api.model.ListMeta;
import io.fabric8.kubernetes.api.model.ListOptionsBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpudetect.model.Gpu;
import io.gpudetect.model.GpuField;
import io.gpudetect.model.PciAddress;
import io.gpudetect.record.GpuCapacity;
import io.gpudetect.record.GpuCapacitySpec;
import io.gpudetect.record.GpuCapacityStatus;
import io.gpudetect.record.dra.NodeHandout;
import io.gpudetect.source.IoFailure;
import java.io.FilterReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.yaml.snakeyaml.LoaderOptions;

/**
 * {@code GpuCapacity} records, typed as the agent writes them ({@link GpuCapacity}), and the names of the Nodes
 * that should have one: what {@code match}, {@code inventory} and {@code akash} read, from a cluster or a file.
 *
 * <p>A cluster's records are the agent's own and are read as they are. A file may be written by hand, so
 * {@link #fromDocuments} reads it leniently into the same types and says exactly where a value is wrong: a
 * record may leave out {@code kind} and {@code spec} (its fields then sit at the top), name its node in
 * {@code spec.nodeName}, put {@code lastGoodPass} in the spec, write {@code inUse} for {@code requested}, and give
 * a GPU the inventory's own {@code partitioning: {enabled, instances: [{profile}]}} instead of {@code partitioned}
 * and {@code slices}, and carry the agent's {@code handout} (how its GPUs are handed out: device plugin or DRA),
 * every value of it checked. A file holds records as a list, a Kubernetes {@code List} ({@code kubectl get
 * gpucapacities,nodes -o yaml}), or {@code ---} separated documents.
 */
public final class RecordSet {

    /** A record and where it came from: {@code [3]} and its line in a file, the record's name in a cluster. */
    public record Located(GpuCapacity record, String where, Integer line) {
        public String node() {
            return record.getMetadata().getName();
        }
    }

    /**
     * The most characters a YAML file may have unless {@code GPU_DETECT_YAML_LIMIT_MIB} says otherwise: 256 Mi, about
     * 13,000 Nodes as kubectl writes them (10-20 KB each). A YAML file is read as a stream, so the limit bounds time,
     * not memory; JSON has none.
     */
    public static final long DEFAULT_YAML_LIMIT = 256L << 20;

    /** Objects per page when listing a cluster: the API server answers each page on its own. */
    static final long PAGE = 500;

    private final Kept<Located> kept;

    public RecordSet(List<Located> records, List<KubeNode> nodes) {
        this.kept = new Kept<>(records, nodes);
    }

    /** The records, each with where it was read. */
    public List<Located> records() {
        return kept.records();
    }

    /** The Nodes listed beside the records (a cluster's, or a kubectl list's), with their Ready condition and cordon. */
    public List<KubeNode> nodes() {
        return kept.nodes();
    }

    /**
     * What a command keeps of a record ({@code match}'s and {@code inventory}'s node offer, {@code akash}'s node),
     * made as soon as the record is read: the typed records are then never all held, nor beside what is made of them
     * (at 10,000 nodes the two did not fit the command's heap together).
     */
    @FunctionalInterface
    public interface Keep<T> {
        T keep(Located record) throws InvalidInputException;
    }

    /** What was kept of each record, in the order read, and the Nodes listed beside the records. */
    public static final class Kept<T> {

        private final List<T> records;
        private final List<KubeNode> nodes;
        private final Map<String, KubeNode> byName = new HashMap<>();

        public Kept(List<T> records, List<KubeNode> nodes) {
            this.records = List.copyOf(records);
            this.nodes = List.copyOf(nodes);
            for (KubeNode n : this.nodes) {
                byName.putIfAbsent(n.name(), n);
            }
        }

        public List<T> records() {
            return records;
        }

        /** The Nodes listed beside the records, with their Ready condition and cordon. */
        public List<KubeNode> nodes() {
            return nodes;
        }

        /** The Node named {@code name}, or one known by name only when none was listed. */
        public KubeNode node(String name) {
            KubeNode n = byName.get(name);
            return n != null ? n : KubeNode.named(name);
        }

        /** True when a Node object named {@code name} was listed. */
        public boolean listsNode(String name) {
            return byName.containsKey(name);
        }
    }

    /**
     * Every record and every Node of the cluster {@code client} talks to. The client stays open. Both are listed a page
     * at a time ({@link #PAGE}), and each Node is read only for what {@link KubeNode} keeps: a Node as the kubelet
     * writes it is 10-20 KB (images, managed fields), so a cluster's Nodes are never held whole.
     */
    public static RecordSet fromCluster(KubernetesClient client) throws InvalidInputException {
        Kept<Located> kept = fromCluster(client, r -> r);
        return new RecordSet(kept.records(), kept.nodes());
    }

    /**
     * As {@link #fromCluster(KubernetesClient)}, each record made into what {@code keep} keeps as its page arrives: no
     * more than a page of typed records is held.
     */
    public static <T> Kept<T> fromCluster(KubernetesClient client, Keep<T> keep) throws InvalidInputException {
        List<T> records = new ArrayList<>();
        String next = null;
        do {
            KubernetesResourceList<GpuCapacity> page = client.resources(GpuCapacity.class).list(new ListOptionsBuilder().withLimit(PAGE).withContinue(next).build());
            for (GpuCapacity r : page.getItems()) {
                records.add(keep.keep(new Located(r, "[" + r.getMetadata().getName() + "]", null)));
            }
            next = continueToken(page.getMetadata());
        } while (next != null);
        List<KubeNode> nodes = new ArrayList<>();
        do {
            KubernetesResourceList<ListedNode> page = client.resources(ListedNode.class)
                    .list(new ListOptionsBuilder().withLimit(PAGE).withContinue(next).build());
            for (ListedNode n : page.getItems()) {
                nodes.add(KubeNode.of(n));
            }
            next = continueToken(page.getMetadata());
        } while (next != null);
        return new Kept<>(records, nodes);
    }

    private static String continueToken(ListMeta meta) {
        return meta == null || meta.getContinue() == null || meta.getContinue().isEmpty() ? null : meta.getContinue();
    }

    /** Opens a text afresh, from its start. */
    @FunctionalInterface
    public interface Text {
        Reader open() throws IOException;

        /**
         * The same text as UTF-8 bytes, where it has them (a file), or null: JSON is parsed from the bytes, a quarter
         * faster than from characters decoded first.
         */
        default InputStream bytes() throws IOException {
            return null;
        }

        /** The file {@code path}, its characters and its bytes. */
        static Text of(Path path) {
            return new Text() {
                @Override
                public Reader open() throws IOException {
                    return IoFailure.openReader(path);
                }

                @Override
                public InputStream bytes() throws IOException {
                    return Files.newInputStream(path);
                }
            };
        }
    }

    /**
     * The records in the JSON or YAML text of a file named {@code source}, read leniently (see the class comment), one
     * object at a time: JSON through Jackson's streaming parser, YAML through SnakeYAML's events, and the parts of an
     * object never used (a Node's images, conditions' neighbours, managed fields) skipped unread (a file's JSON bytes
     * skimmed: {@link SkimmingJson}). A text that starts as JSON does ({@link #startsLikeJson}) is JSON only: its
     * syntax error is reported with line and column ({@link JsonSyntax}), never handed to the YAML reader.
     *
     * @param yamlLimit the most characters a YAML text may have; a larger one is refused with one line that says how
     *                  to raise the limit or give JSON
     */
    public static RecordSet read(Text text, String source, long yamlLimit) throws InvalidInputException {
        Kept<Located> kept = read(text, source, yamlLimit, r -> r);
        return new RecordSet(kept.records(), kept.nodes());
    }

    /**
     * As {@link #read(Text, String, long)}, each record made into what {@code keep} keeps as soon as it is read. A
     * failure of {@code keep} is reported as a wrong value in the file is: after the rest is parsed, so that a syntax
     * error later in the file wins.
     */
    public static <T> Kept<T> read(Text text, String source, long yamlLimit, Keep<T> keep) throws InvalidInputException {
        if (startsLikeJson(text, source)) {
            try {
                try {
                    return readJson(text, source, keep, SKIMMING);
                } catch (SkimmingJson.Refused e) {
                    // Not JSON the skim vouches for: Jackson's own parser reads it all again, and says what is wrong.
                    return readJson(text, source, keep, JSON);
                }
            } catch (JsonProcessingException e) {
                // JSON only: YAML would report a JSON error in its own terms and lines, or take a broken dump without
                // complaint (a lost quote, a comma too many). YAML in flow style never gets here (startsLikeJson).
                throw JsonSyntax.error(e, source, text);
            } catch (IOException e) {
                throw new InvalidInputException(source, null, null, IoFailure.fileReason(e));
            }
        }
        LoaderOptions options = new LoaderOptions();
        // Our own limit counts the whole file (CappedReader); SnakeYAML's would count each document.
        options.setCodePointLimit(Integer.MAX_VALUE);
        try (Reader in = new CappedReader(text.open(), yamlLimit); JsonParser p = YamlNode.yamlParser(in, options)) {
            return new LenientReader<>(source, keep).stream(p);
        } catch (JsonProcessingException e) {
            if (CappedReader.exceeded(e)) {
                throw tooLarge(source, yamlLimit);
            }
            throw YamlNode.notValid(e, source, "not valid YAML or JSON: ");
        } catch (IOException e) {
            if (CappedReader.exceeded(e)) {
                throw tooLarge(source, yamlLimit);
            }
            throw new InvalidInputException(source, null, null, IoFailure.fileReason(e));
        }
    }

    private static <T> Kept<T> readJson(Text text, String source, Keep<T> keep, JsonFactory factory)
            throws IOException, InvalidInputException {
        try (InputStream bytes = text.bytes();
             JsonParser p = bytes != null ? factory.createParser(bytes) : factory.createParser(JsonSyntax.afterMark(text.open()))) {
            return new LenientReader<>(source, keep).stream(p);
        }
    }

    private static final JsonFactory JSON = new JsonFactory();
    /** JSON whose skipped parts are skimmed (a Node's images, managed fields): {@link SkimmingJson}. */
    private static final JsonFactory SKIMMING = new SkimmingJson.Factory();

    private static InvalidInputException tooLarge(String source, long limit) {
        return new InvalidInputException(source, null, null, "YAML larger than the limit of " + (limit >> 20)
                + " MiB; give the records as JSON, which has no limit (kubectl get gpucapacities,nodes -o json), or "
                + "raise the limit with GPU_DETECT_YAML_LIMIT_MIB=<MiB>");
    }

    /**
     * True when the text is JSON, and read as JSON only: its first character that is not white space (after a
     * byte-order mark) opens an object or a list, and the first after those openings is a double quote, a closing one
     * or the end of the text. kubectl's JSON always starts so ({@code {\n    "apiVersion"}), however damaged later; its
     * YAML never opens with '{' or '[', and YAML written by hand in flow style names its first key unquoted
     * ({@code [{metadata: {name: b}, ...}]}, {@code {kind: List, items: [...]}}) and still goes to the YAML reader.
     */
    private static boolean startsLikeJson(Text text, String source) throws InvalidInputException {
        try (Reader in = text.open()) {
            int c;
            do {
                c = in.read();
            } while (c == '\uFEFF' || (c >= 0 && Character.isWhitespace(c)));
            if (c != '{' && c != '[') {
                return false;
            }
            do {
                c = in.read();
            } while (c == '{' || c == '[' || (c >= 0 && Character.isWhitespace(c)));
            return c == '"' || c == '}' || c == ']' || c < 0;
        } catch (IOException e) {
            throw new InvalidInputException(source, null, null, IoFailure.fileReason(e));
        }
    }

    /** A reader that refuses to give more than {@code limit} characters. */
    private static final class CappedReader extends FilterReader {

        private static final class Exceeded extends IOException {
            private static final long serialVersionUID = 1L;

            Exceeded() {
                super("over the limit");
            }
        }

        private final long limit;
        private long count;

        CappedReader(Reader in, long limit) {
            super(in);
            this.limit = limit;
        }

        @Override
        public int read() throws IOException {
            int c = super.read();
            if (c >= 0 && ++count > limit) {
                throw new Exceeded();
            }
            return c;
        }

        @Override
        public int read(char[] buffer, int offset, int length) throws IOException {
            int n = super.read(buffer, offset, length);
            if (n > 0 && (count += n) > limit) {
                throw new Exceeded();
            }
            return n;
        }

        /** True when {@code e} (SnakeYAML and Jackson wrap what a reader throws) came from the limit. */
        static boolean exceeded(Throwable e) {
            for (Throwable c = e; c != null; c = c.getCause()) {
                if (c instanceof Exceeded) {
                    return true;
                }
            }
            return false;
        }
    }

    /** The Node named {@code name}, or one known by name only when none was listed. */
    public KubeNode node(String name) {
        return kept.node(name);
    }

    /** True when a Node object named {@code name} was listed. */
    public boolean listsNode(String name) {
        return kept.listsNode(name);
    }

    /** The time of a record's last good pass; null when it never had one. */
    public static Instant lastGoodPass(Located located, String source) throws InvalidInputException {
        GpuCapacityStatus status = located.record().getStatus();
        String text = status == null ? null : status.lastGoodPass();
        if (text == null) {
            return null;
        }
        try {
            return instant(text);
        } catch (DateTimeParseException e) {
            throw new InvalidInputException(source, located.where() + "(" + located.node() + ").lastGoodPass",
                    located.line(), "expected a time such as 2026-05-01T10:00:00Z, found '" + text + "'");
        }
    }

    /**
     * {@link Instant#parse}, with the form the agent writes ({@code 2026-05-01T10:00:00Z}) read by hand first: the
     * formatter took a twentieth of reading a 5,000-node dump, whose every record has one. Anything else, a valid
     * time in another form or no time, goes to {@code Instant.parse}, which says what is wrong.
     */
    static Instant instant(String text) {
        if (text.length() == 20 && text.charAt(4) == '-' && text.charAt(7) == '-' && text.charAt(10) == 'T'
                && text.charAt(13) == ':' && text.charAt(16) == ':' && text.charAt(19) == 'Z') {
            int year = digits(text, 0, 4);
            int month = digits(text, 5, 7);
            int day = digits(text, 8, 10);
            int hour = digits(text, 11, 13);
            int minute = digits(text, 14, 16);
            int second = digits(text, 17, 19);
            if (year >= 0 && month >= 1 && month <= 12 && day >= 1 && day <= java.time.YearMonth.of(year, month)
                    .lengthOfMonth() && hour >= 0 && hour <= 23 && minute >= 0 && minute <= 59 && second >= 0
                    && second <= 59) {
                return java.time.LocalDateTime.of(year, month, day, hour, minute, second)
                        .toInstant(java.time.ZoneOffset.UTC);
            }
        }
        return Instant.parse(text);
    }

    /** The decimal number in {@code text[from, to)}; -1 when a character is no digit. */
    private static int digits(String text, int from, int to) {
        int n = 0;
        for (int i = from; i < to; i++) {
            char c = text.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            n = n * 10 + (c - '0');
        }
        return n;
    }

    /** Reads hand-written YAML or JSON into the typed records, checking each value the offers use. */
    private static final class LenientReader<T> {

        private static final YamlNode.Prune NODE_METADATA = YamlNode.Prune.only(Set.of("name"));
        private static final YamlNode.Prune NODE_SPEC = YamlNode.Prune.only(Set.of("unschedulable"));
        private static final YamlNode.Prune NODE_STATUS = YamlNode.Prune.only(Set.of("conditions"));

        /** What of a Node is read ({@link #node}): its name, cordon and conditions; the rest of it is skipped. */
        private static final YamlNode.Prune NODE = name -> switch (name) {
            case "apiVersion", "kind" -> YamlNode.Prune.NOTHING;
            case "metadata" -> NODE_METADATA;
            case "spec" -> NODE_SPEC;
            case "status" -> NODE_STATUS;
            default -> null;
        };

        private static final YamlNode.Prune UNUSED_METADATA = skip(Set.of("managedFields", "annotations", "labels",
                "ownerReferences"));
        private static final YamlNode.Prune UNUSED_STATUS = skip(Set.of("images", "nodeInfo", "addresses",
                "daemonEndpoints", "volumesInUse", "volumesAttached", "config"));

        /**
         * What of an object not yet known to be a Node (kind comes later, or it is a record) is skipped: the parts no
         * reading uses that are large in what kubectl writes.
         */
        private static final YamlNode.Prune NEVER_USED = name -> switch (name) {
            case "metadata" -> UNUSED_METADATA;
            case "status" -> UNUSED_STATUS;
            default -> YamlNode.Prune.NOTHING;
        };

        /** Another kind's object: none of it is read. */
        private static final YamlNode.Prune EVERYTHING = name -> null;

        private static YamlNode.Prune skip(Set<String> names) {
            return name -> names.contains(name) ? null : YamlNode.Prune.NOTHING;
        }

        private final String source;
        private final Keep<T> keep;
        private final List<T> records = new ArrayList<>();
        private final List<KubeNode> nodes = new ArrayList<>();
        private int index;
        private InvalidInputException firstError;

        LenientReader(String source, Keep<T> keep) {
            this.source = source;
            this.keep = keep;
        }

        /**
         * Every object of the parser's documents, each read and turned into a record or Node as soon as it ends: a
         * document that is a list, a Kubernetes {@code List} (its {@code items}) or one object. After a value is found
         * wrong the rest is still parsed (not kept), so that a syntax error anywhere is reported first, as it would
         * be when the file is read whole.
         */
        Kept<T> stream(JsonParser p) throws IOException, InvalidInputException {
            while (p.nextToken() != null) {
                int line = p.currentTokenLocation().getLineNr();
                if (p.currentToken() == JsonToken.START_ARRAY) {
                    while (p.nextToken() != JsonToken.END_ARRAY) {
                        object(p, p.currentTokenLocation().getLineNr());
                    }
                } else if (p.currentToken() == JsonToken.START_OBJECT) {
                    YamlNode doc = mapping(p, line, true);
                    if (doc != null) {
                        accept(doc);
                    }
                } else {
                    YamlNode doc = YamlNode.read(p, source, YamlNode.Where.ROOT, line, YamlNode.Prune.NOTHING);
                    if (!doc.isNull()) {
                        accept(doc);
                    }
                }
            }
            if (firstError != null) {
                throw firstError;
            }
            return new Kept<>(records, nodes);
        }

        /** One object at the parser's current token (an item of a list). */
        private void object(JsonParser p, int line) throws IOException, InvalidInputException {
            accept(p.currentToken() == JsonToken.START_OBJECT ? mapping(p, line, false)
                    : YamlNode.read(p, source, YamlNode.Where.ROOT, line, YamlNode.Prune.NOTHING));
        }

        /**
         * A mapping: one object, read with what {@link #NODE} or {@link #NEVER_USED} leaves out once its kind is known;
         * or, for a document ({@code top}) with an {@code items} list and no {@code spec}, a Kubernetes {@code List},
         * whose items are taken as they come: then null. A document that has {@code items} and {@code spec} is a record
         * after all: what its items gave is taken back.
         */
        private YamlNode mapping(JsonParser p, int line, boolean top) throws IOException, InvalidInputException {
            Map<String, YamlNode> fields = new LinkedHashMap<>();
            String kind = null;
            Integer itemsLine = null;
            int records0 = records.size();
            int nodes0 = nodes.size();
            int index0 = index;
            InvalidInputException error0 = firstError;
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String name = p.currentName();
                int keyLine = p.currentTokenLocation().getLineNr();
                Integer earlier = fields.containsKey(name) ? Integer.valueOf(fields.get(name).line())
                        : name.equals("items") ? itemsLine : null;
                if (earlier != null) {
                    throw new InvalidInputException(source, name, keyLine,
                            "key given twice in one mapping (first on line " + earlier + ")");
                }
                p.nextToken();
                if (top && name.equals("items") && p.currentToken() == JsonToken.START_ARRAY) {
                    itemsLine = keyLine;
                    while (p.nextToken() != JsonToken.END_ARRAY) {
                        object(p, p.currentTokenLocation().getLineNr());
                    }
                    continue;
                }
                YamlNode.Prune prune = ("Node".equals(kind) ? NODE
                        : kind == null || kind.equals("GpuCapacity") ? NEVER_USED : EVERYTHING).enter(name);
                if (prune == null) {
                    p.skipChildren();
                    continue;
                }
                YamlNode value = YamlNode.read(p, source, YamlNode.Where.ROOT.child(name), keyLine, prune);
                fields.put(name, value);
                if (name.equals("kind")) {
                    kind = text(value);
                }
            }
            if (itemsLine != null) {
                if (fields.get("spec") == null) {
                    return null;
                }
                records.subList(records0, records.size()).clear();
                nodes.subList(nodes0, nodes.size()).clear();
                index = index0;
                firstError = error0;
            }
            return new YamlNode(YamlNode.Kind.MAPPING, null, false, fields, null, line);
        }

        /** One object, turned into a record or a Node; another kind is no concern of ours. */
        private void accept(YamlNode object) {
            int position = index++;
            if (firstError != null) {
                return;
            }
            try {
                if (!object.isMapping()) {
                    throw error("[" + position + "]", object, "expected a GpuCapacity record (a mapping), found "
                            + object.describe());
                }
                String kind = text(object.get("kind"));
                if ("Node".equals(kind)) {
                    String name = text(path(object, "metadata", "name"));
                    if (name != null) {
                        nodes.add(node(name, object));
                    }
                } else if (kind == null || kind.equals("GpuCapacity")) {
                    String where = "[" + position + "]";
                    records.add(keep.keep(new Located(record(object, where), where, object.line())));
                }
            } catch (InvalidInputException e) {
                firstError = e;
            }
        }

        /**
         * A Node object as kubectl writes it: {@code spec.unschedulable} and the first {@code Ready} condition in
         * {@code status.conditions}; one written without a status says nothing of readiness.
         */
        private static KubeNode node(String name, YamlNode object) {
            boolean cordoned = "true".equalsIgnoreCase(text(path(object, "spec", "unschedulable")));
            YamlNode status = object.get("status");
            if (status == null || status.isNull()) {
                return new KubeNode(name, KubeNode.Readiness.NOT_KNOWN, null, cordoned);
            }
            YamlNode conditions = status.get("conditions");
            if (conditions != null && conditions.isSequence()) {
                for (YamlNode c : conditions.items()) {
                    if ("Ready".equals(text(c.get("type")))) {
                        return KubeNode.ready(name, text(c.get("status")), text(c.get("reason")), cordoned);
                    }
                }
            }
            return new KubeNode(name, KubeNode.Readiness.NO_CONDITION, null, cordoned);
        }

        private GpuCapacity record(YamlNode object, String where) throws InvalidInputException {
            YamlNode spec = object.get("spec") == null ? object : object.get("spec");
            YamlNode status = object.get("status");
            String node = text(spec.get("nodeName"));
            if (node == null) {
                node = text(path(object, "metadata", "name"));
            }
            if (node == null) {
                throw error(where + ".metadata.name", object, "missing; expected the node's name");
            }
            // The path is made into text only for a message: most files have no error (issue 37).
            YamlNode.Where at = new YamlNode.Where(null, where + "(" + node + ")", -1);
            List<GpuCapacitySpec.GpuEntry> gpus = new ArrayList<>();
            List<GpuCapacitySpec.Slice> slices = new ArrayList<>();
            YamlNode gpuList = field(spec, status, "gpus");
            if (gpuList != null && !gpuList.isNull()) {
                if (!gpuList.isSequence()) {
                    throw error(at.child("gpus"), gpuList, "expected a list of GPUs, found " + gpuList.describe());
                }
                for (int i = 0; i < gpuList.items().size(); i++) {
                    gpus.add(gpu(gpuList.items().get(i), i, slices, at.child("gpus").item(i)));
                }
            }
            YamlNode sliceList = field(spec, status, "slices");
            if (sliceList != null && sliceList.isSequence()) {
                for (YamlNode s : sliceList.items()) {
                    if (s.isMapping()) {
                        slices.add(new GpuCapacitySpec.Slice(text(s.get("gpuPciAddress")), text(s.get("gpuUuid")),
                                text(s.get("kind")), text(s.get("profile")), null, null, null, null, null));
                    }
                }
            }
            YamlNode requested = field(spec, status, "requested") != null ? field(spec, status, "requested")
                    : field(spec, status, "inUse");
            GpuCapacity record = new GpuCapacity();
            record.setMetadata(new io.fabric8.kubernetes.api.model.ObjectMetaBuilder().withName(node).build());
            record.setSpec(new GpuCapacitySpec(gpus, null, slices, resources(field(spec, status, "allocatable"),
                    at.child("allocatable")), resources(requested, at.child("requested")), null,
                    bool(field(spec, status, "sysClassDrm"), at.child("sysClassDrm")), null,
                    handout(field(spec, status, "handout"), at.child("handout")),
                    fabric(field(spec, status, "fabric"), at)));
            String lastGoodPass = text(field(spec, status, "lastGoodPass"));
            if (lastGoodPass != null) {
                try {
                    instant(lastGoodPass);
                } catch (DateTimeParseException e) {
                    YamlNode value = field(spec, status, "lastGoodPass");
                    throw error(at.child("lastGoodPass"), value, "expected a time such as 2026-05-01T10:00:00Z, found "
                            + value.describe());
                }
                record.setStatus(new GpuCapacityStatus(null, null, lastGoodPass, null));
            }
            return record;
        }

        /**
         * One GPU. The inventory's own {@code partitioning} form becomes {@code partitioned} and slices of this
         * GPU; a GPU with neither address nor UUID is linked to them by its position ({@code gpus[i]}).
         */
        private GpuCapacitySpec.GpuEntry gpu(YamlNode gpu, int index, List<GpuCapacitySpec.Slice> slices,
                YamlNode.Where at) throws InvalidInputException {
            if (!gpu.isMapping()) {
                throw error(at, gpu, "expected a GPU (a mapping with vendor, model, memoryGi, interface)");
            }
            if (text(gpu.get("vendor")) == null) {
                throw error(at.child("vendor"), gpu, "missing; expected nvidia, amd, intel or other");
            }
            Gpu.Builder fields = Gpu.builder("record");
            io.gpudetect.model.Health health = null;
            for (GpuField<?> field : GpuCapacitySpec.GpuEntry.GPU_FIELDS) {
                if (field == GpuField.LINKS) {
                    YamlNode links = gpu.get(field.name());
                    if (links != null) {
                        fields.links(LinksYaml.read(links, at.text(field.name()), this::error));
                    }
                } else if (field == GpuField.HEALTH) {
                    health = read(fields, GpuField.HEALTH, gpu.get(field.name()), at);
                } else {
                    read(fields, field, gpu.get(field.name()), at);
                }
            }
            if (health != null) {
                fields.health(withHealthReasons(health, gpu.get("healthReasons")));
            }
            Gpu read = fields.build();
            String address = read.pciAddress() == null ? null : read.pciAddress().toString();
            String uuid = read.uuid();
            boolean partitioned = "true".equals(text(gpu.get("partitioned")));
            YamlNode partitioning = gpu.get("partitioning");
            if (partitioning != null && partitioning.isMapping()) {
                partitioned |= "true".equals(text(partitioning.get("enabled")));
                YamlNode instances = partitioning.get("instances");
                if (instances != null && instances.isSequence()) {
                    if (address == null && uuid == null) {
                        uuid = "gpus[" + index + "]";
                    }
                    for (YamlNode instance : instances.items()) {
                        slices.add(new GpuCapacitySpec.Slice(address, uuid, text(partitioning.get("kind")),
                                text(instance.get("profile")), null, null, null, null, null));
                    }
                }
            }
            return GpuCapacitySpec.GpuEntry.of(read, drmCards(gpu.get("drmCards"), at))
                    .linked(uuid, partitioned);
        }

        /**
         * {@code health} with the codes of its {@code healthReasons} list (the record's reasons for its health) that
         * this model knows; as it is when the record gives none. Set on the GPU's builder before it is built, not on a
         * copy of the built GPU: one {@code Gpu} per GPU read, not two (issue 37).
         */
        private static io.gpudetect.model.Health withHealthReasons(io.gpudetect.model.Health health, YamlNode reasons) {
            if (reasons == null || !reasons.isSequence()) {
                return health;
            }
            List<io.gpudetect.model.HealthReason> codes = new ArrayList<>();
            for (YamlNode code : reasons.items()) {
                io.gpudetect.model.HealthReason r = io.gpudetect.model.HealthReason.fromCode(text(code));
                if (r != null) {
                    codes.add(r);
                }
            }
            return new io.gpudetect.model.Health(health.status(), health.eccUncorrectedErrors(), health.problems(),
                    codes);
        }

        /**
         * One field of a GPU, read as {@link GpuField#parse} reads its type and set on {@code gpu}; nothing when
         * absent or blank. Returns what was set, or null.
         */
        private <T> T read(Gpu.Builder gpu, GpuField<T> field, YamlNode node, YamlNode.Where at)
                throws InvalidInputException {
            if (node == null || node.isNull()) {
                return null;
            }
            // The path is built for a message only: a record has some 25 fields a GPU, and most files no error.
            if (field.hasParts() && node.isMapping()) {
                Map<String, String> parts = new java.util.LinkedHashMap<>();
                for (Map.Entry<String, YamlNode> part : node.fields().entrySet()) {
                    if (!part.getValue().isNull() && !part.getValue().isScalar()) {
                        throw error(at.child(field.name()).text(part.getKey()), part.getValue(),
                                "expected one value, found "
                                + part.getValue().describe());
                    }
                    parts.put(part.getKey(), text(part.getValue()));
                }
                try {
                    T value = field.parseParts(parts);
                    gpu.set(field, value);
                    return value;
                } catch (IllegalArgumentException e) {
                    throw error(at.child(field.name()), node, e.getMessage() + ", found " + node.describe());
                }
            }
            if (!node.isScalar()) {
                throw error(at.child(field.name()), node, "expected one value, found " + node.describe());
            }
            String t = text(node);
            if (t == null) {
                return null;
            }
            try {
                T value = field.parse(t);
                gpu.set(field, value);
                return value;
            } catch (IllegalArgumentException e) {
                throw error(at.child(field.name()), node, e.getMessage() + ", found " + node.describe());
            }
        }

        /**
         * A GPU's DRM card names ({@code [card0]}); null when the record does not say (not known, not none).
         * {@code gpu} is where the GPU is: the list is its {@code drmCards}.
         */
        private List<String> drmCards(YamlNode list, YamlNode.Where gpu) throws InvalidInputException {
            if (list == null || list.isNull()) {
                return null;
            }
            if (!list.isSequence()) {
                throw error(gpu.child("drmCards"), list, "expected a list of DRM card names such as [card0], found "
                        + list.describe());
            }
            List<String> names = new ArrayList<>();
            for (int i = 0; i < list.items().size(); i++) {
                YamlNode item = list.items().get(i);
                String name = text(item);
                // ghw's rule: a /sys/class/drm entry named card* without a '-' (card0-HDMI-A-1 is a connector).
                if (name == null || !name.startsWith("card") || name.indexOf('-') >= 0) {
                    throw error(gpu.child("drmCards").item(i), item, "expected a DRM card name such as card0, found "
                            + item.describe());
                }
                names.add(name);
            }
            return names;
        }

        /**
         * The record's {@code handout}, as the agent writes it ({@link NodeHandout}); null when absent (an older
         * agent's record). Each value is checked: a mode or {@code by} out of its four words, a PCI address that is
         * not one, a DRA device without driver, pool or device, a count that is not a whole number.
         */
        private NodeHandout handout(YamlNode node, YamlNode.Where at) throws InvalidInputException {
            if (node == null || node.isNull()) {
                return null;
            }
            if (!node.isMapping()) {
                throw error(at, node, "expected a mapping with mode, gpus, draTotals, unmatched, problems, found "
                        + node.describe());
            }
            String mode = word(node.get("mode"), node, at.child("mode"), HANDOUT_MODES);
            List<NodeHandout.GpuHandout> gpus = new ArrayList<>();
            for (YamlNode g : list(node.get("gpus"), at.child("gpus"), "GPU hand-outs")) {
                YamlNode.Where gat = at.child("gpus").item(gpus.size());
                if (!g.isMapping()) {
                    throw error(gat, g, "expected a GPU hand-out (a mapping with pciAddress or uuid, by, dra), found "
                            + g.describe());
                }
                String address = text(g.get("pciAddress"));
                if (address != null && PciAddress.parse(address).isEmpty()) {
                    throw error(gat.child("pciAddress"), g.get("pciAddress"),
                            "expected a PCI address such as 0000:17:00.0, found "
                            + g.get("pciAddress").describe());
                }
                String uuid = text(g.get("uuid"));
                if (address == null && uuid == null) {
                    throw error(gat, g, "expected pciAddress or uuid: the GPU of the record this hand-out is for");
                }
                String by = word(g.get("by"), g, gat.child("by"), HANDOUT_MODES);
                List<NodeHandout.DraDeviceRef> dra = devices(g.get("dra"), gat.child("dra"));
                if ((by.equals("dra") || by.equals("both")) && dra.isEmpty()) {
                    throw error(gat.child("dra"), g, "expected at least one DRA device for by: " + by);
                }
                gpus.add(new NodeHandout.GpuHandout(address, uuid, by, text(g.get("devicePlugin")), dra,
                        bool(g.get("allocated"), gat.child("allocated"))));
            }
            List<NodeHandout.DraTotal> totals = new ArrayList<>();
            for (YamlNode t : list(node.get("draTotals"), at.child("draTotals"), "per-driver totals")) {
                YamlNode.Where tat = at.child("draTotals").item(totals.size());
                if (!t.isMapping() || text(t.get("driver")) == null) {
                    throw error(tat, t, "expected a mapping with driver, gpus, allocatedGpus, devices, "
                            + "allocatedDevices, found " + t.describe());
                }
                totals.add(new NodeHandout.DraTotal(text(t.get("driver")), count(t.get("gpus"), tat.child("gpus")),
                        count(t.get("allocatedGpus"), tat.child("allocatedGpus")),
                        count(t.get("devices"), tat.child("devices")),
                        count(t.get("allocatedDevices"), tat.child("allocatedDevices"))));
            }
            List<String> problems = new ArrayList<>();
            for (YamlNode p : list(node.get("problems"), at.child("problems"), "problems (text)")) {
                if (text(p) == null) {
                    throw error(at.child("problems").item(problems.size()), p, "expected a line of text, found "
                            + p.describe());
                }
                problems.add(text(p));
            }
            return new NodeHandout(mode, gpus, totals, devices(node.get("unmatched"), at.child("unmatched")), problems);
        }

        private static final List<String> HANDOUT_MODES = List.of("devicePlugin", "dra", "both", "none");

        /** A claim as namespace/name; compiled once, not at each claim (String.matches compiles its pattern). */
        private static final java.util.regex.Pattern CLAIM = java.util.regex.Pattern.compile("[^/\\s]+/[^/\\s]+");

        /** DRA devices as a claim's allocation names them, with {@code allocated} and {@code claims}. */
        private List<NodeHandout.DraDeviceRef> devices(YamlNode node, YamlNode.Where at) throws InvalidInputException {
            List<NodeHandout.DraDeviceRef> out = new ArrayList<>();
            for (YamlNode d : list(node, at, "DRA devices")) {
                YamlNode.Where dat = at.item(out.size());
                if (!d.isMapping()) {
                    throw error(dat, d, "expected a DRA device (a mapping with driver, pool, device), found "
                            + d.describe());
                }
                for (String required : List.of("driver", "pool", "device")) {
                    if (text(d.get(required)) == null) {
                        throw error(dat.child(required), d, "missing; expected the device's " + required
                                + " as its ResourceSlice names it");
                    }
                }
                List<String> claims = new ArrayList<>();
                for (YamlNode c : list(d.get("claims"), dat.child("claims"), "claims (namespace/name)")) {
                    String claim = text(c);
                    if (claim == null || !CLAIM.matcher(claim).matches()) {
                        throw error(dat.child("claims").item(claims.size()), c,
                                "expected a claim as namespace/name, found "
                                + c.describe());
                    }
                    claims.add(claim);
                }
                Boolean allocated = bool(d.get("allocated"), dat.child("allocated"));
                out.add(new NodeHandout.DraDeviceRef(text(d.get("driver")), text(d.get("pool")), text(d.get("device")),
                        text(d.get("type")), text(d.get("matchedBy")),
                        allocated != null ? allocated : !claims.isEmpty(), claims));
            }
            return out;
        }

        /** The items of a list; none when absent. */
        private List<YamlNode> list(YamlNode node, YamlNode.Where at, String what) throws InvalidInputException {
            if (node == null || node.isNull()) {
                return List.of();
            }
            if (!node.isSequence()) {
                throw error(at, node, "expected a list of " + what + ", found " + node.describe());
            }
            return node.items();
        }

        /** One of {@code words}, exactly as written; {@code parent} holds it (for the line when it is missing). */
        private String word(YamlNode node, YamlNode parent, YamlNode.Where at, List<String> words)
                throws InvalidInputException {
            String t = text(node);
            if (t == null) {
                throw error(at, parent, "missing; expected " + String.join(", ", words));
            }
            if (!words.contains(t)) {
                throw error(at, node, "expected " + String.join(", ", words) + ", found " + node.describe());
            }
            return t;
        }

        private int count(YamlNode node, YamlNode.Where at) throws InvalidInputException {
            return node == null || node.isNull() ? 0 : Math.toIntExact(whole(node, at));
        }

        /** true or false; null when absent. */
        private Boolean bool(YamlNode node, YamlNode.Where at) throws InvalidInputException {
            if (node == null || node.isNull()) {
                return null;
            }
            String t = text(node);
            if ("true".equals(t) || "false".equals(t)) {
                return Boolean.valueOf(t);
            }
            throw error(at, node, "expected true or false, found " + node.describe());
        }

        /** Resource counts ({@code nvidia.com/gpu: 8}); null when the record has none (not known, not zero). */
        private Map<String, Long> resources(YamlNode map, YamlNode.Where at) throws InvalidInputException {
            if (map == null || map.isNull()) {
                return null;
            }
            if (!map.isMapping()) {
                throw error(at, map, "expected a mapping of unit kind to count ({nvidia.com/gpu: 8}), found "
                        + map.describe());
            }
            Map<String, Long> out = new LinkedHashMap<>();
            for (Map.Entry<String, YamlNode> e : map.fields().entrySet()) {
                out.merge(e.getKey().strip(), whole(e.getValue(), at.child(e.getKey())), Long::sum);
            }
            return out;
        }

        private long whole(YamlNode node, YamlNode.Where at) throws InvalidInputException {
            if (node.isScalar() && node.text().strip().matches("\\d{1,9}")) {
                return Long.parseLong(node.text().strip());
            }
            throw error(at, node, "expected a whole number of 0 or more, found " + node.describe());
        }

        private InvalidInputException error(String path, YamlNode at, String problem) {
            return new InvalidInputException(source, path, at == null ? null : at.line(), problem);
        }

        private InvalidInputException error(YamlNode.Where path, YamlNode at, String problem) {
            return error(path.text(null), at, problem);
        }

        /** The record's {@code fabric} ({@link RecordFabric}); null when absent. */
        private io.gpudetect.record.FabricSpec fabric(YamlNode node, YamlNode.Where record)
                throws InvalidInputException {
            return node == null ? null : RecordFabric.read(node, record.text("fabric"), this::error);
        }

        private static YamlNode field(YamlNode spec, YamlNode status, String name) {
            YamlNode v = spec.get(name);
            return v != null || status == null ? v : status.get(name);
        }

        private static YamlNode path(YamlNode node, String... names) {
            YamlNode n = node;
            for (String name : names) {
                if (n == null) {
                    return null;
                }
                n = n.get(name);
            }
            return n;
        }

        private static String text(YamlNode node) {
            return node == null || !node.isScalar() || node.text().isBlank() ? null : node.text().strip();
        }
    }
}

package io.gpudetect.cli;

import io.gpudetect.source.IoFailure;
import io.gpudetect.match.CapabilityRequest;
import io.gpudetect.match.Demand;
import io.gpudetect.match.InvalidInputException;
import io.gpudetect.match.MatchReport;
import io.gpudetect.match.MatchResult;
import io.gpudetect.match.Matcher;
import io.gpudetect.match.OfferSource;
import io.gpudetect.match.Placement;
import io.gpudetect.match.SdlReader;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code gpu-detect match deploy.yaml} or {@code gpu-detect match --gpu vendor=nvidia,model=h100,count=2}: can
 * these nodes serve it? Exit status as grep and diff: 0 it fits, 1 it does not, 2 the input is invalid or the
 * cluster cannot be read (one line that names the server and the cause: {@link io.gpudetect.k8s.ClusterErrors}).
 */
@Command(name = "match", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class, sortOptions = false,
        description = "Says which nodes can serve the GPUs an Akash SDL (deploy.yaml) or a --gpu request asks for, "
                + "and why the others cannot.",
        exitCodeListHeading = "%nExit status:%n",
        exitCodeList = {"0:every replica fits on some node", "1:some replica fits nowhere",
                "2:invalid input (SDL, --gpu, records or bundle), or the cluster cannot be read: no kubeconfig, "
                        + "connection refused, unknown host, TLS failure, 401/403 (RBAC), GpuCapacity CRD not installed"})
public final class MatchCommand implements Callable<Integer> {

    public static final int EXIT_FITS = 0;
    public static final int EXIT_DOES_NOT_FIT = 1;
    public static final int EXIT_INVALID_INPUT = 2;

    @Spec
    CommandSpec spec;

    @Parameters(arity = "0..1", paramLabel = "SDL", description = "An Akash SDL file (deploy.yaml, version 2.0 or 2.1; later versions are read as 2.1, as the network does).")
    Path sdl;

    @Option(names = "--gpu", paramLabel = "REQUEST",
            description = "A request instead of (or besides) an SDL, keys joined by commas, e.g. "
                    + "'vendor=nvidia,vram>=24Gi,count=2', 'vendor=nvidia,model=h100|a100,interface=sxm' or "
                    + "'vendor=amd,replicas=2'. Each GPU can also be asked for its driver stack and PCIe link: "
                    + "driver>=550.54, cuda>=12.8 (rocm>=6.2 for amd), pcie>=gen4x16, link=full (no GPU on fewer lanes "
                    + "than it has). And the node's RDMA fabric: fabric=infiniband (roce, iwarp, any), fabric>=400G. "
                    + "Repeatable.")
    List<String> gpus = new ArrayList<>();

    @Mixin
    OfferOptions offers;

    @Mixin
    OutputOption output;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        MatchResult result;
        try (OfferOptions from = offers) {
            Demand demand = demand();
            OfferSource source = from.source();
            result = Matcher.match(demand, source.describe(), source.offers());
        } catch (InvalidInputException e) {
            err.println("gpu-detect match: " + e.getMessage());
            err.flush();
            return EXIT_INVALID_INPUT;
        }
        output.print(out, () -> MatchReport.json(result), () -> MatchReport.table(result));
        return result.fits() ? EXIT_FITS : EXIT_DOES_NOT_FIT;
    }

    private Demand demand() throws InvalidInputException {
        if (sdl == null && gpus.isEmpty()) {
            throw new InvalidInputException(null, null, null, "nothing to match: give an SDL file or --gpu REQUEST");
        }
        List<Placement> placements = new ArrayList<>();
        List<String> warnings = new ArrayList<>();
        String origin = "--gpu";
        if (sdl != null) {
            String text;
            try {
                text = IoFailure.readText(sdl);
            } catch (IOException e) {
                throw new InvalidInputException(sdl.toString(), null, null, IoFailure.fileReason(e));
            }
            Demand fromFile = SdlReader.read(text, sdl.toString());
            placements.addAll(fromFile.placements());
            warnings.addAll(fromFile.warnings());
            origin = sdl.toString() + (gpus.isEmpty() ? "" : " and --gpu");
        }
        for (int i = 0; i < gpus.size(); i++) {
            placements.add(CapabilityRequest.parse(gpus.get(i), i));
        }
        return new Demand(origin, placements, warnings);
    }
}

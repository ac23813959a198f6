package io.gpudetect.probe.fabric;

import io.gpudetect.model.Diagnostic;
import io.gpudetect.model.Fabric;
import io.gpudetect.model.Fabric.GpuDirectRdma.Verdict;
import io.gpudetect.model.Gpu;
import io.gpudetect.model.Vendor;
import io.gpudetect.source.Source;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Whether GPUDirect RDMA can work on the node, said as a fact with the evidence it rests on, never more than that
 * evidence shows. An RDMA device reads a GPU's memory directly in one of two ways:
 * <ul>
 *   <li>a peer-memory module: NVIDIA's {@code nvidia_peermem} (shipped with its driver) or Mellanox's older
 *       {@code nv_peer_mem}, loaded: {@code /sys/module/<name>/initstate} says {@code live};</li>
 *   <li>dma-buf: the RDMA core imports dma-buf memory since Linux 5.12, and NVIDIA's driver exports GPU memory as
 *       dma-buf from 515 on, in its open kernel module only ({@code /proc/driver/nvidia/version} says "Open Kernel
 *       Module"); the application (NCCL, UCX) must then ask for it.</li>
 * </ul>
 * Where neither holds on an NVIDIA node with an RDMA device: cannot (until {@code nvidia_peermem} is loaded). AMD's
 * peer path (amdgpu's dma-buf export, ROCm's peer-direct) is not judged: unknown, and said so.
 *
 * <p>In a replayed bundle that records the fabric, the module files were asked for when it was recorded, so their
 * absence is read as on the host.
 */
final class GpuDirectRdmaCheck {

    static final String NVIDIA_PEERMEM = "/sys/module/nvidia_peermem/initstate";
    static final String NV_PEER_MEM = "/sys/module/nv_peer_mem/initstate";
    static final String NVIDIA_VERSION = "/sys/module/nvidia/version";
    static final String NVIDIA_PROC_VERSION = "/proc/driver/nvidia/version";
    static final String OS_RELEASE = "/proc/sys/kernel/osrelease";
    private static final Pattern KERNEL = Pattern.compile("(\\d{1,3})\\.(\\d{1,3}).*");
    private static final Pattern DRIVER = Pattern.compile("(\\d{2,4})\\..*");

    private GpuDirectRdmaCheck() {
    }

    static Fabric.GpuDirectRdma judge(Source source, List<Gpu> gpus, List<Fabric.RdmaDevice> devices,
                                      List<Diagnostic> diagnostics) {
        List<String> evidence = new ArrayList<>();
        long nics = devices.stream().filter(d -> d.pciAddress() != null).count();
        boolean nvidia = false;
        boolean amd = false;
        for (Gpu g : gpus) {
            nvidia |= g.vendor() == Vendor.NVIDIA;
            amd |= g.vendor() == Vendor.AMD;
        }
        if (nics == 0) {
            evidence.add(devices.isEmpty() ? "no RDMA device: " + RdmaFabricReader.CLASS_INFINIBAND + " lists none"
                    : "no RDMA device on the PCI bus: " + RdmaFabricReader.CLASS_INFINIBAND + " lists software devices only");
            return new Fabric.GpuDirectRdma(Verdict.CANNOT, evidence);
        }
        if (!nvidia && !amd) {
            evidence.add("no NVIDIA or AMD GPU on the node");
            return new Fabric.GpuDirectRdma(gpus.isEmpty() ? Verdict.CANNOT : Verdict.UNKNOWN, evidence);
        }
        if (!nvidia) {
            evidence.add("AMD GPUs only: gpu-detect does not judge AMD's peer path (amdgpu dma-buf, ROCm peer-direct)");
            return new Fabric.GpuDirectRdma(Verdict.UNKNOWN, evidence);
        }
        String peermem = live(source, NVIDIA_PEERMEM, diagnostics);
        String oldPeermem = live(source, NV_PEER_MEM, diagnostics);
        if (peermem != null || oldPeermem != null) {
            evidence.add((peermem != null ? "nvidia_peermem" : "nv_peer_mem") + " is loaded ("
                    + (peermem != null ? NVIDIA_PEERMEM : NV_PEER_MEM) + ": " + (peermem != null ? peermem : oldPeermem) + ")");
            return new Fabric.GpuDirectRdma(Verdict.CAN_WORK, evidence);
        }
        evidence.add("neither nvidia_peermem nor nv_peer_mem is loaded (no " + NVIDIA_PEERMEM + " nor " + NV_PEER_MEM + ")");
        String proc = read(source, NVIDIA_PROC_VERSION, diagnostics);
        String driver = read(source, NVIDIA_VERSION, diagnostics);
        String kernel = read(source, OS_RELEASE, diagnostics);
        if (proc == null) {
            evidence.add("the NVIDIA driver does not say whether it is its open kernel module (no " + NVIDIA_PROC_VERSION
                    + "), so dma-buf cannot be judged");
            return new Fabric.GpuDirectRdma(Verdict.UNKNOWN, evidence);
        }
        boolean open = proc.contains("Open Kernel Module");
        if (!open) {
            evidence.add("the NVIDIA kernel module is the proprietary one (" + NVIDIA_PROC_VERSION
                    + "), which exports no dma-buf");
            return new Fabric.GpuDirectRdma(Verdict.CANNOT, evidence);
        }
        Integer major = driver == null ? null : number(DRIVER, driver, 1);
        Matcher k = kernel == null ? null : KERNEL.matcher(kernel.strip());
        boolean kernelKnown = k != null && k.matches();
        boolean kernelOk = kernelKnown && (Integer.parseInt(k.group(1)) > 5
                || (Integer.parseInt(k.group(1)) == 5 && Integer.parseInt(k.group(2)) >= 12));
        if (major == null || !kernelKnown) {
            evidence.add("the NVIDIA open kernel module is loaded, but " + (major == null ? "its version (" + NVIDIA_VERSION
                    + ")" : "the kernel's (" + OS_RELEASE + ")") + " is not known, so dma-buf cannot be judged");
            return new Fabric.GpuDirectRdma(Verdict.UNKNOWN, evidence);
        }
        if (major < 515 || !kernelOk) {
            evidence.add("dma-buf needs NVIDIA's open kernel module 515 or later on Linux 5.12 or later; this is "
                    + driver.strip() + " on " + kernel.strip());
            return new Fabric.GpuDirectRdma(Verdict.CANNOT, evidence);
        }
        evidence.add("dma-buf: NVIDIA's open kernel module " + driver.strip() + " on Linux " + kernel.strip()
                + " exports GPU memory to the RDMA driver (the application must ask for dma-buf)");
        return new Fabric.GpuDirectRdma(Verdict.CAN_WORK, evidence);
    }

    /** The module's {@code initstate} when it says {@code live}; null otherwise. */
    private static String live(Source source, String path, List<Diagnostic> diagnostics) {
        String v = read(source, path, diagnostics);
        return v != null && v.strip().equals("live") ? "live" : null;
    }

    private static String read(Source source, String path, List<Diagnostic> diagnostics) {
        try {
            Optional<String> text = source.readFile(path);
            return text.map(String::strip).filter(t -> !t.isEmpty() && t.length() <= 512).orElse(null);
        } catch (IOException e) {
            diagnostics.add(Diagnostic.info(RdmaFabricReader.NAME, path, null, "cannot read: " + e.getMessage()));
            return null;
        }
    }

    private static Integer number(Pattern p, String text, int group) {
        Matcher m = p.matcher(text.strip());
        return m.matches() ? Integer.valueOf(m.group(group)) : null;
    }
}

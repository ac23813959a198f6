package io.gpudetect.testing;

/**
 * A node's pods and ResourceSlice as the API server serves them on a busy GPU node, for measuring what the agent
 * keeps of them: each pod as a Deployment's pod looks after the kubelet has run it (two containers with
 * arguments, environment, ports, probes, mounts and resources; volumes; tolerations; labels, annotations, an
 * owner and the managed fields of its creator and the kubelet; a status with conditions and container states),
 * about 7 KB of JSON. The first {@code gpuPods} ask for one {@code nvidia.com/gpu} each.
 */
public final class NodePods {

    /** The kubelet's default most pods on a node. */
    public static final int KUBELET_MAX_PODS = 110;

    private NodePods() {
    }

    /** Pod {@code p} of {@code node}, JSON; one {@code nvidia.com/gpu} asked when {@code gpu}. */
    public static String pod(String node, int p, boolean gpu) {
        String namespace = gpu ? "ml" : "team-" + (p % 7);
        String app = gpu ? "trainer" : "app-" + (p % 50);
        String name = app + "-5d9f8b7c6d-" + suffix(p);
        String gpuLimit = gpu ? ",\"nvidia.com/gpu\":\"1\"" : "";
        String cpu = gpu ? "16" : "250m";
        String memory = gpu ? "128Gi" : "512Mi";
        String uid = String.format("%08x-%04x-4%03x-8%03x-%012x", 0x1f2e3d4cL + p, p & 0xffff, p & 0xfff, p & 0xfff,
                0x5a5a5a5a5aL + p);
        String time = "2026-04-30T12:%02d:%02dZ".formatted(p % 60, (p * 7) % 60);
        return """
                {"apiVersion":"v1","kind":"Pod",
                 "metadata":{"name":"%1$s","namespace":"%2$s","uid":"%3$s","generateName":"%4$s-5d9f8b7c6d-",
                  "creationTimestamp":"%5$s","resourceVersion":"%6$d",
                  "labels":{"app":"%4$s","pod-template-hash":"5d9f8b7c6d","app.kubernetes.io/part-of":"platform","tier":"backend"},
                  "annotations":{"kubectl.kubernetes.io/restartedAt":"2026-04-29T08:00:00Z","prometheus.io/scrape":"true","prometheus.io/port":"9090"},
                  "ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"%4$s-5d9f8b7c6d","uid":"0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d","controller":true,"blockOwnerDeletion":true}],
                  "managedFields":[
                   {"manager":"kube-controller-manager","operation":"Update","apiVersion":"v1","time":"%5$s","fieldsType":"FieldsV1",
                    "fieldsV1":{"f:metadata":{"f:generateName":{},"f:labels":{".":{},"f:app":{},"f:pod-template-hash":{},"f:tier":{}},"f:ownerReferences":{".":{},"k:{\\"uid\\":\\"0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d\\"}":{}}},
                     "f:spec":{"f:containers":{"k:{\\"name\\":\\"main\\"}":{".":{},"f:args":{},"f:env":{".":{},"k:{\\"name\\":\\"POD_NAME\\"}":{".":{},"f:name":{},"f:valueFrom":{".":{},"f:fieldRef":{}}}},"f:image":{},"f:imagePullPolicy":{},"f:name":{},"f:ports":{},"f:resources":{".":{},"f:limits":{},"f:requests":{}}},"k:{\\"name\\":\\"proxy\\"}":{".":{},"f:image":{},"f:name":{}}},"f:dnsPolicy":{},"f:restartPolicy":{},"f:schedulerName":{},"f:securityContext":{},"f:terminationGracePeriodSeconds":{},"f:volumes":{}}}},
                   {"manager":"kubelet","operation":"Update","apiVersion":"v1","time":"%5$s","fieldsType":"FieldsV1","subresource":"status",
                    "fieldsV1":{"f:status":{"f:conditions":{"k:{\\"type\\":\\"ContainersReady\\"}":{".":{},"f:lastProbeTime":{},"f:lastTransitionTime":{},"f:status":{},"f:type":{}},"k:{\\"type\\":\\"Initialized\\"}":{".":{},"f:status":{},"f:type":{}},"k:{\\"type\\":\\"Ready\\"}":{".":{},"f:status":{},"f:type":{}}},"f:containerStatuses":{},"f:hostIP":{},"f:hostIPs":{},"f:phase":{},"f:podIP":{},"f:podIPs":{".":{},"k:{\\"ip\\":\\"10.244.3.%7$d\\"}":{".":{},"f:ip":{}}},"f:startTime":{}}}}]},
                 "spec":{"nodeName":"%8$s","restartPolicy":"Always","schedulerName":"default-scheduler","serviceAccountName":"default",
                  "dnsPolicy":"ClusterFirst","enableServiceLinks":true,"preemptionPolicy":"PreemptLowerPriority","priority":0,
                  "terminationGracePeriodSeconds":30,"securityContext":{"runAsNonRoot":true,"fsGroup":2000},
                  "containers":[
                   {"name":"main","image":"registry.example.com/%2$s/%4$s:v1.2.3","imagePullPolicy":"IfNotPresent",
                    "args":["--config=/etc/app/config.yaml","--port=8080","--metrics-port=9090","--log-level=info"],
                    "env":[{"name":"POD_NAME","valueFrom":{"fieldRef":{"apiVersion":"v1","fieldPath":"metadata.name"}}},
                     {"name":"POD_NAMESPACE","valueFrom":{"fieldRef":{"apiVersion":"v1","fieldPath":"metadata.namespace"}}},
                     {"name":"MODE","value":"production"},{"name":"CACHE_SIZE","value":"256Mi"},
                     {"name":"DB_PASSWORD","valueFrom":{"secretKeyRef":{"name":"db","key":"password"}}}],
                    "ports":[{"containerPort":8080,"name":"http","protocol":"TCP"},{"containerPort":9090,"name":"metrics","protocol":"TCP"}],
                    "readinessProbe":{"httpGet":{"path":"/ready","port":8080,"scheme":"HTTP"},"periodSeconds":10,"timeoutSeconds":1,"successThreshold":1,"failureThreshold":3},
                    "livenessProbe":{"httpGet":{"path":"/health","port":8080,"scheme":"HTTP"},"initialDelaySeconds":15,"periodSeconds":20,"timeoutSeconds":1,"successThreshold":1,"failureThreshold":3},
                    "resources":{"requests":{"cpu":"%9$s","memory":"%10$s"%11$s},"limits":{"cpu":"%9$s","memory":"%10$s"%11$s}},
                    "securityContext":{"allowPrivilegeEscalation":false,"capabilities":{"drop":["ALL"]},"readOnlyRootFilesystem":true},
                    "terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File",
                    "volumeMounts":[{"mountPath":"/etc/app","name":"config"},{"mountPath":"/tmp","name":"scratch"},
                     {"mountPath":"/var/run/secrets/kubernetes.io/serviceaccount","name":"kube-api-access-%12$s","readOnly":true}]},
                   {"name":"proxy","image":"registry.example.com/mesh/proxy:v1.24.2","imagePullPolicy":"IfNotPresent",
                    "args":["proxy","sidecar","--concurrency=2"],
                    "ports":[{"containerPort":15090,"name":"http-envoy-prom","protocol":"TCP"}],
                    "resources":{"requests":{"cpu":"100m","memory":"128Mi"},"limits":{"cpu":"2","memory":"1Gi"}},
                    "terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File",
                    "volumeMounts":[{"mountPath":"/var/run/secrets/kubernetes.io/serviceaccount","name":"kube-api-access-%12$s","readOnly":true}]}],
                  "tolerations":[{"effect":"NoExecute","key":"node.kubernetes.io/not-ready","operator":"Exists","tolerationSeconds":300},
                   {"effect":"NoExecute","key":"node.kubernetes.io/unreachable","operator":"Exists","tolerationSeconds":300}],
                  "volumes":[{"name":"config","configMap":{"name":"%4$s-config","defaultMode":420}},{"name":"scratch","emptyDir":{}},
                   {"name":"kube-api-access-%12$s","projected":{"defaultMode":420,"sources":[
                    {"serviceAccountToken":{"expirationSeconds":3607,"path":"token"}},
                    {"configMap":{"name":"kube-root-ca.crt","items":[{"key":"ca.crt","path":"ca.crt"}]}},
                    {"downwardAPI":{"items":[{"path":"namespace","fieldRef":{"apiVersion":"v1","fieldPath":"metadata.namespace"}}]}}]}}]},
                 "status":{"phase":"Running","qosClass":"%13$s","hostIP":"10.0.0.2","hostIPs":[{"ip":"10.0.0.2"}],
                  "podIP":"10.244.3.%7$d","podIPs":[{"ip":"10.244.3.%7$d"}],"startTime":"%5$s",
                  "conditions":[{"type":"PodReadyToStartContainers","status":"True","lastProbeTime":null,"lastTransitionTime":"%5$s"},
                   {"type":"Initialized","status":"True","lastProbeTime":null,"lastTransitionTime":"%5$s"},
                   {"type":"Ready","status":"True","lastProbeTime":null,"lastTransitionTime":"%5$s"},
                   {"type":"ContainersReady","status":"True","lastProbeTime":null,"lastTransitionTime":"%5$s"},
                   {"type":"PodScheduled","status":"True","lastProbeTime":null,"lastTransitionTime":"%5$s"}],
                  "containerStatuses":[
                   {"name":"main","ready":true,"started":true,"restartCount":0,"image":"registry.example.com/%2$s/%4$s:v1.2.3",
                    "imageID":"registry.example.com/%2$s/%4$s@sha256:3f1b8c2d9e4a5f6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b",
                    "containerID":"containerd://9b8c7d6e5f4a3b2c1d0e9f8a7b6c5d4e3f2a1b0c9d8e7f6a5b4c3d2e1f0a9b8c",
                    "lastState":{},"state":{"running":{"startedAt":"%5$s"}}},
                   {"name":"proxy","ready":true,"started":true,"restartCount":0,"image":"registry.example.com/mesh/proxy:v1.24.2",
                    "imageID":"registry.example.com/mesh/proxy@sha256:0a9b8c7d6e5f4a3b2c1d0e9f8a7b6c5d4e3f2a1b0c9d8e7f6a5b4c3d2e1f0a9b",
                    "containerID":"containerd://1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b1c2d3e4f5a6b7c8d9e0f1a2b",
                    "lastState":{},"state":{"running":{"startedAt":"%5$s"}}}]}}
                """.formatted(name, namespace, uid, app, time, 1000 + p, 2 + p % 250, node, cpu, memory, gpuLimit,
                suffix(p + 11), gpu ? "Guaranteed" : "Burstable");
    }

    /**
     * The node's ResourceSlice ({@code resource.k8s.io/v1}) of {@code gpus} NVIDIA GPUs, as NVIDIA's DRA driver
     * publishes it (attributes, capacity), with its metadata as the API server keeps it.
     */
    public static String slice(String node, int gpus) {
        StringBuilder devices = new StringBuilder();
        for (int g = 0; g < gpus; g++) {
            if (g > 0) {
                devices.append(',');
            }
            devices.append("""
                    {"name":"gpu-%1$d","attributes":{"type":{"string":"gpu"},"uuid":{"string":"GPU-4f1c2b3a-%1$04d-4e5f-8a9b-0c1d2e3f4a5b"},
                     "productName":{"string":"NVIDIA H100 80GB HBM3"},"brand":{"string":"Nvidia"},"architecture":{"string":"Hopper"},
                     "cudaComputeCapability":{"version":"9.0.0"},"driverVersion":{"version":"580.159.4"},"cudaDriverVersion":{"version":"13.0.0"},
                     "pcieBusID":{"string":"0000:%2$02x:00.0"},"resource.kubernetes.io/pciBusID":{"string":"0000:%2$02x:00.0"},
                     "index":{"int":%1$d},"minor":{"int":%1$d}},
                     "capacity":{"memory":{"value":"80Gi"}}}""".formatted(g, 0x18 + g * 0x10));
        }
        return """
                {"apiVersion":"resource.k8s.io/v1","kind":"ResourceSlice",
                 "metadata":{"name":"%1$s-gpu.nvidia.com-x7k2p","generateName":"%1$s-gpu.nvidia.com-","uid":"7e6d5c4b-3a29-4180-9f8e-7d6c5b4a3928",
                  "creationTimestamp":"2026-04-30T12:00:00Z",
                  "ownerReferences":[{"apiVersion":"v1","kind":"Node","name":"%1$s","uid":"5b4a3928-7e6d-4c5b-8a39-28170f6e5d4c","controller":true}],
                  "managedFields":[{"manager":"gpu-kubelet-plugin","operation":"Update","apiVersion":"resource.k8s.io/v1","time":"2026-04-30T12:00:00Z",
                   "fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:generateName":{},"f:ownerReferences":{}},"f:spec":{"f:devices":{},"f:driver":{},"f:nodeName":{},"f:pool":{}}}}]},
                 "spec":{"driver":"gpu.nvidia.com","nodeName":"%1$s","pool":{"name":"%1$s","generation":1,"resourceSliceCount":1},
                  "devices":[%2$s]}}
                """.formatted(node, devices);
    }

    private static String suffix(int p) {
        String letters = "bcdfghjklmnpqrstvwxz2456789";
        StringBuilder s = new StringBuilder();
        // Five digits base 27 of a number that differs for every p below 1,700: names stay unique.
        int x = p * 7919 + 104729;
        for (int i = 0; i < 5; i++) {
            s.append(letters.charAt(x % letters.length()));
            x /= letters.length();
        }
        return s.toString();
    }
}

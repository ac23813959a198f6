package io.gpudetect.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.gpudetect.testing.MockApiServer;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The bench's mock API server ({@link MockApiServer#main}, {@link MockApiServer#nodeSelectorIgnoring(boolean)}) starts a watch where it is asked to, as a real API server does: a watch from the
 * version a list returned gets only what changed after it, not every stored object again (which made each of the
 * informers' re-watches, every 5-10 minutes, re-send a node's 110 pods to the agent).
 */
class MockApiServerWatchTest {

    /** The names the watch from the list's version saw, after a third object was created behind the watch. */
    private static List<String> watchedAfterList(boolean fromVersion) throws InterruptedException {
        KubernetesMockServer server = MockApiServer.nodeSelectorIgnoring(fromVersion);
        try (KubernetesClient client = new KubernetesClientBuilder().withConfig(MockApiServer.config(server)).build()) {
            for (String name : List.of("a", "b")) {
                client.configMaps().resource(configMap(name)).create();
            }
            String version = client.configMaps().list().getMetadata().getResourceVersion();
            List<String> seen = new CopyOnWriteArrayList<>();
            CountDownLatch third = new CountDownLatch(1);
            try (Watch ignored = client.configMaps().withResourceVersion(version).watch(new Watcher<>() {
                @Override
                public void eventReceived(Action action, ConfigMap object) {
                    seen.add(action + " " + object.getMetadata().getName());
                    if (object.getMetadata().getName().equals("c")) {
                        third.countDown();
                    }
                }

                @Override
                public void onClose(WatcherException cause) {
                }
            })) {
                client.configMaps().resource(configMap("c")).create();
                third.await(10, TimeUnit.SECONDS);
            }
            return List.copyOf(seen);
        } finally {
            server.destroy();
        }
    }

    private static ConfigMap configMap(String name) {
        return new ConfigMapBuilder().withNewMetadata().withName(name).withNamespace("default").endMetadata()
                .addToData("k", "v").build();
    }

    @Test
    void aWatchFromAVersionGetsOnlyLaterObjects() throws InterruptedException {
        assertEquals(List.of("ADDED c"), watchedAfterList(true));
    }

    @Test
    void theStoreAloneResendsEveryObjectWhenAWatchOpens() throws InterruptedException {
        // What the bench's server used to do, and tests on the plain store still see.
        assertEquals(List.of("ADDED a", "ADDED b", "ADDED c"), watchedAfterList(false).stream().sorted().toList());
    }
}

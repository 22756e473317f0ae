package dev.exclusive.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URI;
import java.net.URL;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.container.test.api.RunAsClient;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.arquillian.test.api.ArquillianResource;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * MicroProfile Health readiness: UP while every store answers, DOWN naming the store that does not. The store
 * {@code spare} is a file store whose folder the test takes away and gives back.
 */
@ExtendWith(ArquillianExtension.class)
@RunAsClient
class HealthIT {

    private static final Path SPARE = Path.of("target", "health-it-spare-locks").toAbsolutePath();

    @Deployment(testable = false)
    static WebArchive deployment() throws IOException {
        Files.createDirectories(SPARE);
        return Deployments.slim(
                "health-it.war",
                Deployments.LOCK_CONFIG
                        + "exclusive.store.spare.type=file\n"
                        + "exclusive.store.spare.directory=" + SPARE + "\n");
    }

    @ArquillianResource
    URL base;

    @Test
    void readinessIsUpWithEveryStoreReachableAndDownNamingTheStoreThatIsNot() throws IOException {
        HttpResponse<String> up = Http.at(health()).get("health/ready");
        assertThat(up.statusCode()).isEqualTo(200);
        assertThat(up.body()).contains("\"status\":\"UP\"", "exclusive-store-spare", "exclusive-store-shared");

        deleteRecursively(SPARE);
        try {
            HttpResponse<String> down = Http.at(health()).get("health/ready");
            assertThat(down.statusCode()).isEqualTo(503);
            assertThat(down.body()).contains("\"status\":\"DOWN\"", "exclusive-store-spare", SPARE.toString());
        } finally {
            Files.createDirectories(SPARE);
        }

        assertThat(Http.at(health()).get("health/ready").statusCode()).isEqualTo(200);
    }

    /**
     * Health lives at the server's root, not under the application; on a server that serves it elsewhere (WildFly:
     * the management interface), the build names that root in {@code it.health.url}.
     */
    private URL health() throws IOException {
        String root = System.getProperty("it.health.url");
        if (root == null || root.isBlank()) {
            root = base.getProtocol() + "://" + base.getHost() + ":" + base.getPort() + "/";
        }
        return URI.create(root).toURL();
    }

    private static void deleteRecursively(Path folder) throws IOException {
        try (Stream<Path> paths = Files.walk(folder)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(path);
            }
        }
    }
}

package dev.exclusive.demo.undeploy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.exclusive.demo.Deployments;
import dev.exclusive.demo.Http;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URL;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.jboss.arquillian.container.test.api.Deployer;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.container.test.api.OperateOnDeployment;
import org.jboss.arquillian.container.test.api.RunAsClient;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.arquillian.test.api.ArquillianResource;
import org.jboss.shrinkwrap.api.ShrinkWrap;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Inside a server, Exclusive's background threads (lease renewal, the Redis release subscriber) come from the
 * container's {@code ManagedThreadFactory}, and undeploying the application stops every one of them.
 */
@ExtendWith(ArquillianExtension.class)
@RunAsClient
class UndeployIT {

    private static final String CANDIDATE = "candidate";

    /** A shared Redis store, so the release subscriber runs too; a prefix of its own keeps it apart. */
    private static final String REDIS_CONFIG = """
            exclusive.default-store=shared
            exclusive.store.shared.type=redis
            exclusive.store.shared.url=redis://127.0.0.1:6379
            exclusive.store.shared.prefix=undeploy-it:
            """;

    @Deployment(name = "probe", testable = false, order = 1)
    static WebArchive probe() {
        return ShrinkWrap.create(WebArchive.class, "thread-probe.war").addClass(ThreadProbe.class);
    }

    @Deployment(name = CANDIDATE, managed = false, testable = false, order = 2)
    static WebArchive candidate() {
        WebArchive war = Deployments.slim("undeploy-it.war", REDIS_CONFIG)
                .addClasses(HoldingResource.class, HoldingResource.Api.class);
        Path lib = Path.of(System.getProperty("demo.exploded", "target/demo"), "WEB-INF", "lib");
        try (DirectoryStream<Path> jars = Files.newDirectoryStream(
                lib, "{lock-redis,jedis,commons-pool2,gson,slf4j-api,json,redis-authx-core}-*.jar")) {
            jars.forEach(jar -> war.addAsLibraries(jar.toFile()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return war;
    }

    @ArquillianResource
    Deployer deployer;

    @Test
    void exclusiveThreadsAreManagedAndNoneOutlivesTheApplication(
            @ArquillianResource @OperateOnDeployment("probe") URL probe) throws Exception {
        Http threads = Http.at(probe);
        assertThat(exclusiveThreads(threads)).as("before the deployment").isEmpty();

        deployer.deploy(CANDIDATE);
        URL candidate = new URL(probe, "/undeploy-it/");
        assertThat(Http.at(candidate).post("api/hold").body()).isEqualTo("true true");

        List<String> running = exclusiveThreads(threads);
        assertThat(running)
                .as("renewal and Redis subscriber threads while the application runs")
                .anyMatch(line -> line.startsWith("exclusive-renewal-shared"))
                .anyMatch(line -> line.startsWith("exclusive-redis-subscriber-shared"))
                .allMatch(line -> line.endsWith(" managed"), "made by the container's ManagedThreadFactory");

        deployer.undeploy(CANDIDATE);
        long deadline = System.nanoTime() + 30_000_000_000L;
        List<String> left = exclusiveThreads(threads);
        while (!left.isEmpty() && System.nanoTime() - deadline < 0) {
            Thread.sleep(100);
            left = exclusiveThreads(threads);
        }
        assertThat(left).as("Exclusive threads 30 s after the undeploy").isEmpty();
    }

    private static List<String> exclusiveThreads(Http probe) {
        String body = probe.get("threads").body();
        return body.isBlank() ? List.of() : List.of(body.split("\n"));
    }
}

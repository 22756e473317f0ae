package dev.exclusive.demo.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.exclusive.demo.Deployments;
import dev.exclusive.demo.Http;
import java.io.File;
import java.net.URL;
import java.net.URLEncoder;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.container.test.api.RunAsClient;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.arquillian.test.api.ArquillianResource;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Liberty and a plain Java process (lock-api only) increment one counter file under the same lock name on the
 * same lock folder, at the same time: no increment is lost.
 */
@ExtendWith(ArquillianExtension.class)
@RunAsClient
class CrossProcessIT {

    private static final int TIMES = 300;

    @Deployment(testable = false)
    static WebArchive deployment() {
        // The plain Java process locks under the same store prefix, or the two would never meet.
        return Deployments.slim(
                        "counter-it.war",
                        Deployments.LOCK_CONFIG + "exclusive.store.shared.prefix=" + Deployments.SHARED_PREFIX + "\n")
                .addClasses(SharedCounter.class, CounterResource.class, CounterApplication.class);
    }

    @ArquillianResource
    URL base;

    @Test
    void serverAndPlainJavaProcessLoseNoUpdateOnTheSameLockFolder() throws Exception {
        Path counter = Path.of("target", "cross-process-counter.txt").toAbsolutePath();
        Files.deleteIfExists(counter);
        Files.deleteIfExists(Path.of(counter + ".ready"));

        Process worker = new ProcessBuilder(
                        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        "-cp",
                        System.getProperty("java.class.path"),
                        CounterWorker.class.getName(),
                        Deployments.sharedLocksDir().toAbsolutePath().toString(),
                        counter.toString(),
                        Integer.toString(TIMES))
                .redirectErrorStream(true)
                .redirectOutput(new File("target/cross-process-worker.log"))
                .start();
        Path ready = Path.of(counter + ".ready");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!Files.exists(ready) && worker.isAlive() && System.nanoTime() < deadline) {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
        }
        CompletableFuture<HttpResponse<String>> server = CompletableFuture.supplyAsync(() -> Http.at(base)
                .post("api/it/counter?times=" + TIMES + "&file="
                        + URLEncoder.encode(counter.toString(), StandardCharsets.UTF_8)));

        assertThat(worker.waitFor(120, TimeUnit.SECONDS))
                .as("the worker finished")
                .isTrue();
        assertThat(worker.exitValue())
                .as("worker exit code; see target/cross-process-worker.log")
                .isZero();
        assertThat(server.get(120, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
        assertThat(SharedCounter.read(counter)).isEqualTo(2L * TIMES);
    }
}

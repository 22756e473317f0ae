package dev.exclusive.demo;

import dev.exclusive.LockRegistry;
import dev.exclusive.file.FileLockStoreProvider;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.assertj.core.api.Assertions;
import org.jboss.shrinkwrap.api.ShrinkWrap;
import org.jboss.shrinkwrap.api.asset.EmptyAsset;
import org.jboss.shrinkwrap.api.asset.StringAsset;
import org.jboss.shrinkwrap.api.importer.ZipImporter;
import org.jboss.shrinkwrap.api.spec.WebArchive;

/** Builds the WARs the integration tests deploy. */
public final class Deployments {

    /** The default lock configuration of a slim deployment: the demo's shared file store and a memory store. */
    public static final String LOCK_CONFIG = """
            exclusive.default-store=shared
            exclusive.store.shared.type=file
            exclusive.store.shared.directory=${demo.locks.dir}
            exclusive.store.local.type=memory
            """;

    /** The demo's {@code exclusive.store.shared.prefix}: the start of every full lock name in its shared store. */
    public static final String SHARED_PREFIX = "demo:";

    private Deployments() {}

    /**
     * The demo WAR as {@code mvn package} built it (target/demo.war), under another name so that tests never
     * collide with a demo deployed by {@code liberty:run}. In-container tests get AssertJ too.
     * @param name the archive name, such as {@code shop-it.war}; the context root is the name without {@code .war}
     * @return the archive
     */
    public static WebArchive demo(String name) {
        return ShrinkWrap.create(ZipImporter.class, name)
                .importFrom(demoWar())
                .as(WebArchive.class)
                .addAsLibraries(jarOf(Assertions.class));
    }

    /**
     * A WAR with only lock-api, lock-cdi and lock-otel, which lock-cdi needs (taken from the demo's WEB-INF/lib; not
     * lock-redis, whose Jedis would be missing), the given lock configuration and
     * AssertJ: quick to deploy, for tests that need no database.
     * @param name       the archive name
     * @param lockConfig the {@code microprofile-config.properties}
     * @return the archive, to which the test adds its classes
     */
    public static WebArchive slim(String name, String lockConfig) {
        WebArchive war = ShrinkWrap.create(WebArchive.class, name)
                .addAsWebInfResource(EmptyAsset.INSTANCE, "beans.xml")
                .addAsResource(new StringAsset(lockConfig), "META-INF/microprofile-config.properties")
                .addAsLibraries(jarOf(Assertions.class));
        Path lib = Path.of(System.getProperty("demo.exploded", "target/demo"), "WEB-INF", "lib");
        try (DirectoryStream<Path> jars = Files.newDirectoryStream(lib, "lock-{api,cdi,otel}-*.jar")) {
            jars.forEach(jar -> war.addAsLibraries(jar.toFile()));
        } catch (IOException e) {
            throw new UncheckedIOException("No " + lib + ": run the integration tests through Maven (mvn verify)", e);
        }
        return war;
    }

    private static File demoWar() {
        File war = new File(System.getProperty("demo.war", "target/demo.war"));
        if (!war.isFile()) {
            throw new IllegalStateException("No " + war + ": run the integration tests through Maven (mvn verify),"
                    + " which packages the demo WAR first");
        }
        return war;
    }

    /**
     * @return the folder of the integration-test server ({@code it.server.dir}; Liberty's
     *     target/liberty/wlp/usr/servers/it, WildFly's standalone/data), under which the demo keeps its lock files
     */
    public static Path serverDir() {
        return Path.of(System.getProperty("it.server.dir", "target/liberty/wlp/usr/servers/it"));
    }

    /**
     * @return the integration-test server's log: {@code it.server.log}, else Liberty's {@code logs/messages.log} in
     *     {@link #serverDir()}
     */
    public static Path serverLog() {
        String log = System.getProperty("it.server.log");
        return log == null || log.isBlank() ? serverDir().resolve(Path.of("logs", "messages.log")) : Path.of(log);
    }

    /** @return the folder of the shared file store on the integration-test server ({@code demo.locks.dir}) */
    public static Path sharedLocksDir() {
        return serverDir().resolve("locks");
    }

    /**
     * A registry in this test's JVM over the integration-test server's shared file store, with the demo's prefix:
     * another process contending for the demo's locks, as a second server would.
     * @return the registry; the caller closes it
     */
    public static LockRegistry sharedStoreOutside() {
        return LockRegistry.builder()
                .store(
                        "shared",
                        new FileLockStoreProvider()
                                .create(
                                        "shared",
                                        Map.of("directory", sharedLocksDir().toString())),
                        SHARED_PREFIX)
                .build();
    }

    /** @return the jar (or classes folder) that holds {@code type}, for adding a test library to a WAR */
    public static File jarOf(Class<?> type) {
        try {
            return Path.of(type.getProtectionDomain()
                            .getCodeSource()
                            .getLocation()
                            .toURI())
                    .toFile();
        } catch (URISyntaxException e) {
            throw new IllegalStateException("Cannot locate the jar of " + type.getName(), e);
        }
    }
}

package dev.exclusive.check;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.lang.module.Configuration;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.lang.module.ModuleReference;
import java.lang.module.ResolvedModule;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.jar.JarFile;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The jars this build publishes, as a modular application sees them: each names its module in its manifest, no
 * two share a package, and the JDK resolves them all into one module graph. The jars are this build's own (the
 * failsafe configuration passes their files), so run it from the root with {@code mvn verify}.
 */
class PublishedJarsIT {

    /** Artifact, with its classifier for the test-jar, to the module name it promises. */
    private static final Map<String, String> MODULES = modules();

    private static Map<String, String> modules() {
        Map<String, String> modules = new LinkedHashMap<>();
        modules.put("lock-api", "dev.exclusive.api");
        modules.put("lock-cdi", "dev.exclusive.cdi");
        modules.put("lock-otel", "dev.exclusive.otel");
        modules.put("lock-jpa", "dev.exclusive.jpa");
        modules.put("lock-redis", "dev.exclusive.redis");
        modules.put("lock-admin-ui", "dev.exclusive.admin");
        modules.put("lock-api-tests", "dev.exclusive.contract");
        return modules;
    }

    @Test
    void everyJarNamesItsModuleInItsManifest() throws IOException {
        for (Map.Entry<String, String> module : MODULES.entrySet()) {
            try (JarFile jar = new JarFile(jar(module.getKey()).toFile())) {
                assertNotNull(jar.getManifest(), module.getKey() + " has no manifest");
                assertEquals(
                        module.getValue(),
                        jar.getManifest().getMainAttributes().getValue("Automatic-Module-Name"),
                        "Automatic-Module-Name of " + module.getKey());
            }
        }
    }

    @Test
    void theModuleSystemFindsThatName() {
        for (Map.Entry<String, String> module : MODULES.entrySet()) {
            ModuleDescriptor descriptor = descriptor(module.getKey());
            assertEquals(module.getValue(), descriptor.name(), "module name of " + module.getKey());
            assertTrue(descriptor.isAutomatic(), module.getKey() + " is an automatic module");
        }
    }

    @Test
    void noTwoJarsShareAPackage() {
        Map<String, String> jarOfPackage = new TreeMap<>();
        for (String artifact : MODULES.keySet()) {
            for (String pkg : descriptor(artifact).packages()) {
                String other = jarOfPackage.putIfAbsent(pkg, artifact);
                if (other != null) {
                    fail("Package " + pkg + " is in both " + other + " and " + artifact
                            + ": a modular application cannot have both on its module path");
                }
            }
        }
    }

    @Test
    void theJdkResolvesAllOfThemTogether() {
        ModuleFinder finder = ModuleFinder.of(
                MODULES.keySet().stream().map(PublishedJarsIT::jar).toArray(Path[]::new));
        Configuration graph =
                ModuleLayer.boot().configuration().resolve(finder, ModuleFinder.of(), Set.copyOf(MODULES.values()));
        assertEquals(
                Set.copyOf(MODULES.values()),
                graph.modules().stream().map(ResolvedModule::name).collect(Collectors.toSet()));
    }

    private static ModuleDescriptor descriptor(String artifact) {
        Set<ModuleReference> found = ModuleFinder.of(jar(artifact)).findAll();
        assertEquals(1, found.size(), "modules in " + artifact);
        return found.iterator().next().descriptor();
    }

    private static Path jar(String artifact) {
        String file = System.getProperty("jar." + artifact);
        assertNotNull(file, "system property jar." + artifact + " (set by the failsafe configuration)");
        Path jar = Path.of(file);
        assertTrue(
                Files.isRegularFile(jar) && file.endsWith(".jar"),
                artifact + " must be this build's packaged jar, got " + jar
                        + "; run mvn verify from the root of the project");
        return jar;
    }
}

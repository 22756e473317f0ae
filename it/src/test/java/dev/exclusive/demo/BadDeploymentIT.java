package dev.exclusive.demo;

import static org.assertj.core.api.Assertions.assertThat;

import jakarta.enterprise.inject.spi.DefinitionException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.container.test.api.RunAsClient;
import org.jboss.arquillian.container.test.api.ShouldThrowException;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A deployment with bad {@code @Exclusive} methods fails (CDI reports the extension's error as a
 * {@link DefinitionException}), with one message from the extension naming each bad method; Liberty logs it.
 */
@ExtendWith(ArquillianExtension.class)
@RunAsClient
class BadDeploymentIT {

    @Deployment(testable = false)
    @ShouldThrowException(DefinitionException.class)
    static WebArchive deployment() {
        return Deployments.slim("bad-it.war", Deployments.LOCK_CONFIG).addClass(BadlyLocked.class);
    }

    @Test
    void theServerLogNamesEveryBadMethodInOneMessage() throws IOException {
        String log = Files.readString(
                Deployments.serverDir().resolve(Path.of("logs", "messages.log")), StandardCharsets.UTF_8);
        int message = log.lastIndexOf("Exclusive: 2 problems");
        assertThat(message).as("the extension's message in messages.log").isNotNegative();
        assertThat(log.substring(message)).contains("nowhere", "unknownStore", "missing", "unknownParameter");
    }
}

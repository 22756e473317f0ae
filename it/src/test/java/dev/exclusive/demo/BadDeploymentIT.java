package dev.exclusive.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.container.test.api.RunAsClient;
import org.jboss.arquillian.container.test.api.ShouldThrowException;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A deployment with bad {@code @Exclusive} methods fails (CDI reports the extension's error as a
 * {@code DefinitionException}), with one message from the extension naming each bad method, which the server logs.
 * What reaches Arquillian differs by server (Liberty's adapter passes the {@code DefinitionException} on, WildFly's
 * only its text), so the test expects the deployment to fail, whatever the type, and reads why in the server's log.
 */
@ExtendWith(ArquillianExtension.class)
@RunAsClient
class BadDeploymentIT {

    @Deployment(testable = false)
    @ShouldThrowException(Exception.class)
    static WebArchive deployment() {
        return Deployments.slim("bad-it.war", Deployments.LOCK_CONFIG).addClass(BadlyLocked.class);
    }

    @Test
    void theServerLogNamesEveryBadMethodInOneMessage() throws IOException {
        String log = Files.readString(Deployments.serverLog(), StandardCharsets.UTF_8);
        int message = log.lastIndexOf("Exclusive: 2 problems");
        assertThat(message)
                .as("the extension's message in %s", Deployments.serverLog())
                .isNotNegative();
        assertThat(log.substring(message)).contains("nowhere", "unknownStore", "missing", "unknownParameter");
    }
}

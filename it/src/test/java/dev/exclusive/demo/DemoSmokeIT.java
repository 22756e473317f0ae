package dev.exclusive.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URL;
import java.net.http.HttpResponse;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.container.test.api.RunAsClient;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.arquillian.test.api.ArquillianResource;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The demo WAR deploys on Open Liberty and answers over HTTP, with its users and roles. */
@ExtendWith(ArquillianExtension.class)
@RunAsClient
class DemoSmokeIT {

    @Deployment(testable = false)
    static WebArchive demo() {
        return Deployments.demo("smoke-it.war");
    }

    @ArquillianResource
    URL base;

    @Test
    void listsTheSeededProducts() {
        HttpResponse<String> response = Http.at(base).get("api/products");

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.body()).contains("\"name\":\"Concert ticket\"", "\"name\":\"Limited vinyl\"");
    }

    @Test
    void adminHasTheExclusiveAdminRoleAndOperatorHasNot() {
        HttpResponse<String> admin = Http.at(base).as("admin", "admin").get("api/me");
        HttpResponse<String> operator = Http.at(base).as("operator", "operator").get("api/me");

        assertThat(admin.statusCode()).isEqualTo(200);
        assertThat(admin.body()).contains("\"user\":\"admin\"", "\"exclusiveAdmin\":true");
        assertThat(operator.statusCode()).isEqualTo(200);
        assertThat(operator.body()).contains("\"user\":\"operator\"", "\"exclusiveAdmin\":false");
    }

    @Test
    void anonymousCallerMustSignIn() {
        assertThat(Http.at(base).get("api/me").statusCode()).isEqualTo(401);
        assertThat(Http.at(base).get("api/me/").statusCode())
                .as("the same resource with a trailing slash")
                .isEqualTo(401);
    }

    @Test
    void purchaseTakesFromTheStockAndAnswersSoldOutAtZero() {
        assertThat(Http.at(base).post("api/products/2/reset?stock=1").statusCode())
                .isEqualTo(200);

        HttpResponse<String> first = Http.at(base).post("api/products/2/purchase?user=7&quantity=1");
        HttpResponse<String> second = Http.at(base).post("api/products/2/purchase?user=8&quantity=1");

        assertThat(first.statusCode()).isEqualTo(201);
        assertThat(first.body()).contains("\"productId\":2", "\"userId\":7");
        assertThat(second.statusCode()).isEqualTo(409);
        assertThat(second.body()).contains("\"error\":\"sold-out\"");
        assertThat(Http.at(base).get("api/products/2").body()).contains("\"stock\":0");
    }
}

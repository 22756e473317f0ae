package dev.exclusive.demo;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URL;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.concurrent.CompletableFuture;

/** A small HTTP client for tests that call the demo from outside the server, as a browser or curl would. */
public final class Http {

    private static final HttpClient CLIENT =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    private final URI base;
    private final String authorization;

    private Http(URI base, String authorization) {
        this.base = base;
        this.authorization = authorization;
    }

    /** @param base the deployment's URL, from {@code @ArquillianResource URL} */
    public static Http at(URL base) {
        try {
            return new Http(base.toURI(), null);
        } catch (java.net.URISyntaxException e) {
            throw new IllegalArgumentException(e);
        }
    }

    /** @return the same client signing in with HTTP Basic as {@code user} */
    public Http as(String user, String password) {
        String credentials =
                Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
        return new Http(base, "Basic " + credentials);
    }

    public HttpResponse<String> get(String path) {
        return send(request(path).GET());
    }

    public HttpResponse<String> post(String path) {
        return send(request(path).POST(HttpRequest.BodyPublishers.noBody()));
    }

    /**
     * A POST that may wait for a lock a while (up to 90 s), sent without blocking the caller: for tests that hold a
     * lock through one request while they look at the console or send others.
     */
    public CompletableFuture<HttpResponse<String>> postAsync(String path) {
        return CLIENT.sendAsync(
                request(path)
                        .timeout(Duration.ofSeconds(90))
                        .POST(HttpRequest.BodyPublishers.noBody())
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    public HttpResponse<String> delete(String path) {
        return send(request(path).DELETE());
    }

    private HttpRequest.Builder request(String path) {
        HttpRequest.Builder request = HttpRequest.newBuilder(base.resolve(path))
                .timeout(Duration.ofSeconds(60))
                .header("Accept", "application/json");
        return authorization == null ? request : request.header("Authorization", authorization);
    }

    private static HttpResponse<String> send(HttpRequest.Builder request) {
        try {
            return CLIENT.send(request.build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(
                    "Interrupted while calling " + request.build().uri(), e);
        }
    }
}

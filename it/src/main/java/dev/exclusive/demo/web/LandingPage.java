package dev.exclusive.demo.web;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.annotation.WebFilter;
import jakarta.servlet.http.HttpFilter;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * The page at {@code /demo/}: what the demo is, with links to the console, the REST calls and health. A filter
 * rather than a servlet, because the console's Vaadin servlet is mapped at {@code /*} and receives its own
 * requests at the context root too, always with a query ({@code ?v-r=uidl…}): those, and every other path, pass
 * through untouched. (Liberty does not apply a filter mapped to the context root alone, {@code ""}, to a request
 * that a {@code /*} servlet serves.)
 */
@WebFilter(filterName = "landing-page", urlPatterns = "/*")
public class LandingPage extends HttpFilter {

    private static final long serialVersionUID = 1L;

    /** The page's title; the banner looks for it to know that the demo answers. */
    static final String TITLE = "<title>Exclusive demo</title>";

    private static final String PAGE = load("landing.html");

    @Override
    protected void doFilter(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws IOException, ServletException {
        boolean read = "GET".equals(request.getMethod()) || "HEAD".equals(request.getMethod());
        String path = request.getRequestURI().substring(request.getContextPath().length());
        if (!read || !path.equals("/") || request.getQueryString() != null) {
            chain.doFilter(request, response);
            return;
        }
        String app = request.getScheme() + "://" + request.getServerName() + ":" + request.getServerPort()
                + request.getContextPath();
        response.setContentType("text/html;charset=UTF-8");
        response.setHeader("Cache-Control", "no-store");
        response.getWriter().write(PAGE.replace("{{app}}", escape(app)));
    }

    private static String load(String name) {
        try (InputStream in = LandingPage.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException("No " + name + " next to " + LandingPage.class.getName());
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The Host header is the caller's; it goes into the page as text, never as markup. */
    private static String escape(String text) {
        return text.replace("&", "&amp;")
                .replace("<", "&lt;")
                .replace(">", "&gt;")
                .replace("\"", "&quot;")
                .replace("'", "&#39;");
    }
}

package dev.exclusive.demo.console;

import dev.exclusive.cdi.LockForceReleased;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import jakarta.servlet.annotation.WebServlet;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Added to the browser test's WAR: records every {@link LockForceReleased} the application observes, and answers
 * them at {@code /test/force-releases}, one {@code store/name released by principal} per line.
 */
@ApplicationScoped
public class ForceReleaseRecorder {

    private final List<String> events = new CopyOnWriteArrayList<>();

    void record(@Observes LockForceReleased event) {
        events.add(event.storeName() + "/" + event.lockName() + " " + (event.released() ? "released" : "free") + " by "
                + event.principalName());
    }

    List<String> events() {
        return List.copyOf(events);
    }

    /** The recorded events, for the test outside the server. */
    @WebServlet("/test/force-releases")
    public static class Events extends HttpServlet {

        private static final long serialVersionUID = 1L;

        @Inject
        transient ForceReleaseRecorder recorder;

        @Override
        protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
            response.setContentType("text/plain");
            response.getWriter().print(String.join("\n", recorder.events()));
        }
    }
}

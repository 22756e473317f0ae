package dev.exclusive.demo.undeploy;

import jakarta.enterprise.concurrent.ManageableThread;
import jakarta.servlet.annotation.WebServlet;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.TreeSet;

/**
 * Lists the server JVM's live threads whose name starts with {@code exclusive-}, one per line as
 * {@code name managed|unmanaged}: managed threads are those a Jakarta Concurrency {@code ManagedThreadFactory} made.
 * Deployed in its own WAR, so that it can look on after the application under test is gone.
 */
@WebServlet("/threads")
public class ThreadProbe extends HttpServlet {

    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
        TreeSet<String> lines = new TreeSet<>();
        for (Thread thread : Thread.getAllStackTraces().keySet()) {
            if (thread.isAlive() && thread.getName().startsWith("exclusive-")) {
                lines.add(thread.getName() + (thread instanceof ManageableThread ? " managed" : " unmanaged"));
            }
        }
        response.setContentType("text/plain");
        response.getWriter().write(String.join("\n", lines));
    }
}

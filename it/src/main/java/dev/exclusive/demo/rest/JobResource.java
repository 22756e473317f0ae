package dev.exclusive.demo.rest;

import dev.exclusive.demo.jobs.DailyReport;
import dev.exclusive.demo.jobs.ManualExport;
import dev.exclusive.demo.jobs.NightlyExport;
import dev.exclusive.demo.jobs.RatesRefresh;
import dev.exclusive.demo.jobs.StockAudit;
import dev.exclusive.demo.jobs.UserImport;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.DefaultValue;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * The jobs, each started by a POST; {@code seconds} is how long the simulated work takes, so that two calls in
 * parallel show what the lock does.
 */
@Path("")
@RequestScoped
@Produces(MediaType.APPLICATION_JSON)
public class JobResource {

    @Inject
    DailyReport report;

    @Inject
    UserImport userImport;

    @Inject
    NightlyExport nightlyExport;

    @Inject
    ManualExport manualExport;

    @Inject
    RatesRefresh ratesRefresh;

    @Inject
    StockAudit stockAudit;

    /** What a job that may be skipped answers: whether it ran, and its result when it did. */
    public record Outcome<T>(boolean ran, T result) {
        static <T> Outcome<T> of(Optional<T> result) {
            return new Outcome<>(result.isPresent(), result.orElse(null));
        }
    }

    /** 200 {@code ran: true} with the report, or {@code ran: false} when another rebuild is running (SKIP). */
    @POST
    @Path("reports/daily")
    public Outcome<DailyReport.Report> rebuildReport(@QueryParam("seconds") @DefaultValue("2") long seconds) {
        return Outcome.of(report.rebuild(Duration.ofSeconds(seconds)));
    }

    /** 200 once the import ran (it waits up to 5 s for a running one), else 409 with Retry-After. */
    @POST
    @Path("imports/users")
    public UserImport.ImportRun importUsers(@QueryParam("seconds") @DefaultValue("2") long seconds) {
        return userImport.importUsers(Duration.ofSeconds(seconds));
    }

    /** Runs the nightly export now, under the timer's lock: {@code ran: false} while another export runs. */
    @POST
    @Path("exports/nightly")
    public Outcome<NightlyExport.ExportRun> exportNightly() {
        return Outcome.of(nightlyExport.exportNow());
    }

    /** The nightly exports this server ran. */
    @GET
    @Path("exports/nightly")
    public List<NightlyExport.ExportRun> nightlyRuns() {
        return nightlyExport.runs();
    }

    /** The export locked by hand through LockRegistry; its result carries the fencing token. */
    @POST
    @Path("exports/manual")
    public Outcome<ManualExport.Export> exportByHand(@QueryParam("seconds") @DefaultValue("1") long seconds) {
        return Outcome.of(manualExport.run(Duration.ofSeconds(seconds)));
    }

    /** Refreshes this server's rates under a lock of the {@code local} (memory) store: {@code ran: false} while one runs. */
    @POST
    @Path("rates/refresh")
    public Outcome<RatesRefresh.Refresh> refreshRates(@QueryParam("seconds") @DefaultValue("1") long seconds) {
        return Outcome.of(ratesRefresh.refresh(Duration.ofSeconds(seconds)));
    }

    /** Audits the stock under a lock of the {@code db} (jpa) store, waiting up to 2 s: {@code ran: false} after that. */
    @POST
    @Path("stock/audit")
    public Outcome<StockAudit.Audit> auditStock(@QueryParam("seconds") @DefaultValue("1") long seconds) {
        return Outcome.of(stockAudit.run(Duration.ofSeconds(seconds)));
    }
}

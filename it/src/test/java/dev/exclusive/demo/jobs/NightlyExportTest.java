package dev.exclusive.demo.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Anyone may start the export by hand ({@code POST /api/exports/nightly}): the server keeps only the last runs. */
class NightlyExportTest {

    @Test
    void onlyTheLastRunsAreKept() {
        NightlyExport export = new NightlyExport();
        for (int i = 0; i < NightlyExport.KEPT + 50; i++) {
            export.exportNow();
        }

        List<NightlyExport.ExportRun> runs = export.runs();
        assertThat(runs).hasSize(NightlyExport.KEPT);
        assertThat(runs.get(0).startedAt())
                .isBeforeOrEqualTo(runs.get(runs.size() - 1).startedAt());
    }
}

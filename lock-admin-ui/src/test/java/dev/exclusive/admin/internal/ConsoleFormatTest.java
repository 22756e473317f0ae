package dev.exclusive.admin.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import org.junit.jupiter.api.Test;

class ConsoleFormatTest {

    @Test
    void remainingTimeIsWrittenInTheLargestUsefulUnits() {
        assertThat(ConsoleFormat.remaining(Duration.ofMillis(42_900))).isEqualTo("42 s");
        assertThat(ConsoleFormat.remaining(Duration.ofSeconds(245))).isEqualTo("4 min 05 s");
        assertThat(ConsoleFormat.remaining(Duration.ofMinutes(123))).isEqualTo("2 h 03 min");
        assertThat(ConsoleFormat.remaining(Duration.ofHours(50))).isEqualTo("2 d 02 h");
    }

    @Test
    void theLastSecondAndAnEndedLeaseSaySo() {
        assertThat(ConsoleFormat.remaining(Duration.ofMillis(300))).isEqualTo("< 1 s");
        assertThat(ConsoleFormat.remaining(Duration.ZERO)).isEqualTo("expired");
        assertThat(ConsoleFormat.remaining(Duration.ofSeconds(-3))).isEqualTo("expired");
    }

    @Test
    void remainingTimeCountsDownSecondBySecond() {
        assertThat(ConsoleFormat.remaining(Duration.ofMillis(60_500))).isEqualTo("1 min 00 s");
        assertThat(ConsoleFormat.remaining(Duration.ofMillis(59_500))).isEqualTo("59 s");
    }

    @Test
    void instantsAreShownInTheViewersZone() {
        Instant instant = Instant.parse("2026-11-29T12:34:56Z");

        assertThat(ConsoleFormat.instant(instant, ZoneId.of("UTC"))).isEqualTo("2026-11-29 12:34:56");
        assertThat(ConsoleFormat.instant(instant, ZoneId.of("Europe/Berlin"))).isEqualTo("2026-11-29 13:34:56");
    }
}

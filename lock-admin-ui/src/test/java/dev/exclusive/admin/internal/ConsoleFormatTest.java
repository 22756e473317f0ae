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

    @Test
    void waitsAreWrittenInMillisecondsBelowASecondAndAP99SaysItIsAnUpperBound() {
        assertThat(ConsoleFormat.wait(Duration.ofNanos(200_000))).isEqualTo("0.2 ms");
        assertThat(ConsoleFormat.wait(Duration.ofMillis(15))).isEqualTo("15 ms");
        assertThat(ConsoleFormat.wait(Duration.ofMillis(1_500))).isEqualTo("1.5 s");
        assertThat(ConsoleFormat.wait(Duration.ofSeconds(60))).isEqualTo("60 s");
        assertThat(ConsoleFormat.p99(java.util.Optional.of(Duration.ofMillis(150))))
                .isEqualTo("≤ 150 ms");
        assertThat(ConsoleFormat.p99(java.util.Optional.empty())).isEqualTo("—");
    }

    @Test
    void ratesAndElapsedTimes() {
        assertThat(ConsoleFormat.rate(0)).isEqualTo("0/s");
        assertThat(ConsoleFormat.rate(31 / 60.0)).isEqualTo("0.52/s");
        assertThat(ConsoleFormat.rate(1_250)).isEqualTo("1.25k/s");
        assertThat(ConsoleFormat.elapsed(Duration.ZERO)).as("never 'expired'").isEqualTo("< 1 s");
        assertThat(ConsoleFormat.elapsed(Duration.ofSeconds(75))).isEqualTo("1 min 15 s");
    }

    @Test
    void bidirectionalControlsInApplicationTextAreShownNotApplied() {
        assertThat(ConsoleFormat.shown("imports:\u202Esresu")).isEqualTo("imports:[U+202E]sresu");
        assertThat(ConsoleFormat.shown("a\u2066b\u2069c\u200Fd\u061Ce"))
                .isEqualTo("a[U+2066]b[U+2069]c[U+200F]d[U+061C]e");
        assertThat(ConsoleFormat.shown("imports:users")).isEqualTo("imports:users");
        assertThat(ConsoleFormat.shown("team:\uD83D\uDC69\u200D\uD83D\uDCBB"))
                .as("an emoji's joiner is not a bidi control")
                .isEqualTo("team:\uD83D\uDC69\u200D\uD83D\uDCBB");
        assertThat(ConsoleFormat.shown("שלום:1"))
                .as("right-to-left letters are shown as they are")
                .isEqualTo("שלום:1");
    }
}

package dev.exclusive;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.NoSuchElementException;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class LockResultTest {

    @Test
    void acquiredResultCarriesTheValueEvenNull() {
        LockResult<String> result = LockResult.of(null);
        assertTrue(result.acquired());
        assertNull(result.value());
        assertNull(result.orElse("other"));
        assertEquals(Optional.empty(), result.toOptional());
        assertEquals("x", LockResult.of("x").orElseThrow());
    }

    @Test
    void notAcquiredResultHasNoValue() {
        LockResult<String> result = LockResult.notAcquired();
        assertFalse(result.acquired());
        assertThrows(IllegalStateException.class, result::value);
        assertThrows(NoSuchElementException.class, result::orElseThrow);
        assertEquals("other", result.orElse("other"));
        assertEquals("got", result.orElseGet(() -> "got"));
        assertEquals(Optional.empty(), result.toOptional());
        assertThrows(
                LockBusyException.class,
                () -> result.orElseThrow(() -> new LockBusyException("busy", "x", "memory", null)));
    }

    @Test
    void resultsCompareByValue() {
        assertEquals(LockResult.of(1), LockResult.of(1));
        assertEquals(LockResult.notAcquired(), LockResult.notAcquired());
        assertFalse(LockResult.of(null).equals(LockResult.notAcquired()));
    }
}

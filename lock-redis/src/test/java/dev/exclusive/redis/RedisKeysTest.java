package dev.exclusive.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.util.JedisClusterCRC16;

class RedisKeysTest {

    private static final List<String> NAMES = List.of(
            "a",
            "{a}",
            "a}",
            "{",
            "}",
            "}{",
            "x}{y",
            "%",
            "%7D",
            "%25",
            "%u D800",
            "\uD800",
            "\uD801",
            "\uDC00",
            "emoji-\uD83D\uDD12",
            "*",
            "?",
            "[a]",
            "a\\b",
            "импорт");

    @Test
    void differentNamesGiveDifferentKeys() {
        Set<String> keys = new HashSet<>();
        for (String name : NAMES) {
            assertTrue(keys.add(RedisKeys.lockKey(name)), name);
        }
    }

    @Test
    void bothKeysOfALockShareAHashSlotWhateverTheNameHolds() {
        for (String name : NAMES) {
            assertEquals(
                    JedisClusterCRC16.getSlot(RedisKeys.lockKey(name)),
                    JedisClusterCRC16.getSlot(RedisKeys.fenceKey(name)),
                    name);
        }
        assertNotEquals(
                JedisClusterCRC16.getSlot(RedisKeys.lockKey("x}{y")),
                JedisClusterCRC16.getSlot(RedisKeys.lockKey("x")),
                "a brace in the name does not cut the tag short");
    }

    @Test
    void namesAreReadBackFromKeys() {
        for (String name : NAMES) {
            assertEquals(name, RedisKeys.nameOf(RedisKeys.lockKey(name)));
        }
        assertEquals(null, RedisKeys.nameOf(RedisKeys.fenceKey("a")));
    }

    @Test
    void escapingKeepsPrefixes() {
        for (String name : NAMES) {
            for (int end = 0; end <= name.length(); end++) {
                String prefix = name.substring(0, end);
                if (end > 0 && Character.isHighSurrogate(prefix.charAt(end - 1))) {
                    continue; // the pattern drops a trailing high surrogate; the store filters the rest
                }
                assertTrue(RedisKeys.escape(name).startsWith(RedisKeys.escape(prefix)), name + " / " + prefix);
            }
        }
    }

    @Test
    void scanPatternsEscapeGlobCharacters() {
        assertEquals("exclusive:lock:{a\\*b\\?c\\[d\\]e\\\\f*}", RedisKeys.scanPattern("a*b?c[d]e\\f"));
        assertEquals("exclusive:lock:{x%7D*}", RedisKeys.scanPattern("x}"));
    }
}

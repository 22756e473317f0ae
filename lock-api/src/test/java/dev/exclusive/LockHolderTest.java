package dev.exclusive;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class LockHolderTest {

    @Test
    void encodeAndDecodeRoundTrip() {
        LockHolder holder = new LockHolder("node-1/4242", "http-worker-7", "Purchases#purchase");
        assertEquals(holder, LockHolder.decode(holder.encode()));
        assertEquals("node-1/4242 / http-worker-7 / Purchases#purchase", holder.toString());
    }

    @Test
    void controlCharactersAndNullsAreCleaned() {
        LockHolder holder = new LockHolder("a\u001fb", null, "line\nbreak");
        assertEquals("a b", holder.instance());
        assertEquals("", holder.thread());
        assertEquals("line break", holder.purpose());
        assertEquals(holder, LockHolder.decode(holder.encode()));
    }

    @Test
    void anyStringDecodes() {
        assertEquals(new LockHolder("legacy holder", "", ""), LockHolder.decode("legacy holder"));
        assertEquals(new LockHolder("", "", ""), LockHolder.decode(null));
    }
}

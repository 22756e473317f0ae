package dev.exclusive.demo.cluster;

import dev.exclusive.cdi.Exclusive;
import jakarta.enterprise.context.ApplicationScoped;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * A shop's stock of one item in a plain file, sold by read-check-write under {@code @Exclusive}: every server of the
 * cross-vendor test runs this bean on the same files and the same lock folder, so only the lock stands between
 * concurrent buyers on different servers and an oversold item (the check and the write are two file operations).
 */
@ApplicationScoped
public class SharedStock {

    /**
     * Sells one unit to {@code buyer} if any is left, appending {@code <buyer>} to the orders file.
     *
     * @param item   the item, which names the lock ({@code it:stock:<item>})
     * @param stock  the file that holds the units left
     * @param orders the file that lists one line per unit sold
     * @param buyer  who buys
     * @return whether a unit was sold
     */
    @Exclusive(value = "it:stock:{item}", ttl = 30, maxWait = 30)
    public boolean buy(String item, Path stock, Path orders, String buyer) {
        try {
            long left = Long.parseLong(
                    Files.readString(stock, StandardCharsets.UTF_8).strip());
            if (left < 1) {
                return false;
            }
            Files.writeString(stock, Long.toString(left - 1), StandardCharsets.UTF_8);
            Files.writeString(
                    orders, buyer + "\n", StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
            return true;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}

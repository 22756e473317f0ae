package dev.exclusive.jpa;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import java.time.OffsetDateTime;

/**
 * The mapping of the default lock table, {@value JpaLockStore#DEFAULT_TABLE}, for the persistence unit to list
 * and for read-only reporting queries. {@link JpaLockStore} itself writes the table with native statements, so
 * that the database's clock decides every expiry and the table name can be configured; never write rows through
 * this entity.
 *
 * <p>On MariaDB/MySQL the times are UTC {@code DATETIME(6)} values. Create the table with the store's DDL, not by
 * schema generation from this mapping: the name column needs an exact collation, which a generated column with the
 * database's default may lack (the store refuses such a table on first use).
 */
@Entity
@Table(name = JpaLockStore.DEFAULT_TABLE)
public class LockRow {

    @Id
    @Column(name = "name", length = 255, nullable = false)
    private String name;

    @Column(name = "owner", length = 255)
    private String owner;

    @Column(name = "holder", length = 1000)
    private String holder;

    @Column(name = "acquired_at", nullable = false)
    private OffsetDateTime acquiredAt;

    @Column(name = "expires_at", nullable = false)
    private OffsetDateTime expiresAt;

    @Column(name = "fence", nullable = false)
    private long fence;

    /** For the persistence provider. */
    protected LockRow() {}

    /** @return the full lock name */
    public String getName() {
        return name;
    }

    /** @return the owner id of the current or last holder, {@code null} once released */
    public String getOwner() {
        return owner;
    }

    /** @return the holder as {@link dev.exclusive.LockHolder#encode()} wrote it */
    public String getHolder() {
        return holder;
    }

    /** @return when the current or last hold began, by the database clock */
    public OffsetDateTime getAcquiredAt() {
        return acquiredAt;
    }

    /** @return when the lease ends or ended, by the database clock */
    public OffsetDateTime getExpiresAt() {
        return expiresAt;
    }

    /** @return the fence of the current or last hold */
    public long getFence() {
        return fence;
    }
}

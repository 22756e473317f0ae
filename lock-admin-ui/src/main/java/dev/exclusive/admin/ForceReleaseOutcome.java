package dev.exclusive.admin;

/** What a force-release from the console did. */
public enum ForceReleaseOutcome {
    /** A live lock was freed. */
    RELEASED,
    /** The lock was free already: released by its holder or expired since it was listed. */
    ALREADY_RELEASED
}

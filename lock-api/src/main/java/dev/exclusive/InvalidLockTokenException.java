package dev.exclusive;

/** A token given to {@link LockRegistry#restore(String)} that was not produced by {@link Lock#token()}. */
public class InvalidLockTokenException extends LockException {

    private static final long serialVersionUID = 1L;

    /**
     * @param message what was wrong with the token
     * @param cause   the decoding failure, or {@code null}
     */
    public InvalidLockTokenException(String message, Throwable cause) {
        super(message, null, null, cause);
    }
}

package dev.exclusive;

/** A token given to {@link LockRegistry#restore(String)} that was not produced by {@link Lock#token()}. */
public class InvalidLockTokenException extends LockException {

    private static final long serialVersionUID = 1L;

    public InvalidLockTokenException(String message, Throwable cause) {
        super(message, null, null, cause);
    }
}

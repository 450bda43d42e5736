package io.phoenixtxn.admin;

/**
 * A failure of an admin command that the operator can act on: its message is one line naming the cause and the fix
 * (ZooKeeper, HBase or the TM unreachable, a bad argument). {@link AdminMain} prints it without a stack trace.
 */
public final class AdminException extends Exception {
    AdminException(String message) {
        super(message);
    }

    AdminException(String message, Throwable cause) {
        super(message, cause);
    }
}

package io.phoenixtxn.tm.net;

import java.util.concurrent.CompletionException;

/** Turns exceptions into short, readable causes for error messages and logs. */
final class Failures {
    /** Some causes carry whole packets as hex (Netty's NotSslRecordException): keep messages readable. */
    private static final int MAX_MESSAGE_CHARS = 200;

    private Failures() {
    }

    static boolean hasCause(Throwable failure, Class<? extends Throwable> type) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (type.isInstance(t)) {
                return true;
            }
        }
        return false;
    }

    /** The failure inside {@link CompletionException} wrappers (what a dependent stage of a future sees). */
    static Throwable unwrap(Throwable failure) {
        Throwable t = failure;
        while (t instanceof CompletionException && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }

    /** The innermost cause as "SimpleName: message" (wrappers such as DecoderException add nothing). */
    static String describe(Throwable failure) {
        Throwable root = failure;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String message = root.getMessage();
        if (message != null && message.length() > MAX_MESSAGE_CHARS) {
            message = message.substring(0, MAX_MESSAGE_CHARS) + "...";
        }
        return message == null || message.isBlank() ? root.getClass().getSimpleName()
                : root.getClass().getSimpleName() + ": " + message;
    }
}

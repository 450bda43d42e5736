package io.phoenixtxn.tm.discovery;

import java.util.Locale;
import java.util.function.Function;

/** The values of {@value #KEY}; {@link TmLocator} says what each one does. */
public enum TmMode {
    AUTO, EMBEDDED, REMOTE;

    public static final String KEY = "phoenix.txn.tm.mode";

    /** The configured mode; {@code auto} when unset; a wrong value fails naming the key and the choices. */
    public static TmMode from(Function<String, String> settings) {
        String raw = settings.apply(KEY);
        if (raw == null || raw.isBlank()) {
            return AUTO;
        }
        switch (raw.trim().toLowerCase(Locale.ROOT)) {
            case "auto":
                return AUTO;
            case "embedded":
                return EMBEDDED;
            case "remote":
                return REMOTE;
            default:
                throw new IllegalArgumentException(KEY + "='" + raw.trim() + "' is not one of auto, embedded, remote");
        }
    }

    /** As written in the configuration, e.g. {@code phoenix.txn.tm.mode=auto}. */
    @Override
    public String toString() {
        return KEY + "=" + name().toLowerCase(Locale.ROOT);
    }
}

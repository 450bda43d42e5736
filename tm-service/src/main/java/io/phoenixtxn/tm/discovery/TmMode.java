package io.phoenixtxn.tm.discovery;

import java.util.Locale;
import java.util.function.Function;

/**
 * The values of {@code phoenix.txn.tm.mode} ({@link io.phoenixtxn.tm.TxnSettings#TM_MODE}); {@link TmLocator} says
 * what each one does.
 */
public enum TmMode {
    AUTO, EMBEDDED, REMOTE;

    public static final String KEY = io.phoenixtxn.tm.TxnSettings.TM_MODE.key();

    /** The configured mode; {@code auto} when unset; a wrong value fails naming the key and the choices. */
    public static TmMode from(Function<String, String> settings) {
        switch (io.phoenixtxn.tm.TxnSettings.TM_MODE.get(settings)) {
            case "embedded":
                return EMBEDDED;
            case "remote":
                return REMOTE;
            default:
                return AUTO;
        }
    }

    /** As written in the configuration, e.g. {@code phoenix.txn.tm.mode=auto}. */
    @Override
    public String toString() {
        return KEY + "=" + name().toLowerCase(Locale.ROOT);
    }
}

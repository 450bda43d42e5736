package io.phoenixtxn.phoenix;

import io.phoenixtxn.tm.EmbeddedTm;
import io.phoenixtxn.tm.TmConfig;
import io.phoenixtxn.tm.TransactionManager;
import org.apache.hadoop.conf.Configuration;

import java.util.Locale;
import java.util.function.Supplier;

/**
 * Finds the transaction manager a Phoenix connection service uses, from {@code phoenix.txn.tm.mode}:
 * {@code embedded} (default; the JVM's in-process TM) or {@code remote} (a TM server). Returns a supplier that is
 * asked on every call, so a restarted or failed-over TM is picked up without reconnecting Phoenix.
 */
final class TmLocator {
    static final String MODE = "phoenix.txn.tm.mode";

    private TmLocator() {
    }

    static Supplier<TransactionManager> locate(Configuration conf) {
        String mode = conf.get(MODE, "embedded").trim().toLowerCase(Locale.ROOT);
        switch (mode) {
            case "embedded":
                TmConfig tmConfig = TmConfig.from(conf::get);
                EmbeddedTm.shared(tmConfig);
                return () -> EmbeddedTm.shared(tmConfig);
            case "remote":
                throw new IllegalArgumentException("REMOTE_PENDING");
            default:
                throw new IllegalArgumentException(MODE + "='" + mode + "' is not one of embedded, remote");
        }
    }
}

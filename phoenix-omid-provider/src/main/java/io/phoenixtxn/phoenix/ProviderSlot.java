package io.phoenixtxn.phoenix;

import org.apache.phoenix.transaction.PhoenixTransactionProvider;
import org.apache.phoenix.transaction.TransactionFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.lang.reflect.Field;

/**
 * Puts {@link PhoenixTxnProvider} into Phoenix's {@code OMID} provider slot. Phoenix's provider list is a closed
 * enum whose constants hold their provider in a private final field; we replace that field's value once per JVM.
 * (JDK 17 permits it for instance fields of ordinary classes, without --add-opens, because Phoenix lives in the
 * unnamed module.) Consequences, documented in the README: one provider per cluster, and metadata says OMID.
 *
 * <p>Triggered on clients by {@link PhoenixTxnDriverHook} (a java.sql.Driver service entry) and on region servers
 * by {@link PhoenixTxnObserver}'s class initialisation, so having our jar on the classpath is all it takes.
 */
public final class ProviderSlot {
    private static final Logger LOG = LoggerFactory.getLogger(ProviderSlot.class);
    private static volatile boolean installed;

    private ProviderSlot() {
    }

    /** Idempotent and thread-safe; fails loudly if the slot cannot be taken. */
    public static void install() {
        if (installed) {
            return;
        }
        synchronized (ProviderSlot.class) {
            if (installed) {
                return;
            }
            TransactionFactory.Provider slot = TransactionFactory.Provider.OMID;
            try {
                Field field = TransactionFactory.Provider.class.getDeclaredField("provider");
                field.setAccessible(true);
                field.set(slot, PhoenixTxnProvider.INSTANCE);
            } catch (ReflectiveOperationException | RuntimeException e) {
                throw new IllegalStateException("phoenix-txn could not take Phoenix's OMID transaction provider slot ("
                        + e + "). This Phoenix version is not supported: use Phoenix 5.2.x with phoenix-txn's"
                        + " phoenix-omid-provider jar on the classpath.", e);
            }
            verify();
            installed = true;
            LOG.info("phoenix-txn took Phoenix's OMID transaction provider slot");
        }
    }

    /**
     * Throws if Phoenix would reach a provider other than ours through the OMID slot (Apache Omid's client, say).
     */
    public static void verify() {
        PhoenixTransactionProvider current = TransactionFactory.Provider.OMID.getTransactionProvider();
        if (current != PhoenixTxnProvider.INSTANCE) {
            throw new IllegalStateException("Phoenix's OMID transaction provider is " + current.getClass().getName()
                    + ", not phoenix-txn's. Put the phoenix-omid-provider jar on this JVM's classpath (clients: next"
                    + " to the Phoenix client jar; region servers: in HBase's lib directory) and remove Apache Omid's"
                    + " client jars; one transaction provider serves a cluster.");
        }
    }
}

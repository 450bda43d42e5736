package io.phoenixtxn.tm.discovery;

import io.phoenixtxn.tm.TransactionManager;

import java.util.function.Supplier;

/**
 * How a client reaches the TM {@link TmLocator} chose for it: asked on every call, closed with the client (a
 * Phoenix connection service, or a {@code TxnClient} of a plain HBase application). {@link #get()} neither blocks
 * nor throws: a TM that cannot be used now is returned as one whose calls fail with a {@code TmException} that says
 * why, so a client's error path (roll back before the commit point) stays the one it already has.
 */
public interface TmHandle extends Supplier<TransactionManager>, AutoCloseable {

    @Override
    TransactionManager get();

    /** What this handle uses, for logs and errors (e.g. "the TM server advertised at zk:2181/phoenix-txn"). */
    String description();

    /** Releases what the handle holds (connections, its ZooKeeper session and marker); never the JVM's TM. */
    @Override
    void close();
}

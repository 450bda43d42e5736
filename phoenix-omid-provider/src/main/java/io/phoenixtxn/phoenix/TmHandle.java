package io.phoenixtxn.phoenix;

import io.phoenixtxn.tm.TransactionManager;

import java.io.Closeable;
import java.util.function.Supplier;

/** How a connection service reaches its TM: asked on every call; closed with the connection service. */
interface TmHandle extends Supplier<TransactionManager>, Closeable {
    @Override
    void close();
}

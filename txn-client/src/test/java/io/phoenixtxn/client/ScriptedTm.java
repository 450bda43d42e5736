package io.phoenixtxn.client;

import io.phoenixtxn.tm.PendingStatus;
import io.phoenixtxn.tm.TmException;
import io.phoenixtxn.tm.TransactionManager;

import java.lang.reflect.Proxy;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.LongFunction;

/**
 * A TM for readers' unit tests: answers {@link TransactionManager#pendingStatus} from a script and records who was
 * asked about; every other call fails (a reader never begins or commits). A dynamic proxy, so it keeps compiling
 * when the TM interface gains methods.
 */
public final class ScriptedTm {
    private final LongFunction<PendingStatus> answers;
    private final List<Long> asked = new CopyOnWriteArrayList<>();

    private ScriptedTm(LongFunction<PendingStatus> answers) {
        this.answers = answers;
    }

    /** A TM whose pending-status answer for a transaction id is {@code answers.apply(txId)}. */
    public static ScriptedTm answering(LongFunction<PendingStatus> answers) {
        return new ScriptedTm(answers);
    }

    /** A TM that cannot be reached: every pending-status question fails with a {@link TmException}. */
    public static ScriptedTm unreachable() {
        return new ScriptedTm(txId -> null);
    }

    public TransactionManager tm() {
        return (TransactionManager) Proxy.newProxyInstance(TransactionManager.class.getClassLoader(),
                new Class<?>[] {TransactionManager.class}, (proxy, method, args) -> {
                    switch (method.getName()) {
                        case "pendingStatus":
                            return answer((Long) args[0]);
                        case "pendingStatusAsync":
                            try {
                                return CompletableFuture.completedFuture(answer((Long) args[0]));
                            } catch (TmException e) {
                                return CompletableFuture.failedFuture(e);
                            }
                        case "close":
                            return null;
                        case "toString":
                            return "ScriptedTm";
                        case "hashCode":
                            return System.identityHashCode(proxy);
                        case "equals":
                            return proxy == args[0];
                        default:
                            throw new UnsupportedOperationException("a reader does not call " + method.getName());
                    }
                });
    }

    /** The scripted answer about a writer (its transaction id is the first argument of every status question). */
    private PendingStatus answer(long writerTxId) throws TmException {
        asked.add(writerTxId);
        PendingStatus status = answers.apply(writerTxId);
        if (status == null) {
            throw new TmException("scripted: TM unreachable");
        }
        return status;
    }

    /** The transaction ids the TM was asked about, in order. */
    public List<Long> asked() {
        return asked;
    }
}

package io.phoenixtxn.bench.workload;

import io.phoenixtxn.client.Transaction;
import io.phoenixtxn.client.TransactionalTable;
import io.phoenixtxn.client.TxnAbortedException;
import io.phoenixtxn.client.TxnClient;
import io.phoenixtxn.client.TxnClientConfig;
import io.phoenixtxn.stack.EmbeddedStack;
import io.phoenixtxn.tm.AbortReason;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.util.Bytes;

import java.io.PrintStream;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Issue 4's hot workload: 10 keys, 4 writer threads doing read-modify-write transactions and 2 reader threads
 * reading all keys. Reports the share of commit attempts that abort, by reason, so reader-caused aborts
 * (INVALIDATED) can be told from write-write conflicts. Reference on these machines: Apache Omid aborted 75-80%
 * in low-latency mode, 41-49% in its default mode.
 */
final class HotWorkload {
    private static final int KEYS = 10;

    private HotWorkload() {
    }

    static String run(EmbeddedStack stack, int attemptsPerWriter, PrintStream out) throws Exception {
        TableName name = ClientWorkload.create(stack.hbase().getConnection(), "BENCH_HOT", true);
        AtomicLong attempts = new AtomicLong();
        Map<AbortReason, AtomicLong> aborts = new EnumMap<>(AbortReason.class);
        for (AbortReason r : AbortReason.values()) {
            aborts.put(r, new AtomicLong());
        }
        AtomicBoolean writing = new AtomicBoolean(true);
        AtomicLong reads = new AtomicLong();
        try (TxnClient client = new TxnClient(stack.hbase().getConnection(), stack::transactionManager,
                TxnClientConfig.from(stack.configuration()::get)); TransactionalTable table = client.table(name)) {
            Transaction init = client.begin();
            for (int k = 0; k < KEYS; k++) {
                table.put(init, new Put(key(k)).addColumn(ClientWorkload.FAMILY, ClientWorkload.QUALIFIER,
                        Bytes.toBytes(0L)));
            }
            client.commit(init, true);
            ExecutorService pool = Executors.newFixedThreadPool(6);
            Future<?>[] writers = new Future<?>[4];
            for (int w = 0; w < writers.length; w++) {
                writers[w] = pool.submit(() -> {
                    for (int i = 0; i < attemptsPerWriter; i++) {
                        Transaction tx = client.begin();
                        byte[] k = key(ThreadLocalRandom.current().nextInt(KEYS));
                        Result r = table.get(tx, new Get(k).addColumn(ClientWorkload.FAMILY, ClientWorkload.QUALIFIER));
                        long v = Bytes.toLong(r.getValue(ClientWorkload.FAMILY, ClientWorkload.QUALIFIER));
                        table.put(tx, new Put(k).addColumn(ClientWorkload.FAMILY, ClientWorkload.QUALIFIER,
                                Bytes.toBytes(v + 1)));
                        attempts.incrementAndGet();
                        try {
                            client.commit(tx);
                        } catch (TxnAbortedException e) {
                            aborts.get(e.reason()).incrementAndGet();
                        }
                    }
                    return null;
                });
            }
            Future<?>[] readers = new Future<?>[2];
            for (int r = 0; r < readers.length; r++) {
                readers[r] = pool.submit(() -> {
                    while (writing.get()) {
                        Transaction tx = client.begin();
                        for (int k = 0; k < KEYS; k++) {
                            table.get(tx, new Get(key(k)).addColumn(ClientWorkload.FAMILY, ClientWorkload.QUALIFIER));
                        }
                        client.commit(tx);
                        reads.incrementAndGet();
                    }
                    return null;
                });
            }
            for (Future<?> w : writers) {
                w.get();
            }
            writing.set(false);
            for (Future<?> r : readers) {
                r.get();
            }
            pool.shutdown();
        }
        long total = aborts.values().stream().mapToLong(AtomicLong::get).sum();
        String line = String.format("| 10 keys, 4 writers, 2 readers | %d | %.1f%% | %.1f%% | %.1f%% | %d |",
                attempts.get(), 100.0 * total / attempts.get(),
                100.0 * aborts.get(AbortReason.CONFLICT).get() / attempts.get(),
                100.0 * aborts.get(AbortReason.INVALIDATED).get() / attempts.get(), reads.get());
        out.println(line);
        return line;
    }

    private static byte[] key(int k) {
        return Bytes.toBytes("hot-" + k);
    }
}

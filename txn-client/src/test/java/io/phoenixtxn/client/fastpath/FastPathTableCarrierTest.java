package io.phoenixtxn.client.fastpath;

import io.phoenixtxn.client.ObserverNames;
import org.apache.hadoop.hbase.NotServingRegionException;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Increment;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.reflect.Proxy;
import java.net.SocketTimeoutException;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * How {@link FastPathTable} sends a write's carrier when an attempt fails (faults injected by a fake table): sent again
 * only after an attempt that certainly did not write; in doubt after any other failure, never resent (HBase's nonce
 * would not stop a second apply after a region move).
 */
class FastPathTableCarrierTest {
    private static final byte[] F = Bytes.toBytes("f");

    /** What one carrier RPC does. */
    @FunctionalInterface
    private interface Attempt {
        Result run(Increment carrier) throws IOException;
    }

    private static final class FakeTable {
        final Deque<Attempt> script = new ArrayDeque<>();
        int sent;
        int applied;

        Table table() {
            return (Table) Proxy.newProxyInstance(Table.class.getClassLoader(), new Class<?>[] {Table.class},
                    (proxy, method, args) -> switch (method.getName()) {
                        case "getName" -> TableName.valueOf("fp_carrier");
                        case "getDescriptor" -> TableDescriptorBuilder.newBuilder(TableName.valueOf("fp_carrier"))
                                .setColumnFamily(ColumnFamilyDescriptorBuilder.of(F))
                                .setCoprocessor(ObserverNames.SNAPSHOT_READ_OBSERVER).build();
                        case "increment" -> {
                            sent++;
                            yield script.removeFirst().run((Increment) args[0]);
                        }
                        case "close" -> null;
                        default -> throw new UnsupportedOperationException(method.getName());
                    });
        }

        Result apply(Increment carrier, long version) {
            applied++;
            return Result.create(List.of(FastPathWire.outcomeCell(carrier.getRow(), true, version)));
        }
    }

    private static Put put() {
        return new Put(Bytes.toBytes("r")).addColumn(F, Bytes.toBytes("v"), Bytes.toBytes(1L));
    }

    @Test
    void aWriteWhoseAnswerIsLostIsInDoubtAndNeverSentAgain() {
        FakeTable fake = new FakeTable();
        fake.script.add(carrier -> {
            fake.apply(carrier, 42);
            throw new SocketTimeoutException("the answer was lost (test)");
        });
        fake.script.add(carrier -> fake.apply(carrier, 43)); // a resend after a region move: no nonce stops it
        FastPathTable table = new FastPathTable(fake.table(), null);

        assertThrows(FastPathInDoubtException.class, () -> table.bwc(put()));
        assertEquals(1, fake.sent, "not sent again");
        assertEquals(1, fake.applied, "applied once");
    }

    @Test
    void aWriteTheRegionServerDidNotRunIsSentAgain() throws Exception {
        FakeTable fake = new FakeTable();
        fake.script.add(carrier -> {
            throw new NotServingRegionException("the region is moving (test)");
        });
        fake.script.add(carrier -> fake.apply(carrier, 42));
        FastPathTable table = new FastPathTable(fake.table(), null);

        assertEquals(42, table.bwc(put()));
        assertEquals(2, fake.sent);
        assertEquals(1, fake.applied);
    }

    @Test
    void aRefusalIsKnownNotWrittenAndNotSentAgain() {
        FakeTable fake = new FakeTable();
        fake.script.add(carrier -> {
            throw FastPathAbortedException.of(FastPathAbortedException.Reason.TENTATIVE_VERSION, "pending (test)");
        });
        FastPathTable table = new FastPathTable(fake.table(), null);

        FastPathAbortedException refused = assertThrows(FastPathAbortedException.class, () -> table.bwc(put()));
        assertTrue(refused.reason().regularRetryHelps(), "known not written: the regular path may run it");
        assertEquals(1, fake.sent);
    }
}

package io.phoenixtxn.coprocessor;

import io.phoenixtxn.client.SnapshotAttributes;
import io.phoenixtxn.client.TxnClientConfig;
import org.apache.hadoop.hbase.DoNotRetryIOException;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CommitTableCheckTest {
    private static final TableName DATA = TableName.valueOf("T");
    private final CommitTableCheck check = new CommitTableCheck("OMID_COMMIT_TABLE");

    @Test
    void theSameTableAndNoTableAtAllPass() {
        assertDoesNotThrow(() -> check.verify(naming("OMID_COMMIT_TABLE"), "get", DATA));
        assertDoesNotThrow(() -> check.verify(naming("default:OMID_COMMIT_TABLE"), "get", DATA));
        assertDoesNotThrow(() -> check.verify(new Get(Bytes.toBytes("r")), "get", DATA));
    }

    @Test
    void anotherTableIsRefusedNamingBothAndTheKey() {
        for (String other : new String[] {"OTHER", "ns:OMID_COMMIT_TABLE", "not a table name"}) {
            DoNotRetryIOException refused = assertThrows(DoNotRetryIOException.class,
                    () -> check.verify(naming(other), "put", DATA));
            String message = refused.getMessage();
            assertTrue(message.contains("'" + other + "'"), message);
            assertTrue(message.contains("'OMID_COMMIT_TABLE'"), message);
            assertTrue(message.contains(TxnClientConfig.COMMIT_TABLE), message);
            assertTrue(message.contains("put on T"), message);
        }
    }

    private static Get naming(String commitTable) {
        Get get = new Get(Bytes.toBytes("r"));
        get.setAttribute(SnapshotAttributes.COMMIT_TABLE, Bytes.toBytes(commitTable));
        return get;
    }
}

package io.phoenixtxn.phoenix;

import io.phoenixtxn.client.Transaction;
import io.phoenixtxn.client.TxnClient;
import io.phoenixtxn.client.fastpath.FastPathSwitch;
import io.phoenixtxn.index.IndexBuildHooks;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.phoenix.exception.SQLExceptionCode;
import org.apache.phoenix.exception.SQLExceptionInfo;
import org.apache.phoenix.jdbc.PhoenixConnection;
import org.apache.phoenix.schema.PTable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.sql.SQLException;

/**
 * The write fence of an index build (VLDB'18 sec. 6.1, design.md sec. 4.4): drawn at the TM on the data table once
 * the index exists (BUILDING), so every transaction of the table that began before it aborts at commit (523) and
 * every one that begins after it maintains the index; the population reads the table's snapshot at the fence and
 * writes the index rows committed at the fence, below every later writer's index maintenance.
 *
 * <p>{@link #draw} is the fence of Phoenix's synchronous build ({@code PhoenixTxnContext.commitDDLFence}).
 * {@link #drawAndHold} is the fence of a MapReduce build ({@code io.phoenixtxn.indextool.TransactionalIndexTool}):
 * the fence is also held as an open transaction of this client until {@link #close}, so the TM's GC horizon stays
 * at or below it while the job's map tasks read at it.
 */
public final class IndexBuildFence implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(IndexBuildFence.class);

    private final TxnClient client;
    private final Transaction hold;

    private IndexBuildFence(TxnClient client, Transaction hold) {
        this.client = client;
        this.hold = hold;
    }

    /**
     * Draws the fence on {@code dataTable}: the index TTLs follow the table's first (an index is never active
     * without them), the table's fast path is turned off (fast-path writes maintain no index; once the switch is
     * off every region refuses them, and each one served before drew its version below this fence), then the TM
     * fences the table.
     *
     * @param dataTable the data table, possibly resolved before its new index was added (re-resolved where needed)
     */
    static long draw(PhoenixConnection connection, PTable dataTable) throws SQLException {
        TableName physical = TableName.valueOf(dataTable.getPhysicalName().getBytes());
        PhoenixTxnClient provider = PhoenixTxnContext.phoenixClientOf(connection);
        long fence;
        try (Admin admin = connection.getQueryServices().getAdmin()) {
            IndexTtlSync.sync(connection, admin, dataTable);
            FastPathSwitch.disable(admin, physical);
            fence = provider.txnClient().fence(physical);
            PhoenixTxnContext.sawTmTimestamp(provider, fence);
        } catch (IOException | RuntimeException e) {
            throw new SQLExceptionInfo.Builder(SQLExceptionCode.TX_UNABLE_TO_GET_WRITE_FENCE)
                    .setSchemaName(dataTable.getSchemaName().getString())
                    .setTableName(dataTable.getTableName().getString()).setRootCause(e)
                    .setMessage(e.getMessage()).build().buildException();
        }
        provider.switches().refused(physical);
        LOG.info("Write fence on {} at {}", physical, fence);
        IndexBuildHooks.current().afterFence(physical.getNameAsString(), fence);
        return fence;
    }

    /**
     * Draws the fence (as {@link #draw}) and holds it as an open transaction of {@code connection}'s client until
     * {@link #close}: readers at the fence stay above the GC horizon however long the build runs.
     */
    public static IndexBuildFence drawAndHold(PhoenixConnection connection, PTable dataTable) throws SQLException {
        long fence = draw(connection, dataTable);
        TxnClient client = PhoenixTxnContext.phoenixClientOf(connection).txnClient();
        return new IndexBuildFence(client, client.populationAt(fence));
    }

    /** The fence: the snapshot the build reads and the version (and commit timestamp) of every index row. */
    public long timestamp() {
        return hold.txId();
    }

    /** Ends the hold: the GC horizon may pass the fence. */
    @Override
    public void close() {
        try {
            client.commit(hold); // wrote nothing through the client: ends at the TM like a read-only transaction
        } catch (IOException | RuntimeException e) {
            LOG.warn("Could not end the hold of index-build fence {} ({}); its lease lapses and the TM ends it",
                    hold.txId(), e.toString());
        }
    }
}

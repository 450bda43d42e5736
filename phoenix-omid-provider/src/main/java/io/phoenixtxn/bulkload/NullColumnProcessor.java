package io.phoenixtxn.bulkload;

import org.apache.hadoop.conf.Configurable;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.KeyValue;
import org.apache.phoenix.mapreduce.ImportPreUpsertKeyValueProcessor;
import org.apache.phoenix.mapreduce.util.PhoenixConfigurationUtil;

import java.util.ArrayList;
import java.util.List;

/**
 * The mapper-side hook of a transactional bulk load (Phoenix's {@code phoenix.mapreduce.import.kvprocessor}): on a
 * transactional table Phoenix writes a column set to null as a put with an empty value, which its bulk-load reducer
 * would turn into the one-byte empty-column marker, a value. Such puts travel as column deletes instead, which
 * {@link LoadCells} writes as our tombstones. The processor the user configured, if any, runs afterwards.
 */
public class NullColumnProcessor implements ImportPreUpsertKeyValueProcessor, Configurable {
    /** Where the tool keeps the user's own processor class while this one takes Phoenix's setting. */
    static final String USER_PROCESSOR = "phoenix.txn.bulkload.user.kvprocessor";

    private Configuration conf;
    private ImportPreUpsertKeyValueProcessor next;

    @Override
    public void setConf(Configuration conf) {
        this.conf = conf;
        String user = conf.get(USER_PROCESSOR);
        if (user != null) {
            Configuration userConf = new Configuration(conf);
            userConf.set(PhoenixConfigurationUtil.UPSERT_HOOK_CLASS_CONFKEY, user);
            next = PhoenixConfigurationUtil.loadPreUpsertProcessor(userConf);
        }
    }

    @Override
    public Configuration getConf() {
        return conf;
    }

    @Override
    public List<Cell> preUpsert(byte[] tableName, List<Cell> keyValues) {
        List<Cell> out = new ArrayList<>(keyValues.size());
        for (Cell cell : keyValues) {
            out.add(cell.getType() == Cell.Type.Put && cell.getValueLength() == 0
                    ? new KeyValue(CellUtil.cloneRow(cell), CellUtil.cloneFamily(cell), CellUtil.cloneQualifier(cell),
                            cell.getTimestamp(), KeyValue.Type.DeleteColumn)
                    : cell);
        }
        return next == null ? out : next.preUpsert(tableName, out);
    }
}

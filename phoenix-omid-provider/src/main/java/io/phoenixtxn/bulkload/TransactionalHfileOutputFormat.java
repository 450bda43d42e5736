package io.phoenixtxn.bulkload;

import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.mapreduce.RecordWriter;
import org.apache.hadoop.mapreduce.TaskAttemptContext;
import org.apache.phoenix.mapreduce.MultiHfileOutputFormat;
import org.apache.phoenix.mapreduce.bulkload.TableRowkeyPair;

import java.io.IOException;

/**
 * Phoenix's HFile output, every cell rewritten at the bulk load's start timestamp ({@link LoadCells}) before HBase's
 * writer sees it: the region servers admit a file into a transactional table only with all its cells at one load
 * transaction's version (io.phoenixtxn.coprocessor.BulkLoadAdmission).
 */
public class TransactionalHfileOutputFormat extends MultiHfileOutputFormat {

    @Override
    public RecordWriter<TableRowkeyPair, Cell> getRecordWriter(TaskAttemptContext context)
            throws IOException, InterruptedException {
        long version = context.getConfiguration().getLong(TransactionalCsvBulkLoadTool.LOAD_VERSION, -1);
        if (version <= 0) {
            throw new IOException(TransactionalCsvBulkLoadTool.LOAD_VERSION + " is not set: this output format"
                    + " writes the files of a transactional bulk load, which TransactionalCsvBulkLoadTool begins");
        }
        RecordWriter<TableRowkeyPair, Cell> files = super.getRecordWriter(context);
        return new RecordWriter<TableRowkeyPair, Cell>() {
            @Override
            public void write(TableRowkeyPair row, Cell cell) throws IOException, InterruptedException {
                files.write(row, LoadCells.atVersion(cell, version));
            }

            @Override
            public void close(TaskAttemptContext c) throws IOException, InterruptedException {
                files.close(c);
            }
        };
    }
}

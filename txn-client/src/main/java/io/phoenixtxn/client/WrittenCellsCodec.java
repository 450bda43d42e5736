package io.phoenixtxn.client;

import org.apache.hadoop.hbase.TableName;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The recovery record stored beside a commit-table entry ({@code F:R}): where the transaction's tentative cells
 * are, so that if its client dies after the commit point the {@link CommitTableCleaner} can finish its post-commit.
 * Format: version byte 1, table count, per table (name, cell count, per cell: row, family, qualifier, version delta
 * from the transaction id). Apache Omid ignores the extra column.
 */
public final class WrittenCellsCodec {
    private static final byte FORMAT = 1;
    /** Larger records are not written: readers heal such transactions cell by cell instead. */
    public static final int MAX_RECORD_BYTES = 1 << 20;

    private WrittenCellsCodec() {
    }

    /** The record, or null when it would exceed {@link #MAX_RECORD_BYTES}. */
    public static byte[] encode(long txId, Map<TableName, List<WrittenCell>> cells) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeByte(FORMAT);
            out.writeInt(cells.size());
            for (Map.Entry<TableName, List<WrittenCell>> table : cells.entrySet()) {
                writeBytes(out, table.getKey().getName());
                out.writeInt(table.getValue().size());
                for (WrittenCell cell : table.getValue()) {
                    writeBytes(out, cell.row());
                    writeBytes(out, cell.family());
                    writeBytes(out, cell.qualifier());
                    out.writeShort((int) (cell.version() - txId));
                    if (bytes.size() > MAX_RECORD_BYTES) {
                        return null;
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    public static Map<TableName, List<WrittenCell>> decode(long txId, byte[] record) throws IOException {
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(record))) {
            if (in.readByte() != FORMAT) {
                throw new IOException("Unknown recovery record format for transaction " + txId);
            }
            int tables = in.readInt();
            Map<TableName, List<WrittenCell>> cells = new LinkedHashMap<>();
            for (int t = 0; t < tables; t++) {
                TableName name = TableName.valueOf(readBytes(in));
                int n = in.readInt();
                List<WrittenCell> list = new ArrayList<>(n);
                for (int i = 0; i < n; i++) {
                    list.add(new WrittenCell(readBytes(in), readBytes(in), readBytes(in), txId + in.readShort()));
                }
                cells.put(name, list);
            }
            return cells;
        }
    }

    private static void writeBytes(DataOutputStream out, byte[] b) throws IOException {
        out.writeInt(b.length);
        out.write(b);
    }

    private static byte[] readBytes(DataInputStream in) throws IOException {
        int n = in.readInt();
        if (n < 0 || n > MAX_RECORD_BYTES) {
            throw new IOException("Corrupt recovery record: field of " + n + " bytes");
        }
        byte[] b = new byte[n];
        in.readFully(b);
        return b;
    }
}

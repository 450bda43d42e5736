package io.phoenixtxn.client;

import org.apache.hadoop.hbase.ByteBufferExtendedCell;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.PrivateCellUtil;
import org.apache.hadoop.hbase.util.ByteBufferUtils;
import org.apache.hadoop.hbase.util.Bytes;

import java.nio.charset.StandardCharsets;

/**
 * Byte-level layout of transactional data, compatible with Apache Omid 1.1 so that existing Phoenix/Omid tables can
 * switch to phoenix-txn in place.
 *
 * <ul>
 *   <li>Tentative data cell: the user's family and qualifier, version = the writer's write pointer.</li>
 *   <li>Commit cell ("shadow cell"): same row and family, qualifier = {@code 00 C2 80} + qualifier + {@code C2 80}
 *       (the UTF-8 of "\u0000\u0080" and "\u0080"), same version as the data cell, value = 8-byte big-endian commit
 *       timestamp. The 0x00 prefix sorts it before its data cell for ordinary qualifiers.</li>
 *   <li>Column delete: a tentative cell with an empty value (tombstone). Row/family delete: a cell with an empty
 *       qualifier and an empty value, the marker Phoenix's index code recognises ({@code TransactionUtil}).</li>
 * </ul>
 *
 * <p>The methods on {@link Cell} copy nothing: a region server offers memstore cells backed by byte buffers, whose
 * {@code get...Array()} would clone the bytes on every call.
 */
public final class OnDiskLayout {
    public static final byte[] COMMIT_QUALIFIER_PREFIX = "\u0000\u0080".getBytes(StandardCharsets.UTF_8);
    public static final byte[] COMMIT_QUALIFIER_SUFFIX = "\u0080".getBytes(StandardCharsets.UTF_8);
    public static final byte[] FAMILY_DELETE_QUALIFIER = HConstants.EMPTY_BYTE_ARRAY;
    public static final byte[] TOMBSTONE = HConstants.EMPTY_BYTE_ARRAY;
    /** Omid before 1.0 wrote this value for column deletes; still read as a tombstone. */
    public static final byte[] LEGACY_TOMBSTONE = Bytes.toBytes("__OMID_TOMBSTONE__");

    private OnDiskLayout() {
    }

    public static byte[] commitQualifier(byte[] qualifier) {
        return commitQualifier(qualifier, 0, qualifier.length);
    }

    public static byte[] commitQualifier(byte[] array, int offset, int length) {
        byte[] result = new byte[COMMIT_QUALIFIER_PREFIX.length + length + COMMIT_QUALIFIER_SUFFIX.length];
        System.arraycopy(COMMIT_QUALIFIER_PREFIX, 0, result, 0, COMMIT_QUALIFIER_PREFIX.length);
        System.arraycopy(array, offset, result, COMMIT_QUALIFIER_PREFIX.length, length);
        System.arraycopy(COMMIT_QUALIFIER_SUFFIX, 0, result, COMMIT_QUALIFIER_PREFIX.length + length,
                COMMIT_QUALIFIER_SUFFIX.length);
        return result;
    }

    /** True for commit cells, in the current (prefix + suffix) and the legacy (suffix only) form. */
    public static boolean isCommitQualifier(byte[] array, int offset, int length) {
        return endsWith(array, offset, length, COMMIT_QUALIFIER_SUFFIX);
    }

    public static boolean isCommitCell(Cell cell) {
        int length = cell.getQualifierLength();
        int suffix = COMMIT_QUALIFIER_SUFFIX.length;
        if (length <= suffix) {
            return false;
        }
        if (cell instanceof ByteBufferExtendedCell) {
            ByteBufferExtendedCell bb = (ByteBufferExtendedCell) cell;
            return ByteBufferUtils.equals(bb.getQualifierByteBuffer(), bb.getQualifierPosition() + length - suffix,
                    suffix, COMMIT_QUALIFIER_SUFFIX, 0, suffix);
        }
        return endsWith(cell.getQualifierArray(), cell.getQualifierOffset(), length, COMMIT_QUALIFIER_SUFFIX);
    }

    /**
     * Where the data qualifier begins inside a commit cell's qualifier: after the prefix, or at 0 in the legacy
     * (suffix-only) form. With {@link #dataQualifierLength(Cell)}, names the data column without copying it.
     */
    public static int dataQualifierStart(Cell commitCell) {
        return commitCell.getQualifierLength() > COMMIT_QUALIFIER_PREFIX.length
                && PrivateCellUtil.qualifierStartsWith(commitCell, COMMIT_QUALIFIER_PREFIX)
                ? COMMIT_QUALIFIER_PREFIX.length : 0;
    }

    /** Length of the data qualifier inside a commit cell's qualifier (see {@link #dataQualifierStart(Cell)}). */
    public static int dataQualifierLength(Cell commitCell) {
        return commitCell.getQualifierLength() - dataQualifierStart(commitCell) - COMMIT_QUALIFIER_SUFFIX.length;
    }

    /** The data qualifier a commit qualifier belongs to. */
    public static byte[] dataQualifierOf(byte[] array, int offset, int length) {
        int start = offset;
        int end = offset + length - COMMIT_QUALIFIER_SUFFIX.length;
        if (startsWith(array, offset, length, COMMIT_QUALIFIER_PREFIX)) {
            start += COMMIT_QUALIFIER_PREFIX.length;
        }
        return Bytes.copy(array, start, end - start);
    }

    public static byte[] dataQualifierOf(Cell commitCell) {
        return dataQualifierOf(commitCell.getQualifierArray(), commitCell.getQualifierOffset(),
                commitCell.getQualifierLength());
    }

    public static byte[] encodeCommitTimestamp(long commitTs) {
        return Bytes.toBytes(commitTs);
    }

    public static long commitTimestampOf(Cell commitCell) {
        if (commitCell.getValueLength() != Bytes.SIZEOF_LONG) {
            throw new IllegalStateException("Commit cell with a " + commitCell.getValueLength()
                    + "-byte value; expected an 8-byte commit timestamp");
        }
        return PrivateCellUtil.getValueAsLong(commitCell);
    }

    public static boolean isFamilyDeleteMarker(Cell cell) {
        return cell.getQualifierLength() == 0 && isTombstone(cell);
    }

    public static boolean isTombstone(Cell cell) {
        int length = cell.getValueLength();
        return length == 0 || length == LEGACY_TOMBSTONE.length && CellUtil.matchingValue(cell, LEGACY_TOMBSTONE);
    }

    /** User qualifiers that would read back as commit cells are refused. */
    public static void checkUserQualifier(byte[] qualifier) {
        if (qualifier != null && isCommitQualifier(qualifier, 0, qualifier.length)) {
            throw new IllegalArgumentException("Column qualifier " + Bytes.toStringBinary(qualifier)
                    + " ends with the bytes C2 80 that mark commit cells; rename the column");
        }
    }

    // Strictly longer than the suffix/prefix, as Omid's CellUtils: the qualifier C2 80 alone is user data for Omid
    // (its writers accept it), and 00 C2 80 is the legacy suffix-only commit qualifier of the qualifier 00.
    private static boolean endsWith(byte[] a, int off, int len, byte[] suffix) {
        return len > suffix.length
                && Bytes.equals(a, off + len - suffix.length, suffix.length, suffix, 0, suffix.length);
    }

    private static boolean startsWith(byte[] a, int off, int len, byte[] prefix) {
        return len > prefix.length && Bytes.equals(a, off, prefix.length, prefix, 0, prefix.length);
    }
}

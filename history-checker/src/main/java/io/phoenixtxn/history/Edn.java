package io.phoenixtxn.history;

import java.util.List;

/**
 * EDN-like text of events, operations and micro-ops, for people (checker reports): {@code {:index 4, :type :ok,
 * :process 1, :f :txn, :value [[:r 3 [1 2]] [:append 3 9]]}}. Machines read JSON lines ({@code HistoryFile}).
 */
public final class Edn {
    private Edn() {
    }

    public static String mop(Mop m) {
        return "[:" + m.f() + " " + m.key() + " " + value(m.value()) + "]";
    }

    public static String mops(List<Mop> mops) {
        StringBuilder sb = new StringBuilder("[");
        for (int i = 0; i < mops.size(); i++) {
            sb.append(i == 0 ? "" : " ").append(mop(mops.get(i)));
        }
        return sb.append(']').toString();
    }

    public static String event(Event e) {
        StringBuilder sb = new StringBuilder("{:index ").append(e.index()).append(", :type :")
                .append(e.type().wireName()).append(", :process ").append(e.process()).append(", :f :").append(e.f())
                .append(", :time ").append(e.time()).append(", :value ").append(mops(e.value()));
        if (e.error() != null) {
            sb.append(", :error ").append(string(e.error()));
        }
        return sb.append('}').toString();
    }

    /** An operation as its completion: type, process, invoke and complete times in ms, value, error. */
    public static String op(Op op) {
        StringBuilder sb = new StringBuilder("{:op ").append(op.name()).append(", :type :")
                .append(op.type().wireName()).append(", :process ").append(op.process()).append(", :f :")
                .append(op.f()).append(", :invoked ").append(millis(op.invokeTime())).append(", :completed ")
                .append(op.completeTime() == Long.MAX_VALUE ? "nil" : millis(op.completeTime()))
                .append(", :value ").append(mops(op.value()));
        if (op.error() != null) {
            sb.append(", :error ").append(string(op.error()));
        }
        return sb.append('}').toString();
    }

    private static String millis(long nanos) {
        return String.format(java.util.Locale.ROOT, "%.3f", nanos / 1e6);
    }

    private static String value(Object v) {
        if (v == null) {
            return "nil";
        }
        if (v instanceof List<?> list) {
            StringBuilder sb = new StringBuilder("[");
            for (int i = 0; i < list.size(); i++) {
                sb.append(i == 0 ? "" : " ").append(list.get(i));
            }
            return sb.append(']').toString();
        }
        return v.toString();
    }

    private static String string(String s) {
        String oneLine = s.length() > 300 ? s.substring(0, 300) + "..." : s;
        return '"' + oneLine.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", " ") + '"';
    }
}

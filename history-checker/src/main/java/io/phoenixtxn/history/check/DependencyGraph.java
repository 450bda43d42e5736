package io.phoenixtxn.history.check;

import io.phoenixtxn.history.Op;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Dependency edges between committed operations, each pair carrying the set of edge kinds that link it and, per
 * kind, the first evidence found (printed with a cycle). Nodes are numbered in the order they were added.
 *
 * <p>Invariant: no self-loops (a transaction depending on itself says nothing); only committed operations are
 * nodes, so an unknown outcome never contributes an edge unless its effect was observed.
 */
final class DependencyGraph {
    private final List<Op> ops = new ArrayList<>();
    private final Map<Integer, Integer> nodeOf = new HashMap<>();
    private final List<Map<Integer, Link>> out = new ArrayList<>();

    /** Kinds and evidence of one ordered pair. */
    static final class Link {
        int kinds;
        final Map<EdgeKind, String> why = new EnumMap<>(EdgeKind.class);
    }

    int addNode(Op op) {
        Integer existing = nodeOf.get(op.id());
        if (existing != null) {
            return existing;
        }
        ops.add(op);
        out.add(new LinkedHashMap<>());
        nodeOf.put(op.id(), ops.size() - 1);
        return ops.size() - 1;
    }

    /** The node of an operation added before. */
    int node(Op op) {
        Integer node = nodeOf.get(op.id());
        if (node == null) {
            throw new IllegalStateException(op.name() + " is not a node");
        }
        return node;
    }

    boolean contains(Op op) {
        return nodeOf.containsKey(op.id());
    }

    /** Adds an edge between two nodes (added before); ignores self-loops. */
    void addEdge(Op from, Op to, EdgeKind kind, String why) {
        Integer a = nodeOf.get(from.id());
        Integer b = nodeOf.get(to.id());
        if (a == null || b == null) {
            throw new IllegalStateException("edge between operations that are not nodes: " + from.name() + " -> "
                    + to.name());
        }
        if (a.equals(b)) {
            return;
        }
        Link link = out.get(a).computeIfAbsent(b, k -> new Link());
        link.kinds |= kind.bit();
        link.why.putIfAbsent(kind, why);
    }

    int size() {
        return ops.size();
    }

    Op op(int node) {
        return ops.get(node);
    }

    /** Successors of {@code node} linked by at least one kind in {@code mask}. */
    int[] successors(int node, int mask) {
        Map<Integer, Link> links = out.get(node);
        int[] result = new int[links.size()];
        int n = 0;
        for (Map.Entry<Integer, Link> e : links.entrySet()) {
            if ((e.getValue().kinds & mask) != 0) {
                result[n++] = e.getKey();
            }
        }
        return n == result.length ? result : java.util.Arrays.copyOf(result, n);
    }

    /** The kinds linking {@code from} to {@code to}, as a bit mask (0: none). */
    int kinds(int from, int to) {
        Link link = out.get(from).get(to);
        return link == null ? 0 : link.kinds;
    }

    /** The edge from {@code from} to {@code to} of {@code kind}, with its evidence. */
    Edge edge(int from, int to, EdgeKind kind) {
        Link link = out.get(from).get(to);
        if (link == null || (link.kinds & kind.bit()) == 0) {
            throw new IllegalStateException("no " + kind + " edge " + op(from).name() + " -> " + op(to).name());
        }
        return new Edge(op(from), op(to), kind, link.why.get(kind));
    }

    static int mask(EdgeKind... kinds) {
        int mask = 0;
        for (EdgeKind k : kinds) {
            mask |= k.bit();
        }
        return mask;
    }
}

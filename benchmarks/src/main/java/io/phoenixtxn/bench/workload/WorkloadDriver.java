package io.phoenixtxn.bench.workload;

import io.phoenixtxn.stack.EmbeddedStack;

import java.io.PrintStream;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * Workload driver on the embedded stack (one minicluster, everything measured in one run, so ratios compare like
 * with like). Usage: {@code bin/bench-workload [--ops N] [--warmup N] [--threads 1,4] [--hot N]}.
 * Prints markdown tables for docs/performance.md.
 */
public final class WorkloadDriver {
    private WorkloadDriver() {
    }

    public static void main(String[] args) throws Exception {
        int ops = 2000;
        int warmup = 500;
        int hot = 500;
        int[] threads = {1, 4};
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--ops":
                    ops = Integer.parseInt(args[++i]);
                    break;
                case "--warmup":
                    warmup = Integer.parseInt(args[++i]);
                    break;
                case "--hot":
                    hot = Integer.parseInt(args[++i]);
                    break;
                case "--threads":
                    threads = Arrays.stream(args[++i].split(",")).mapToInt(Integer::parseInt).toArray();
                    break;
                default:
                    throw new IllegalArgumentException("Unknown argument " + args[i]
                            + "; usage: [--ops N] [--warmup N] [--threads 1,4] [--hot N]");
            }
        }
        PrintStream out = System.out;
        int status = 0;
        try (EmbeddedStack stack = EmbeddedStack.start(Map.of())) {
            out.println("## JDBC (Phoenix): transactional vs plain table\n" + Stats.header());
            List<String> jdbc = JdbcWorkload.run(stack, threads, warmup, ops, out);
            out.println("\n## HBase client: transaction vs native operation\n" + Stats.header());
            List<String> client = ClientWorkload.run(stack, threads, warmup, ops, out);
            out.println("\n## Hot workload abort rate\n| workload | commit attempts | aborted | conflicts |"
                    + " reader-invalidated | reader transactions |\n| --- | --- | --- | --- | --- | --- |");
            HotWorkload.run(stack, hot, out);
            out.println("\n(" + jdbc.size() + " JDBC rows, " + client.size() + " client rows)");
        } catch (Exception e) {
            e.printStackTrace();
            status = 1;
        }
        System.exit(status);
    }
}

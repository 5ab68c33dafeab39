package weir.oracle;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.CoreOptions;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.Table;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;

/**
 * Evaluates every expression of a corpus (one constant SQL expression per line, `--` comments) on
 * Flink in streaming mode, on a local MiniCluster at parallelism 1, in a session time zone (UTC
 * unless given), and
 * writes one line per expression: {@code expression TAB type TAB result}, where the type is the
 * expression's resolved type and the result is {@code CAST((expression) AS STRING)} — {@code \N}
 * for NULL, {@code !INVALID} when Flink rejects the expression while planning, {@code !ERROR} when
 * the job fails. Tabs, newlines and backslashes in results are escaped as \t, \n and \\.
 *
 * <p>Expressions are run in chunks (one SELECT with many columns, one job); a chunk whose job
 * fails is split in halves and re-run, down to the failing expressions, so that one failing
 * expression does not hide the others.
 */
public final class ExpressionOracle {
    private static final int CHUNK = 40;

    public static void main(String[] args) throws Exception {
        if (args.length != 2 && args.length != 3) {
            System.err.println("usage: ExpressionOracle CORPUS.sql OUT.tsv [SESSION_TIME_ZONE]");
            System.exit(2);
        }
        String zone = args.length == 3 ? args[2] : "UTC";
        List<String> exprs = new ArrayList<>();
        for (String line : Files.readAllLines(Path.of(args[0]), StandardCharsets.UTF_8)) {
            String t = line.strip();
            if (!t.isEmpty() && !t.startsWith("--")) exprs.add(t);
        }
        Configuration conf = new Configuration();
        conf.set(CoreOptions.DEFAULT_PARALLELISM, 1);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(1);
        StreamTableEnvironment tEnv =
                StreamTableEnvironment.create(env, EnvironmentSettings.inStreamingMode());
        tEnv.getConfig().set("table.local-time-zone", zone);

        String[] types = new String[exprs.size()];
        String[] results = new String[exprs.size()];
        List<Integer> valid = new ArrayList<>();
        for (int i = 0; i < exprs.size(); i++) {
            try {
                Table t = tEnv.sqlQuery("SELECT " + exprs.get(i));
                types[i] = t.getResolvedSchema().getColumnDataTypes().get(0).toString();
                tEnv.sqlQuery("SELECT CAST((" + exprs.get(i) + ") AS STRING)");
                valid.add(i);
            } catch (Exception e) {
                types[i] = "!INVALID";
                results[i] = "!INVALID";
            }
        }
        for (int from = 0; from < valid.size(); from += CHUNK) {
            List<Integer> chunk = valid.subList(from, Math.min(valid.size(), from + CHUNK));
            runBisecting(tEnv, exprs, chunk, results);
            System.err.printf("%d/%d%n", Math.min(valid.size(), from + CHUNK), valid.size());
        }
        StringBuilder out = new StringBuilder();
        out.append("# Flink ").append(flinkVersion()).append(" results of ")
                .append(Path.of(args[0]).getFileName()).append(" in time zone ").append(zone)
                .append(" (scripts/flink-oracle/regenerate.sh); expression TAB type TAB result\n");
        for (int i = 0; i < exprs.size(); i++) {
            out.append(exprs.get(i)).append('\t').append(types[i]).append('\t').append(results[i]).append('\n');
        }
        Files.writeString(Path.of(args[1]), out.toString(), StandardCharsets.UTF_8);
    }

    /** Runs a chunk; when its job fails, each half again, down to the failing expressions. */
    private static void runBisecting(
            StreamTableEnvironment tEnv, List<String> exprs, List<Integer> chunk, String[] results) {
        if (runChunk(tEnv, exprs, chunk, results)) return;
        if (chunk.size() == 1) {
            results[chunk.get(0)] = "!ERROR";
            return;
        }
        int mid = chunk.size() / 2;
        runBisecting(tEnv, exprs, chunk.subList(0, mid), results);
        runBisecting(tEnv, exprs, chunk.subList(mid, chunk.size()), results);
    }

    private static boolean runChunk(
            StreamTableEnvironment tEnv, List<String> exprs, List<Integer> chunk, String[] results) {
        StringBuilder sql = new StringBuilder("SELECT ");
        for (int k = 0; k < chunk.size(); k++) {
            if (k > 0) sql.append(", ");
            sql.append("CAST((").append(exprs.get(chunk.get(k))).append(") AS STRING) AS c").append(k);
        }
        try {
            TableResult r = tEnv.executeSql(sql.toString());
            try (CloseableIterator<Row> it = r.collect()) {
                Row row = it.next();
                for (int k = 0; k < chunk.size(); k++) {
                    Object v = row.getField(k);
                    results[chunk.get(k)] = v == null ? "\\N" : escape(v.toString());
                }
                return true;
            }
        } catch (Exception e) {
            if (System.getenv("ORACLE_DEBUG") != null) e.printStackTrace();
            return false;
        }
    }

    private static String escape(String s) {
        return s.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n");
    }

    private static String flinkVersion() {
        String v = org.apache.flink.runtime.util.EnvironmentInformation.getVersion();
        return v == null ? "?" : v;
    }
}

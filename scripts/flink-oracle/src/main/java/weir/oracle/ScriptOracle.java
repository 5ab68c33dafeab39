package weir.oracle;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.CoreOptions;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.Table;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.catalog.Column;
import org.apache.flink.table.catalog.ResolvedSchema;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;

/**
 * Runs each query script of a directory ({@code NAME.sql}: SET / CREATE TABLE / CREATE VIEW
 * statements, then one SELECT, each ending with {@code ;} at the end of a line) on Flink in
 * streaming mode, on a local MiniCluster at parallelism 1, and writes {@code NAME.expected.tsv}:
 * the query's columns, then its changelog, one change a line: {@code op TAB value TAB ...}, each
 * value {@code CAST(column AS STRING)} ({@code \N} for NULL; tabs, newlines and backslashes
 * escaped). {@code 'connector' = 'filesystem'} is run as {@code oracle-file} (see
 * {@link OracleFileFactory}), with paths relative to the directory. A script Flink refuses while
 * planning gives {@code !INVALID message}, one whose job fails {@code !ERROR message}.
 */
public final class ScriptOracle {
    private static final Pattern PATH = Pattern.compile("'path'\\s*=\\s*'([^']*)'");

    public static void main(String[] args) throws Exception {
        if (args.length < 1) {
            System.err.println("usage: ScriptOracle DIR [NAME...]");
            System.exit(2);
        }
        Path dir = Path.of(args[0]).toAbsolutePath();
        List<Path> scripts = new ArrayList<>();
        if (args.length > 1) {
            for (int i = 1; i < args.length; i++) scripts.add(dir.resolve(args[i] + ".sql"));
        } else {
            try (Stream<Path> s = Files.list(dir)) {
                s.filter(p -> p.getFileName().toString().endsWith(".sql")).sorted().forEach(scripts::add);
            }
        }
        for (Path script : scripts) {
            String name = script.getFileName().toString().replaceFirst("\\.sql$", "");
            String out = run(dir, Files.readString(script, StandardCharsets.UTF_8));
            Files.writeString(dir.resolve(name + ".expected.tsv"),
                    "# Flink " + flinkVersion() + " changelog of " + name
                            + ".sql (scripts/flink-oracle/regenerate.sh)\n" + out,
                    StandardCharsets.UTF_8);
            System.err.println("wrote " + name + ".expected.tsv");
        }
    }

    static List<String> statements(String script) {
        List<String> out = new ArrayList<>();
        StringBuilder cur = new StringBuilder();
        for (String line : script.split("\n", -1)) {
            String t = line.strip();
            if (t.startsWith("--")) continue;
            cur.append(line).append('\n');
            if (t.endsWith(";")) {
                String s = cur.toString().strip();
                out.add(s.substring(0, s.length() - 1));
                cur.setLength(0);
            }
        }
        if (!cur.toString().isBlank()) out.add(cur.toString().strip());
        return out;
    }

    static String run(Path dir, String script) {
        Configuration conf = new Configuration();
        conf.set(CoreOptions.DEFAULT_PARALLELISM, 1);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(1);
        StreamTableEnvironment tEnv = StreamTableEnvironment.create(env, EnvironmentSettings.inStreamingMode());
        tEnv.getConfig().set("table.local-time-zone", "UTC");
        List<String> stmts = statements(script);
        String query = stmts.get(stmts.size() - 1);
        StringBuilder sql = new StringBuilder();
        ResolvedSchema schema;
        try {
            for (String s : stmts.subList(0, stmts.size() - 1)) tEnv.executeSql(flinkDdl(dir, s));
            Table t = tEnv.sqlQuery(query);
            // Planned as written first: wrapped in a subquery, an ORDER BY without LIMIT would be
            // dropped instead of refused.
            t.explain();
            schema = t.getResolvedSchema();
            sql.append("SELECT ");
            List<Column> cols = schema.getColumns();
            for (int i = 0; i < cols.size(); i++) {
                if (i > 0) sql.append(", ");
                sql.append("CAST(`").append(cols.get(i).getName().replace("`", "``")).append("` AS STRING)");
            }
            sql.append(" FROM (").append(query).append(")");
            tEnv.sqlQuery(sql.toString()).explain();
        } catch (Exception e) {
            return "!INVALID " + message(e) + "\n";
        }
        StringBuilder out = new StringBuilder("# columns:");
        for (Column c : schema.getColumns())
            out.append(' ').append(c.getName()).append(' ').append(c.getDataType()).append(';');
        out.append('\n');
        try {
            TableResult r = tEnv.executeSql(sql.toString());
            try (CloseableIterator<Row> it = r.collect()) {
                while (it.hasNext()) {
                    Row row = it.next();
                    out.append(row.getKind().shortString());
                    for (int k = 0; k < row.getArity(); k++) {
                        Object v = row.getField(k);
                        out.append('\t').append(v == null ? "\\N" : escape(v.toString()));
                    }
                    out.append('\n');
                }
            }
        } catch (Exception e) {
            if (System.getenv("ORACLE_DEBUG") != null) e.printStackTrace();
            return "!ERROR " + message(e) + "\n";
        }
        return out.toString();
    }

    /** The script's DDL as Flink runs it: the filesystem connector as oracle-file, absolute paths. */
    static String flinkDdl(Path dir, String stmt) {
        String s = stmt.replaceAll("'connector'\\s*=\\s*'filesystem'", "'connector' = 'oracle-file'");
        Matcher m = PATH.matcher(s);
        StringBuilder b = new StringBuilder();
        while (m.find()) m.appendReplacement(b, Matcher.quoteReplacement("'path' = '" + dir.resolve(m.group(1)) + "'"));
        m.appendTail(b);
        return b.toString();
    }

    /** The innermost cause's message, on one line. */
    static String message(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null && t.getCause() != t) t = t.getCause();
        String m = t.getMessage() == null ? t.getClass().getName() : t.getMessage();
        if (e.getMessage() != null && t != e && (e instanceof org.apache.flink.table.api.ValidationException
                || e instanceof org.apache.flink.table.api.TableException))
            m = e.getMessage();
        return escape(m.strip());
    }

    private static String escape(String s) {
        return s.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n");
    }

    private static String flinkVersion() {
        String v = org.apache.flink.runtime.util.EnvironmentInformation.getVersion();
        return v == null ? "?" : v;
    }
}

package weir.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.table.connector.source.DynamicTableSource;
import org.apache.flink.table.connector.source.LookupTableSource;
import org.apache.flink.table.connector.source.lookup.LookupFunctionProvider;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.factories.DynamicTableSourceFactory;
import org.apache.flink.table.factories.FactoryUtil;
import org.apache.flink.table.functions.FunctionContext;
import org.apache.flink.table.functions.LookupFunction;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;

/**
 * {@code 'connector' = 'weir-side-input', 'path' = '...'}: a bounded side input for a lookup join
 * (Nexmark q13), read once from a CSV file (comma-separated, no quoting; BIGINT, INT and
 * VARCHAR/STRING columns) into a hash map on the lookup key when the join opens. Flink 2.3's
 * {@code filesystem} connector is a scan source only (it cannot be the build side of
 * {@code FOR SYSTEM_TIME AS OF}); Weir's lookup join from a {@code filesystem} table holds the file
 * in memory the same way.
 */
public final class SideInputFileFactory implements DynamicTableSourceFactory {
    static final ConfigOption<String> PATH = ConfigOptions.key("path").stringType().noDefaultValue();

    @Override
    public String factoryIdentifier() {
        return "weir-side-input";
    }

    @Override
    public Set<ConfigOption<?>> requiredOptions() {
        return Set.of(PATH);
    }

    @Override
    public Set<ConfigOption<?>> optionalOptions() {
        return Set.of();
    }

    @Override
    public DynamicTableSource createDynamicTableSource(Context context) {
        FactoryUtil.TableFactoryHelper helper = FactoryUtil.createTableFactoryHelper(this, context);
        helper.validate();
        RowType type = (RowType) context.getCatalogTable().getResolvedSchema()
                .toPhysicalRowDataType().getLogicalType();
        return new Source(helper.getOptions().get(PATH), type);
    }

    public static final class Source implements LookupTableSource {
        private final String path;
        private final RowType type;

        Source(String path, RowType type) {
            this.path = path;
            this.type = type;
        }

        @Override
        public LookupRuntimeProvider getLookupRuntimeProvider(LookupContext context) {
            int[][] keys = context.getKeys();
            int[] key = new int[keys.length];
            for (int i = 0; i < keys.length; i++) {
                if (keys[i].length != 1) throw new IllegalArgumentException("weir-side-input: nested lookup keys");
                key[i] = keys[i][0];
            }
            return LookupFunctionProvider.of(new Lookup(path, type, key));
        }

        @Override
        public DynamicTableSource copy() {
            return new Source(path, type);
        }

        @Override
        public String asSummaryString() {
            return "weir-side-input(" + path + ")";
        }
    }

    public static final class Lookup extends LookupFunction {
        private final String path;
        private final RowType type;
        private final int[] key;
        private transient Map<List<Object>, List<RowData>> index;
        private transient RowData.FieldGetter[] getters;

        public Lookup(String path, RowType type, int[] key) {
            this.path = path;
            this.type = type;
            this.key = key;
        }

        @Override
        public void open(FunctionContext context) {
            index = new HashMap<>();
            getters = new RowData.FieldGetter[key.length];
            for (int i = 0; i < key.length; i++) getters[i] = RowData.createFieldGetter(type.getTypeAt(key[i]), i);
            List<String> lines;
            try {
                lines = Files.readAllLines(Path.of(path), StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new UncheckedIOException("weir-side-input: cannot read " + path, e);
            }
            int n = type.getFieldCount();
            int lineNo = 0;
            for (String line : lines) {
                lineNo++;
                if (line.isEmpty()) continue;
                String[] cells = line.split(",", -1);
                if (cells.length != n) {
                    throw new IllegalArgumentException(
                            path + ":" + lineNo + ": " + cells.length + " fields, the table has " + n);
                }
                GenericRowData row = new GenericRowData(n);
                for (int i = 0; i < n; i++) row.setField(i, parse(type.getTypeAt(i), cells[i], lineNo));
                List<Object> k = new ArrayList<>(key.length);
                for (int i : key) k.add(row.getField(i));
                index.computeIfAbsent(k, x -> new ArrayList<>()).add(row);
            }
        }

        private Object parse(LogicalType t, String cell, int lineNo) {
            if (cell.isEmpty()) return null;
            switch (t.getTypeRoot()) {
                case BIGINT:
                    return Long.parseLong(cell);
                case INTEGER:
                    return Integer.parseInt(cell);
                case VARCHAR:
                case CHAR:
                    return StringData.fromString(cell);
                default:
                    throw new IllegalArgumentException(
                            path + ":" + lineNo + ": weir-side-input reads BIGINT, INT and VARCHAR columns, not " + t);
            }
        }

        @Override
        public Collection<RowData> lookup(RowData keyRow) {
            List<Object> k = new ArrayList<>(key.length);
            for (RowData.FieldGetter g : getters) k.add(g.getFieldOrNull(keyRow));
            List<RowData> rows = index.get(k);
            return rows == null ? List.of() : rows;
        }
    }
}

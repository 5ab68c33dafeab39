package weir.oracle;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import org.apache.flink.api.common.eventtime.TimestampAssigner;
import org.apache.flink.api.common.eventtime.TimestampAssignerSupplier;
import org.apache.flink.api.common.eventtime.WatermarkGenerator;
import org.apache.flink.api.common.eventtime.WatermarkGeneratorSupplier;
import org.apache.flink.api.common.eventtime.WatermarkOutput;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RichFlatMapFunction;
import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.api.common.serialization.RuntimeContextInitializationContextAdapters;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.connector.ProviderContext;
import org.apache.flink.table.connector.format.DecodingFormat;
import org.apache.flink.table.connector.source.DataStreamScanProvider;
import org.apache.flink.table.connector.source.DynamicTableSource;
import org.apache.flink.table.connector.source.ScanTableSource;
import org.apache.flink.table.connector.source.abilities.SupportsWatermarkPushDown;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.factories.DeserializationFormatFactory;
import org.apache.flink.table.factories.DynamicTableSourceFactory;
import org.apache.flink.table.factories.FactoryUtil;
import org.apache.flink.table.types.DataType;
import org.apache.flink.util.Collector;

/**
 * {@code 'connector' = 'oracle-file'}: Flink's filesystem source for the oracle's query scripts,
 * with Weir's watermark emission. The file's lines are decoded by the table's format (json,
 * debezium-json, csv: any of Flink's), in file order, at parallelism 1, and the table's watermark
 * is emitted after every row that advances it (Weir's default 'scan.watermark.emit.strategy' =
 * 'on-event'), so that rows behind the watermark are late in both engines; Flink's filesystem
 * connector emits watermarks periodically, which for a small file means only at the end.
 */
public final class OracleFileFactory implements DynamicTableSourceFactory {
    static final ConfigOption<String> PATH = ConfigOptions.key("path").stringType().noDefaultValue();

    @Override
    public String factoryIdentifier() {
        return "oracle-file";
    }

    @Override
    public Set<ConfigOption<?>> requiredOptions() {
        Set<ConfigOption<?>> s = new HashSet<>();
        s.add(PATH);
        s.add(FactoryUtil.FORMAT);
        return s;
    }

    @Override
    public Set<ConfigOption<?>> optionalOptions() {
        return new HashSet<>();
    }

    @Override
    public DynamicTableSource createDynamicTableSource(Context context) {
        FactoryUtil.TableFactoryHelper helper = FactoryUtil.createTableFactoryHelper(this, context);
        DecodingFormat<DeserializationSchema<RowData>> format =
                helper.discoverDecodingFormat(DeserializationFormatFactory.class, FactoryUtil.FORMAT);
        helper.validate();
        return new Source(
                helper.getOptions().get(PATH),
                format,
                context.getCatalogTable().getResolvedSchema().toPhysicalRowDataType());
    }

    static final class Source implements ScanTableSource, SupportsWatermarkPushDown {
        private final String path;
        private final DecodingFormat<DeserializationSchema<RowData>> format;
        private final DataType physical;
        private WatermarkStrategy<RowData> watermarks;

        Source(String path, DecodingFormat<DeserializationSchema<RowData>> format, DataType physical) {
            this.path = path;
            this.format = format;
            this.physical = physical;
        }

        @Override
        public ChangelogMode getChangelogMode() {
            return format.getChangelogMode();
        }

        @Override
        public void applyWatermark(WatermarkStrategy<RowData> strategy) {
            this.watermarks = strategy;
        }

        @Override
        public ScanRuntimeProvider getScanRuntimeProvider(ScanContext ctx) {
            DeserializationSchema<RowData> decoder = format.createRuntimeDecoder(ctx, physical);
            TypeInformation<RowData> type = ctx.createTypeInformation(physical);
            List<String> lines = new ArrayList<>();
            try {
                for (String l : Files.readAllLines(Path.of(path), StandardCharsets.UTF_8))
                    if (!l.isBlank()) lines.add(l);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            WatermarkStrategy<RowData> wm = watermarks;
            return new DataStreamScanProvider() {
                @Override
                public DataStream<RowData> produceDataStream(
                        ProviderContext providerContext, StreamExecutionEnvironment env) {
                    DataStream<RowData> rows =
                            env.fromData(lines, Types.STRING)
                                    .setParallelism(1)
                                    .flatMap(new Decode(decoder), type)
                                    .setParallelism(1);
                    if (wm != null) rows = rows.assignTimestampsAndWatermarks(new OnEvent(wm)).setParallelism(1);
                    return rows;
                }

                @Override
                public boolean isBounded() {
                    return true;
                }
            };
        }

        @Override
        public DynamicTableSource copy() {
            Source s = new Source(path, format, physical);
            s.watermarks = watermarks;
            return s;
        }

        @Override
        public String asSummaryString() {
            return "oracle-file";
        }
    }

    static final class Decode extends RichFlatMapFunction<String, RowData> {
        private final DeserializationSchema<RowData> decoder;

        Decode(DeserializationSchema<RowData> decoder) {
            this.decoder = decoder;
        }

        @Override
        public void open(OpenContext openContext) throws Exception {
            decoder.open(RuntimeContextInitializationContextAdapters.deserializationAdapter(getRuntimeContext()));
        }

        @Override
        public void flatMap(String line, Collector<RowData> out) throws Exception {
            decoder.deserialize(line.getBytes(StandardCharsets.UTF_8), out);
        }
    }

    /** The table's watermark strategy, emitting after every event (not periodically). */
    static final class OnEvent implements WatermarkStrategy<RowData> {
        private final WatermarkStrategy<RowData> inner;

        OnEvent(WatermarkStrategy<RowData> inner) {
            this.inner = inner;
        }

        @Override
        public WatermarkGenerator<RowData> createWatermarkGenerator(WatermarkGeneratorSupplier.Context context) {
            WatermarkGenerator<RowData> g = inner.createWatermarkGenerator(context);
            return new WatermarkGenerator<>() {
                @Override
                public void onEvent(RowData event, long ts, WatermarkOutput output) {
                    g.onEvent(event, ts, output);
                    g.onPeriodicEmit(output);
                }

                @Override
                public void onPeriodicEmit(WatermarkOutput output) {
                    g.onPeriodicEmit(output);
                }
            };
        }

        @Override
        public TimestampAssigner<RowData> createTimestampAssigner(TimestampAssignerSupplier.Context context) {
            return inner.createTimestampAssigner(context);
        }
    }
}

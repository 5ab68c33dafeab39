import { createRequire } from "node:module";
import type kafkajsTypes from "kafkajs";
import { installRecordBatchDecoder } from "./record-batch.js";
import { installRequestQueueFix } from "./request-queue.js";

/** kafkajs, loaded when the first client is built (a job without Kafka tables never loads it). */
let kafkajsModule: typeof kafkajsTypes | undefined;
function kafkajs(): typeof kafkajsTypes {
  if (kafkajsModule === undefined) {
    const require = createRequire(import.meta.url);
    // Before the first fetch: the record batches are read without a JS object chain per record.
    installRecordBatchDecoder(require);
    // Without kafkajs 2.2.4's 1 ms timer loop on every connection (request-queue.ts).
    installRequestQueueFix(require);
    kafkajsModule = require("kafkajs") as typeof kafkajsTypes;
  }
  return kafkajsModule;
}

/**
 * The part of kafkajs the Kafka connectors use, as shapes (STYLE.md: depend on shapes, not
 * clients): unit tests can pass a fake, integration tests the real client through
 * {@link connectKafkajs}. Offsets cross this boundary as decimal strings, as kafkajs gives them.
 */
export interface KafkaClient {
  admin(): KafkaAdmin;
  consumer(config: KafkaConsumerConfig): KafkaConsumer;
  /** A producer whose keyed messages are partitioned by the Java client's murmur2 partitioner. */
  producer(config: KafkaProducerConfig): KafkaProducer;
}

export interface KafkaConnectionConfig {
  readonly brokers: readonly string[];
  readonly clientId: string;
  readonly ssl: boolean;
}

export type KafkaConnect = (config: KafkaConnectionConfig) => KafkaClient;

export interface KafkaPartitionOffset {
  readonly partition: number;
  readonly offset: string;
}

export interface KafkaAdmin {
  connect(): Promise<void>;
  disconnect(): Promise<void>;
  listTopics(): Promise<string[]>;
  fetchTopicMetadata(options: { topics: string[] }): Promise<{
    topics: { name: string; partitions: { partitionId: number }[] }[];
  }>;
  /** Per partition: `low` (log start) and `high` (next offset to be written). */
  fetchTopicOffsets(topic: string): Promise<(KafkaPartitionOffset & { high: string; low: string })[]>;
  /** Per partition: the first offset whose timestamp is ≥ `timestamp`, or `high` when none is. */
  fetchTopicOffsetsByTimestamp(topic: string, timestamp?: number): Promise<KafkaPartitionOffset[]>;
  /** A group's committed offsets (`-1` for a partition without one). */
  fetchOffsets(options: {
    groupId: string;
    topics: string[];
  }): Promise<{ topic: string; partitions: KafkaPartitionOffset[] }[]>;
  setOffsets(options: { groupId: string; topic: string; partitions: KafkaPartitionOffset[] }): Promise<void>;
}

export interface KafkaConsumerConfig {
  groupId: string;
  readUncommitted?: boolean;
  maxWaitTimeInMs?: number;
  allowAutoTopicCreation?: boolean;
  /** How old kafkajs lets its metadata get: new partitions are noticed when it refreshes. */
  metadataMaxAge?: number;
}

/** One record of a fetched batch. `batchContext` is untyped kafkajs internals, read defensively. */
export interface KafkaMessage {
  readonly key: Buffer | null;
  readonly value: Buffer | null;
  readonly timestamp: string;
  readonly offset: string;
  readonly headers?: Readonly<Record<string, Buffer | string | (Buffer | string)[] | undefined>>;
  readonly batchContext?: { readonly partitionLeaderEpoch?: number; readonly timestampType?: number };
}

/**
 * Records of a fetched record batch that built no record objects (Weir's decoder, record-batch.ts):
 * per record `i`, its offset, its timestamp (both exact integers) and where its value lies in
 * `buffer` (length -1: null); `message(i)` builds the record as `messages` holds it.
 */
export interface KafkaRecordView {
  readonly buffer: Buffer;
  offsetAt(i: number): number;
  timestampAt(i: number): number;
  valueStart(i: number): number;
  valueLength(i: number): number;
  message(i: number): KafkaMessage;
}

/** Records `records[from..to)` of a {@link KafkaRecordView}. */
export interface KafkaRecordRun {
  readonly records: KafkaRecordView;
  readonly from: number;
  readonly to: number;
}

export interface KafkaBatch {
  readonly topic: string;
  readonly partition: number;
  readonly messages: KafkaMessage[];
  /** `messages` as runs of lazily decoded records, where Weir's decoder kept them so. */
  readonly weirRuns?: readonly KafkaRecordRun[];
  /** The last offset the fetch covered, aborted records and transaction markers included. */
  lastOffset(): string;
}

export interface KafkaTopicPartitions {
  topic: string;
  partitions?: number[];
}

/** A kafkajs instrumentation event: `payload` is the event's data. */
export interface KafkaEvent<T> {
  readonly payload: T;
}

export interface KafkaConsumer {
  connect(): Promise<void>;
  disconnect(): Promise<void>;
  subscribe(subscription: { topics: string[]; fromBeginning?: boolean }): Promise<void>;
  run(config: {
    autoCommit?: boolean;
    eachBatchAutoResolve?: boolean;
    partitionsConsumedConcurrently?: number;
    eachBatch: (payload: { batch: KafkaBatch }) => Promise<void>;
  }): Promise<void>;
  seek(topicPartitionOffset: { topic: string; partition: number; offset: string }): void;
  pause(topics: KafkaTopicPartitions[]): void;
  resume(topics: KafkaTopicPartitions[]): void;
  readonly events: {
    readonly GROUP_JOIN: string;
    readonly CRASH: string;
    readonly END_BATCH_PROCESS: string;
  };
  // biome-ignore lint/suspicious/noExplicitAny: kafkajs types each event's listener separately
  on(event: string, listener: (event: KafkaEvent<any>) => void): () => void;
}

/** Payload of `END_BATCH_PROCESS`; a batch whose records were all filtered has `batchSize` 0. */
export interface KafkaBatchEndPayload {
  readonly topic: string;
  readonly partition: number;
  readonly batchSize: number;
  readonly lastOffset: string;
}

/** Payload of `GROUP_JOIN`: the partitions assigned to this member, per topic. */
export interface KafkaGroupJoinPayload {
  readonly memberAssignment: Readonly<Record<string, readonly number[]>>;
}

export interface KafkaCrashPayload {
  readonly error: Error;
  readonly restart: boolean;
}

export interface KafkaProducerConfig {
  idempotent: boolean;
  maxInFlightRequests: number;
  allowAutoTopicCreation?: boolean;
  /** A transactional producer: initialising it fences (aborts) an older one of the same id. */
  transactionalId?: string;
  /** ms; the broker aborts a transaction left open this long. */
  transactionTimeout?: number;
}

/** An open transaction of a transactional producer. */
export interface KafkaTransaction {
  send(record: { topic: string; acks: number; messages: KafkaOutgoingMessage[] }): Promise<unknown>;
  /** Commits consumer-group offsets as part of the transaction (visible only if it commits). */
  sendOffsets(offsets: {
    consumerGroupId: string;
    topics: { topic: string; partitions: { partition: number; offset: string }[] }[];
  }): Promise<void>;
  commit(): Promise<void>;
  abort(): Promise<void>;
}

export interface KafkaOutgoingMessage {
  key: Buffer | string | null;
  value: Buffer | string | null;
  partition?: number;
  /** Record timestamp, epoch millis as a decimal string (CreateTime). */
  timestamp?: string;
  headers?: Record<string, Buffer>;
}

export interface KafkaProducer {
  connect(): Promise<void>;
  disconnect(): Promise<void>;
  send(record: { topic: string; acks: number; messages: KafkaOutgoingMessage[] }): Promise<unknown>;
  /** Begins a transaction (transactional producers only). */
  transaction(): Promise<KafkaTransaction>;
}

/** A {@link KafkaConnect} over the real kafkajs client (its own logging off: errors surface as exceptions). */
export const connectKafkajs: KafkaConnect = (config) => {
  const { Kafka, logLevel, Partitioners } = kafkajs();
  const kafka = new Kafka({
    brokers: [...config.brokers],
    clientId: config.clientId,
    ssl: config.ssl,
    logLevel: logLevel.NOTHING,
  });
  return {
    admin: () => kafka.admin(),
    consumer: (c) => kafka.consumer(c) as unknown as KafkaConsumer,
    producer: (c) => kafka.producer({ ...c, createPartitioner: Partitioners.DefaultPartitioner }),
  };
};

// Exits 0 once the broker at argv[2] answers a metadata round trip through kafkajs (the client the
// test suite uses): the cluster lists at least one broker and a controller, and topics can be listed.
// Exits 1 on any failure, with the reason on stderr; never prints to stdout.
// kafkajs is a dependency of packages/connectors, so it is resolved from there.
import { createRequire } from "node:module";

const address = process.argv[2];
if (!address) {
  console.error("usage: node ready.mjs HOST:PORT");
  process.exit(2);
}

const require = createRequire(new URL("../../packages/connectors/package.json", import.meta.url));
let kafkajs;
try {
  kafkajs = require("kafkajs");
} catch (err) {
  console.error(`kafkajs is not installed (run \`pnpm install\` first): ${err.message}`);
  process.exit(1);
}

const kafka = new kafkajs.Kafka({
  clientId: "weir-kafka-ready",
  brokers: [address],
  connectionTimeout: 2000,
  requestTimeout: 5000,
  retry: { retries: 0 },
  logLevel: kafkajs.logLevel.NOTHING,
});
const admin = kafka.admin();
try {
  await admin.connect();
  const cluster = await admin.describeCluster();
  if (cluster.brokers.length === 0 || cluster.controller === null || cluster.controller < 0) {
    throw new Error(`cluster not ready: ${JSON.stringify(cluster)}`);
  }
  await admin.listTopics();
  await admin.disconnect();
  process.exit(0);
} catch (err) {
  console.error(`broker ${address} not ready: ${err.message}`);
  await admin.disconnect().catch(() => {});
  process.exit(1);
}

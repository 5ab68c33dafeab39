export * from "./api.js";
export * from "./backends.js";
export * from "./codec.js";
export * from "./keys.js";
export * from "./memory.js";
export * from "./time-buckets.js";
export * from "./timers.js";
export * from "./ttl.js";

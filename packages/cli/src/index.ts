export type { CommandLine } from "./args.js";
export { parseCommandLine, UsageError } from "./args.js";
export type { EngineOptions, ScriptOptions } from "./engine/engine.js";
export { Engine, EXIT_INTERRUPTED, EXIT_INVALID, EXIT_OK, EXIT_RUNTIME } from "./engine/engine.js";
export type { Output } from "./output.js";
export { processOutput } from "./output.js";
export * from "./repl/index.js";
export { USAGE, weir } from "./weir.js";

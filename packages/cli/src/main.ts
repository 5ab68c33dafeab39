#!/usr/bin/env node
import { EXIT_INTERRUPTED } from "./engine/exit-codes.js";
import { processOutput } from "./output.js";
import { weir } from "./weir.js";

const code = await weir(process.argv.slice(2), processOutput);
// After Ctrl-C, exit now: an embedded Postgres still starting would keep the process alive.
if (code === EXIT_INTERRUPTED) process.exit(code);
process.exitCode = code;

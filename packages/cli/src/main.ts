#!/usr/bin/env node
import { processOutput } from "./output.js";
import { weir } from "./weir.js";

process.exitCode = await weir(process.argv.slice(2), processOutput);

export type { CompileOptions } from "./compile.js";
export { planErrorDiagnostic, StatementCompiler } from "./compile.js";
export type { Listing } from "./listing.js";
export { DESCRIBE_HEADER, describeListing, namesListing, settingsListing, showHeader } from "./listing.js";
export type {
  CompiledEffect,
  CompiledJob,
  CompiledJobControl,
  CompiledListing,
  CompiledQuery,
  CompiledStatement,
  CompileFailure,
  Planned,
} from "./results.js";
export type { CompiledScript, ScriptCompileOptions } from "./script.js";
export { compileScript, ScriptCompiler } from "./script.js";
export type { PlannableStatement } from "./targets.js";
export { insertTarget, insertTargets, planTargets, statementTargets } from "./targets.js";

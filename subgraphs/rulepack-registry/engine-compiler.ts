// The engine's compile step (platform/rule-engine), used only for what it refuses: a pack the
// registry stores is one the validation service can run.
// TEMPORARY until wt/engine lands its API: accepts everything.
import type { PackCompiler } from './pack-validation';

export const compileWithEngine: PackCompiler = () => undefined;

// The engine's compile step (platform/rule-engine), used only for what it refuses: a pack the
// registry stores is one the validation service can compile and run (with the engine's default
// limits). Its RulePackError carries issues with paths from the pack's root.
import { compileRulePack } from '../../platform/rule-engine';
import type { PackCompiler } from './pack-validation';

export const compileWithEngine: PackCompiler = (pack) => compileRulePack(pack);

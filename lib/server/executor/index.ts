/**
 * The executor: the only module that spawns processes (STYLE.md rule 2; DESIGN.md "Subprocess skills
 * (seed 000)"). See each file for the rule it implements.
 */
export { launchProcess, startProcess } from "./start-process";
export { LauncherPool, ProcessLauncher } from "./process-launcher";
export type { ChildLauncher, LaunchRequest, ProcessEnd, ProcessHooks, ProcessOutcome, ProcessSpec, RunningProcess, SpawnedChild } from "./process-types";
export { readProcessIdentity, readBootId, type ProcessIdentity } from "./process-identity";
export { killOrphanGroup, type OrphanGroupResult } from "./orphan-group";
export { isGroupAlive, terminateGroup, type GroupTermination } from "./process-group";
export { interpretSubprocessOutcome, type SubprocessVerdict } from "./subprocess-outcome";
export { LineSplitter, DEFAULT_MAX_LINE_LENGTH } from "./line-splitter";
export { DEFAULT_STDERR_LINE_LIMIT, type StderrTruncation } from "./stderr-lines";
export { interpretScriptOutcome } from "./script-outcome";
export { chooseInterpreter, findOnPath, parseShebang, type ScriptInterpreter } from "./script-interpreter";

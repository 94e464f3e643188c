import { readFileSync } from 'node:fs'
import { mkdir, mkdtemp, readFile, realpath, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createFileStateTracker } from '../../../source/tools/file-state.js'
import { createOutputSpiller } from '../../../source/tools/spill.js'
import {
  type RuntimeSettingsApi,
  type Tool,
  type ToolContext,
  ToolError,
  type ToolSuccess,
} from '../../../source/tools/types.js'
import type { QuestionAsker } from '../../../source/permissions/question-types.js'
import type { BashSandbox } from '../../../source/sandbox/bash-sandbox.js'
import type { Mode } from '../../../source/store/domain.js'
import type { TaskManagerApi } from '../../../source/tasks/types.js'

export interface TestEnv {
  /** Temp root holding the workspace and the outputs dir. */
  root: string
  workspace: string
  ctx: ToolContext
  controller: AbortController
  progress: string[]
  cleanup(): Promise<void>
}

/** A real ToolContext on a fresh temp workspace (real paths, so comparisons need no realpath). */
export async function createTestEnv(
  opts: {
    supportsVision?: boolean
    tasks?: TaskManagerApi
    mode?: Mode
    questions?: QuestionAsker
    settings?: RuntimeSettingsApi
    switchMode?: (mode: Mode) => void
    /** The session's Bash sandbox, made for this env's workspace and outputs dir. */
    sandbox?: (dirs: { workspace: string; outputs: string }) => BashSandbox
  } = {},
): Promise<TestEnv> {
  const root = await realpath(await mkdtemp(join(tmpdir(), 'agent-tui-tools-')))
  const workspace = join(root, 'ws')
  await mkdir(workspace)
  const controller = new AbortController()
  const progress: string[] = []
  let cwd = workspace
  const ctx: ToolContext = {
    workspace,
    cwd: () => cwd,
    setCwd: (dir) => {
      cwd = dir
    },
    signal: controller.signal,
    sessionId: 'test-session',
    callId: 'call-1',
    mode: () => opts.mode ?? 'safe',
    files: createFileStateTracker(),
    spill: createOutputSpiller(join(root, 'outputs')),
    onProgress: (text) => progress.push(text),
    supportsVision: opts.supportsVision ?? false,
    ...(opts.tasks ? { tasks: opts.tasks } : {}),
    ...(opts.questions ? { questions: opts.questions } : {}),
    ...(opts.settings ? { settings: opts.settings } : {}),
    ...(opts.switchMode ? { switchMode: withoutResult(opts.switchMode) } : {}),
    ...(opts.sandbox ? { sandbox: opts.sandbox({ workspace, outputs: join(root, 'outputs') }) } : {}),
  }
  return {
    root,
    workspace,
    ctx,
    controller,
    progress,
    cleanup: () => rm(root, { recursive: true, force: true }),
  }
}

/** Validates `args` with the tool's schema (as the executor does), then executes. */
export async function run<A>(tool: Tool<A>, args: unknown, ctx: ToolContext): Promise<ToolSuccess> {
  return tool.execute(tool.schema.parse(args), ctx)
}

/** Runs the tool and returns the ToolError it throws; fails the test if it succeeds or throws anything else. */
export async function runError<A>(tool: Tool<A>, args: unknown, ctx: ToolContext): Promise<ToolError> {
  try {
    const result = await run(tool, args, ctx)
    throw new Error(`expected a ToolError, got success: ${result.forModel.slice(0, 300)}`)
  } catch (error) {
    if (error instanceof ToolError) return error
    throw error
  }
}

/** True while the process exists and is not a zombie (a dead child nobody reaped yet counts as gone). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
  } catch {
    return false
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z'
  } catch {
    return false
  }
}

/** Polls `condition` until it holds; fails with `what` after `timeoutMs`. */
export async function waitFor(
  condition: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs = 10_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for: ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

/** Reads a file's text, or undefined when it does not exist. */
export async function readIfExists(path: string): Promise<string | undefined> {
  return readFile(path, 'utf8').catch(() => undefined)
}

/** A recording `switchMode` that reports nothing back, like a host without a mode policy. */
function withoutResult(switchMode: (mode: Mode) => void): (mode: Mode) => undefined {
  return (mode) => {
    switchMode(mode)
    return undefined
  }
}

/**
 * `!command` at the prompt is the user's own shell: it runs outside the Bash sandbox that fences the
 * model's commands (that is how the user runs what the sandbox blocked).
 */
import { existsSync } from 'node:fs'
import { mkdir, mkdtemp, realpath, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { DEFAULT_BREAKER } from '../../../../source/agent/turn/circuit-breaker.js'
import { Runtime } from '../../../../source/agent/runtime/runtime.js'
import { createOpenAIProvider } from '../../../../source/provider/client.js'
import { createBashSandbox } from '../../../../source/sandbox/bash-sandbox.js'
import { createStore } from '../../../../source/store/create-store.js'
import { initialState } from '../../../../source/store/state.js'
import { createBashTool } from '../../../../source/tools/bash.js'
import { createFileStateTracker } from '../../../../source/tools/file-state.js'
import { createOutputSpiller } from '../../../../source/tools/spill.js'
import { osSandbox } from '../../../support/os-sandbox.ts'
import { allowAllGate } from '../turn/loop-harness.js'

let root: string
let workspace: string
beforeEach(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), 'agent-tui-runtime-sandbox-')))
  workspace = join(root, 'ws')
  await mkdir(workspace)
})
afterEach(() => rm(root, { recursive: true, force: true }))

describe.runIf(osSandbox?.kind === 'bwrap')('the user’s ! command with the sandbox on', () => {
  it('runs outside the sandbox, while the model’s Bash runs inside', async () => {
    const outputs = join(root, 'outputs')
    const sandbox = createBashSandbox({ network: false, projectRoots: [workspace], scratchRoots: [outputs] })
    const store = createStore(
      initialState({ id: 's', cwd: workspace, model: 'm', baseUrl: 'x', title: '', startedAt: 0 }, 'auto'),
    )
    const bash = createBashTool({ isReadOnlyCommand: () => false })
    const runtime = new Runtime({
      store,
      // Never called: no turn runs here.
      provider: createOpenAIProvider({ baseUrl: 'http://127.0.0.1:9/v1' }),
      tools: [bash],
      gate: {
        ...allowAllGate,
        resolve: () => undefined,
        cancelAll: () => undefined,
        describeRules: () => ({ allow: [], ask: [], deny: [], savedTo: 'settings.local.json' }),
      },
      workspace,
      sessionId: 's',
      files: createFileStateTracker(),
      spill: createOutputSpiller(outputs),
      systemPrompt: 'system',
      capabilities: () => ({ supportsVision: false, supportsAllowedTools: false }),
      maxSteps: 10,
      breaker: DEFAULT_BREAKER,
      interactive: true,
      sandbox,
    })
    await runtime.runShell('touch ../by-the-user.txt')
    expect(existsSync(join(root, 'by-the-user.txt'))).toBe(true)
    const shown = Object.values(store.getState().transcript.items).at(-1)
    expect(shown).toMatchObject({ kind: 'user', text: expect.stringContaining('Exit code 0') })

    // The same command from the model is fenced.
    const status = await sandbox.status()
    expect(status.kind).toBe('on')
    const controller = new AbortController()
    const fenced = await bash.execute(
      { command: 'touch ../by-the-model.txt' },
      {
        workspace,
        cwd: () => workspace,
        setCwd: () => undefined,
        signal: controller.signal,
        sessionId: 's',
        callId: 'c',
        mode: () => 'auto',
        files: createFileStateTracker(),
        spill: createOutputSpiller(outputs),
        onProgress: () => undefined,
        supportsVision: false,
        sandbox,
      },
    )
    expect(fenced.forModel).toContain('Read-only file system')
    expect(existsSync(join(root, 'by-the-model.txt'))).toBe(false)
  })
})

import { afterEach, beforeEach, expect } from 'vitest'
import { makeSandbox, runCli, type CliResult, type Sandbox } from './run-cli.ts'
import { type ScriptedServer, startScriptedServer } from './scripted-server.ts'

export interface E2eEnv {
  readonly box: Sandbox
  readonly server: ScriptedServer
  /** Runs the built CLI against the scripted server (model `m`) in the sandbox workspace. */
  cli(args: string[], extra?: { stdin?: string; timeoutMs?: number }): Promise<CliResult>
}

/**
 * Registers per-test set-up for end-to-end tests: a fresh sandbox and scripted server before each test;
 * afterwards the server must have seen no pairing violation, and both are removed.
 */
export function setupE2eEnv(): E2eEnv {
  let box: Sandbox | undefined
  let server: ScriptedServer | undefined
  beforeEach(async () => {
    box = await makeSandbox()
    server = await startScriptedServer()
  })
  afterEach(async () => {
    expect(server?.pairingViolations).toEqual([])
    await server?.close()
    await box?.cleanup()
  })
  const need = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('setupE2eEnv() values are only available inside tests')
    return value
  }
  return {
    get box() {
      return need(box)
    },
    get server() {
      return need(server)
    },
    cli(args, extra = {}) {
      const sandbox = need(box)
      return runCli(['--base-url', need(server).baseUrl, '--model', 'm', ...args], {
        cwd: sandbox.workspace,
        env: sandbox.env,
        timeoutMs: extra.timeoutMs ?? 40_000,
        ...(extra.stdin === undefined ? {} : { stdin: extra.stdin }),
      })
    },
  }
}

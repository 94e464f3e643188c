import { afterEach, describe, expect, it } from 'vitest'
import { keys, startTui, type TuiSession } from '../support/pty-terminal.ts'
import { makeSandbox, type Sandbox } from '../support/run-cli.ts'
import { type ReplySource, type ScriptedServer, startScriptedServer } from '../support/scripted-server.ts'

let box: Sandbox | undefined
let server: ScriptedServer | undefined
let tui: TuiSession | undefined

afterEach(async () => {
  await tui?.kill()
  await server?.close()
  await box?.cleanup()
  tui = undefined
  server = undefined
  box = undefined
})

async function launch(replies: ReplySource[], opts: { cols?: number; rows?: number } = {}) {
  box = await makeSandbox()
  server = await startScriptedServer({ replies })
  tui = startTui({
    args: ['--base-url', server.baseUrl, '--model', 'test-model'],
    cwd: box.workspace,
    env: box.env,
    cols: opts.cols ?? 140,
    rows: opts.rows ?? 40,
  })
  return { box, server, tui }
}

describe('probe', () => {
  it('first frame', async () => {
    const { tui } = await launch([])
    await tui.waitFor('test-model')
    await tui.waitFor('❯')
    console.log(tui.screen())
    console.log(tui.term.buffer.active.type)
  })
})

void keys

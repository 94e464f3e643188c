import { expect, it } from 'vitest'
import type { CallOutcome } from '../../../../source/agent/tool-call/outcome.js'
import { expandCommandTurn } from '../../../../source/agent/turn/command-turn.js'
import { expandCommand } from '../../../../source/extensions/expand.js'

// A command's own `!` that fails inside the Bash sandbox: the user is told the sandbox may be why (its
// protected folders are read-only there); the output still goes to the model as it is.

function ran(output: string, exitCode: number, sandboxed: boolean): CallOutcome {
  return {
    callId: 'c',
    name: 'Bash',
    summary: '',
    status: exitCode === 0 ? 'done' : 'error',
    content: output,
    preview: '',
    display: {
      kind: 'command',
      command: 'x',
      exitCode,
      output,
      truncated: false,
      ...(sandboxed ? { sandboxed } : {}),
    },
    images: [],
    durationMs: 1,
    ok: true,
    retryable: false,
  }
}

it.each([
  ['failed inside the sandbox: a warning names it', 1, true, 1],
  ['failed outside it: none', 1, false, 0],
  ['succeeded inside it: none', 0, true, 0],
])('a ```! block that %s', async (_name, exitCode, sandboxed, warnings) => {
  const warned: string[] = []
  const command = expandCommand(
    { name: 'loop', file: 'loop.md', allowedTools: [] },
    'Go:\n```!\n./setup.sh\n```\n',
    '',
  )
  const result = await expandCommandTurn(
    command,
    {
      call: async () => ran('.claude/state.md: Read-only file system\n', exitCode, sandboxed),
      notice: () => {},
      warn: (text) => warned.push(text),
    },
    new AbortController().signal,
  )
  expect(result).toEqual({
    content: `Go:\n.claude/state.md: Read-only file system${exitCode ? `\n(exit code ${exitCode})` : ''}\n`,
  })
  expect(warned).toHaveLength(warnings)
  if (warnings)
    expect(warned[0]).toBe(
      '/loop (loop.md): `./setup.sh` failed (exit code 1) inside the Bash sandbox, where .git/, .agent-tui/, .claude/ and .mcp.json are read-only at any depth ("Read-only file system" there is the sandbox\'s doing); its output went to the model as it is. To let it write there, run the command with --no-sandbox',
    )
})

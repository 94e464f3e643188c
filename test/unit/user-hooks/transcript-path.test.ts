import { mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, expect, it } from 'vitest'
import { collectHooks } from '../../../source/user-hooks/hook-settings.js'
import { createHookService, type HookService } from '../../../source/user-hooks/hook-service.js'

let root: string
let service: HookService | undefined
beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'agent-tui-transcript-path-')))
})
afterEach(async () => {
  await service?.dispose()
  rmSync(root, { recursive: true, force: true })
})

it('the transcript is brought up to date only when a hook is about to run, and the hook reads that path', async () => {
  const seen = join(root, 'seen.json')
  const collected = collectHooks([
    {
      scope: 'user',
      label: '~/.config/agent-tui/settings.json',
      settings: {
        hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: `cat > ${seen}` }] }] },
      },
    },
  ])
  let syncs = 0
  service = createHookService({
    view: () => ({ active: collected.hooks, inactive: [], warnings: [] }),
    projectDir: root,
    common: () => ({ session_id: 's', transcript_path: '/stale', cwd: root, permission_mode: 'default' }),
    transcriptPath: () => {
      syncs++
      return join(root, 's.transcript.jsonl')
    },
  })
  // No hook matches Read, and none is configured for Stop: nothing is written.
  await service.run('PreToolUse', { tool_name: 'Read', tool_input: { file_path: 'a' }, tool_use_id: 'c1' })
  await service.run('Stop', { stop_hook_active: false })
  expect(syncs).toBe(0)
  await service.run('PreToolUse', { tool_name: 'Bash', tool_input: { command: 'ls' }, tool_use_id: 'c2' })
  expect(syncs).toBe(1)
  expect(JSON.parse(readFileSync(seen, 'utf8')).transcript_path).toBe(join(root, 's.transcript.jsonl'))
})

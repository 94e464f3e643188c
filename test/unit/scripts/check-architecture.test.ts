import { execFile } from 'node:child_process'
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { promisify } from 'node:util'
import { afterEach, describe, expect, it } from 'vitest'

const script = join(import.meta.dirname, '..', '..', '..', 'scripts', 'check-architecture.mjs')
const run = promisify(execFile)
let dir: string | undefined

afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true })
})

async function check(files: Record<string, string>): Promise<{ code: number; output: string }> {
  dir = await mkdtemp(join(tmpdir(), 'agent-tui-arch-'))
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true })
    await writeFile(join(dir, path), text)
  }
  try {
    const { stdout } = await run(process.execPath, [script, dir])
    return { code: 0, output: stdout }
  } catch (error) {
    const failed = error as { code: number; stderr: string }
    return { code: failed.code, output: failed.stderr }
  }
}

describe('scripts/check-architecture.mjs', () => {
  it('reports upward and sibling arrows (multi-line imports too), circles, long files, folders without a layer, and ui/ reaching past the command types', async () => {
    const { code, output } = await check({
      'wiring/start.ts': "import { view } from '../ui/view.js'\n",
      'ui/view.ts':
        "import type { RuntimeCommands } from '../agent/commands.js'\nimport { Runtime } from '../agent/runtime.js'\nimport type { Loop } from '../agent/loop.js'\nexport const view = 1\n",
      'ui/other.ts': "import { trace } from '../headless/trace.js'\n",
      'headless/trace.ts': 'export const trace = 1\n',
      'agent/commands.ts': 'export interface RuntimeCommands {}\n',
      'agent/runtime.ts': 'export class Runtime {}\n',
      'agent/loop.ts': `export interface Loop {}\n${'// filler\n'.repeat(400)}`,
      'config/load.ts': "import {\n  Runtime,\n  other,\n} from '../agent/runtime.js'\n",
      'tools/a.ts': "import { b } from './b.js'\nexport const a = 1\n",
      'tools/b.ts': "import { a } from './a.js'\nexport const b = 1\n",
      'store/reducer.ts': "import { readFileSync } from 'node:fs'\n",
      'gadgets/thing.ts': 'export const thing = 1\n',
      'permissions/policy.ts': "import type { Tool } from '../tools/types.js'\n",
      'tools/types.ts': 'export interface Tool {}\n',
      'ui/pane.tsx': "import { Box, Text } from 'ink'\nexport const p = 1\n",
      'ui/components/text.tsx': "import { Text as InkText } from 'ink'\nexport const Text = InkText\n",
    })
    expect(code).toBe(1)
    expect(output).toContain(
      'config/load.ts: imports "../agent/runtime.js" — agent/ is above config/ in LAYERS',
    )
    expect(output).toContain('ui/other.ts: imports "../headless/trace.js" — ui/ and headless/ are siblings')
    expect(output).toContain(
      'ui/view.ts: imports "../agent/runtime.js" — ui/ reaches the runtime only through',
    )
    expect(output).toContain('ui/view.ts: imports "../agent/loop.js" — ui/ reaches the runtime only through')
    expect(output).not.toContain('ui/view.ts: imports "../agent/commands.js"')
    expect(output).not.toContain('wiring/start.ts')
    expect(output).toContain('import circle: tools/a.ts -> tools/b.ts -> tools/a.ts')
    expect(output).toContain('agent/loop.ts: 401 lines — over the 400-line budget')
    expect(output).toContain('gadgets/thing.ts: source/gadgets has no place in LAYERS')
    expect(output).toContain('store/reducer.ts: imports "node:fs" — the store is pure')
    // Permissions own their types: not even a type import from tools/.
    expect(output).toContain(
      'permissions/policy.ts: imports "../tools/types.js" — tools/ is above permissions/ in LAYERS',
    )
    // Ink's Text only through the wrapper that cleans what it shows.
    expect(output).toContain('ui/pane.tsx: imports Text from "ink" — use ui/components/text.tsx')
    expect(output).not.toContain('ui/components/text.tsx: imports Text')
    // A named exception that is no longer needed is an error too.
    expect(output).toContain('LONG_FILES "permissions/shell-split.ts"')
    expect(output).toContain('is within the budget now: remove it')
  })

  it('passes a clean tree, a file over the budget that LONG_FILES names with its reason included', async () => {
    const { code, output } = await check({
      'wiring/start.ts': "import { split } from '../permissions/shell-split.js'\nexport const s = split\n",
      'permissions/shell-split.ts': `export const split = 1\n${'// filler\n'.repeat(400)}`,
    })
    expect(output).toBe('architecture check: ok\n')
    expect(code).toBe(0)
  })
})

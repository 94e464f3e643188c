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

const filler = (lines: number) => '// filler\n'.repeat(lines)

describe('scripts/check-architecture.mjs', () => {
  it('reports upward arrows (multi-line imports too), circles of files and of folders in a tier, long files, folders without a tier, and ui/ reaching past the command types', async () => {
    const { code, output } = await check({
      'app/start.ts': "import { view } from '../ui/view.js'\n",
      'ui/view.ts':
        "import type { RuntimeCommands } from '../agent/runtime/commands.js'\nimport { Runtime } from '../agent/runtime.js'\nimport type { Loop } from '../agent/loop.js'\nexport const view = 1\n",
      'ui/other.ts': "import { trace } from '../headless/trace.js'\n",
      'headless/trace.ts': 'export const trace = 1\n',
      'agent/runtime/commands.ts': 'export interface RuntimeCommands {}\n',
      'agent/runtime.ts': 'export class Runtime {}\n',
      'agent/loop.ts': `export interface Loop {}\n${filler(400)}`,
      'config/load.ts': "import {\n  Runtime,\n  other,\n} from '../agent/runtime.js'\n",
      'tools/a.ts': "import { b } from './b.js'\nexport const a = 1\n",
      'tools/b.ts': "import { a } from './a.js'\nexport const b = 1\n",
      'store/reducer.ts':
        "import { readFileSync } from 'node:fs'\nimport type { Message } from '../provider/messages.js'\n",
      'provider/messages.ts': 'export interface Message {}\n',
      'gadgets/thing.ts': 'export const thing = 1\n',
      // Folders of one tier may import each other, but not both ways (here round a third file).
      'permissions/policy.ts': "import type { Tool } from '../tools/types.js'\n",
      'tools/types.ts': "import type { Hook } from '../user-hooks/types.js'\nexport interface Tool {}\n",
      'user-hooks/types.ts':
        "import type { Rule } from '../permissions/rules.js'\nexport interface Hook {}\n",
      'permissions/rules.ts': 'export interface Rule {}\n',
      'permissions/shell-split.ts': `export const split = 1\n${filler(800)}`,
      'ui/pane.tsx': "import { Box, Text } from 'ink'\nexport const p = 1\n",
      'ui/components/text.tsx': "import { Text as InkText } from 'ink'\nexport const Text = InkText\n",
    })
    expect(code).toBe(1)
    expect(output).toContain(
      'config/load.ts: imports "../agent/runtime.js" — agent/ is in the core tier, above config/ (services)',
    )
    // Siblings in a tier import each other freely while no circle forms.
    expect(output).not.toContain('ui/other.ts')
    expect(output).toContain(
      'ui/view.ts: imports "../agent/runtime.js" — ui/ reaches the runtime only through',
    )
    expect(output).toContain('ui/view.ts: imports "../agent/loop.js" — ui/ reaches the runtime only through')
    expect(output).not.toContain('ui/view.ts: imports "../agent/runtime/commands.js"')
    expect(output).not.toContain('app/start.ts')
    expect(output).toContain('import circle: tools/a.ts -> tools/b.ts -> tools/a.ts')
    expect(output).toMatch(
      /folder circle in the services tier: (permissions -> tools -> user-hooks -> permissions|tools -> user-hooks -> permissions -> tools|user-hooks -> permissions -> tools -> user-hooks) \(.*permissions\/policy.ts -> tools\/types.ts/,
    )
    expect(output).toContain('agent/loop.ts: 401 lines — over the 400-line budget')
    // A reason in LONG_FILES does not stretch the hard budget.
    expect(output).toContain('permissions/shell-split.ts: 801 lines — over the hard 800-line budget')
    expect(output).toContain('gadgets/thing.ts: source/gadgets has no place in TIERS')
    expect(output).toContain('store/reducer.ts: imports "node:fs" — the store is pure')
    // The store imports nothing above it, not even types.
    expect(output).toContain('store/reducer.ts: imports "../provider/messages.js" — the store is pure')
    // Ink's Text only through the wrapper that cleans what it shows.
    expect(output).toContain('ui/pane.tsx: imports Text from "ink" — use ui/components/text.tsx')
    expect(output).not.toContain('ui/components/text.tsx: imports Text')
    // A named exception that is no longer needed is an error too.
    expect(output).toContain('LONG_FILES "permissions/gate.ts"')
    expect(output).toContain('is within the budget now: remove it')
  })

  it('passes a clean tree, a file over the soft budget that LONG_FILES names with its reason included', async () => {
    const { code, output } = await check({
      'app/start.ts': "import { split } from '../permissions/shell-split.js'\nexport const s = split\n",
      'permissions/shell-split.ts': `export const split = 1\n${filler(400)}`,
      'permissions/gate.ts': `import { split } from './shell-split.js'\nexport const g = split\n${filler(400)}`,
      'app/session/create-session.ts': `export const c = 1\n${filler(400)}`,
      'store/state.ts': "import type { Message } from './messages.js'\nexport type M = Message\n",
      'store/messages.ts': 'export interface Message {}\n',
      'app/run.ts': "import type { M } from '../store/state.js'\nexport type S = M\n",
      // Siblings of a tier, one way.
      'tools/bash.ts': "import { g } from '../permissions/gate.js'\nexport const b = g\n",
    })
    expect(output).toBe('architecture check: ok\n')
    expect(code).toBe(0)
  })
})

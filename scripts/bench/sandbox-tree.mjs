// Issue #30: the sandbox binds the protected names it finds below the top of a workspace read-only,
// planned before every command. This measures `echo hi` in a workspace shaped like a real repository
// (folders of sources with instruction files here and there — not bound below the top — a nested
// repository and .mcp.json, an installed
// node_modules) against the same workspace without the sandbox, alternating as bash-sandbox.mjs does.
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { median } from './measure.mjs'

const RUNS = 30

/** ~600 source folders (3 files each, an AGENTS.md in every 25th) and a 1,500-folder node_modules. */
async function makeRepository(dir) {
  let folders = 0
  for (let a = 0; a < 20; a++) {
    for (let b = 0; b < 30; b++) {
      const sub = join(dir, 'packages', `p${a}`, 'src', `m${b}`)
      await mkdir(sub, { recursive: true })
      folders++
      for (let f = 0; f < 3; f++) await writeFile(join(sub, `f${f}.ts`), 'export {}\n')
      if (b % 25 === 0) await writeFile(join(sub, 'AGENTS.md'), '# notes\n')
    }
  }
  await mkdir(join(dir, 'vendor', 'lib', '.git'), { recursive: true })
  await writeFile(join(dir, 'packages', 'p3', '.mcp.json'), '{}\n')
  for (let p = 0; p < 300; p++) {
    for (let d = 0; d < 5; d++)
      await mkdir(join(dir, 'node_modules', `pkg${p}`, `d${d}`), { recursive: true })
  }
  return { folders, dependencyFolders: 1500 }
}

async function timeEcho(startShell, cwd, sandbox) {
  const started = performance.now()
  const shell = startShell({ command: 'echo hi', cwd, ...(sandbox ? { sandbox } : {}) })
  let out = ''
  shell.onOutput((chunk) => {
    out += chunk
  })
  const exit = await shell.exited
  if (exit === 'handed-over' || exit.exitCode !== 0 || out !== 'hi\n') throw new Error('echo failed')
  return performance.now() - started
}

export async function sandboxInRepository(ctx, { startShell, createBashSandbox, box, outputs }) {
  const work = join(box.root, 'repository')
  const shape = await makeRepository(work)
  const status = await createBashSandbox({
    network: false,
    projectRoots: [work],
    scratchRoots: [outputs],
  }).status()
  if (status.kind !== 'on') return
  // The first plan reads every folder; later ones stat them and read only what changed. A folder changed
  // within the last second is read again each time (see nested-protected.ts): a real repository's are
  // older, so the warm-up lasts past that.
  const made = performance.now()
  await timeEcho(startShell, work)
  while (performance.now() - made < 1500) await timeEcho(startShell, work, status.sandbox)
  const plain = []
  const fenced = []
  for (let i = 0; i < RUNS; i++) {
    plain.push(await timeEcho(startShell, work))
    fenced.push(await timeEcho(startShell, work, status.sandbox))
  }
  ctx.report(
    `  added per Bash call in a repository (${shape.folders} folders, 24 AGENTS.md, a nested .git and .mcp.json; node_modules not walked)`,
    median(fenced) - median(plain),
    { max: 15, budget: '≤ 15 ms', note: `medians of ${RUNS}; alternating runs` },
  )
}
